package dev.postern.policy.model;

import java.util.regex.Pattern;

/**
 * The HTTP syntax Postern judges requests and targets by, written once: a header name is an RFC 9110
 * token, and a method is one to sixteen upper-case ASCII letters (narrower than RFC 9110's token on
 * purpose: no method an operator lists or an agent sends needs more, and a lower-case {@code get}
 * is not {@code GET} to every server). The policy's rules, the target model and the JSON schemas
 * of the tool input ({@code protocol}) and of the config file ({@code app}) all take it from here:
 * the schemas through {@link #TOKEN_CHAR} and {@link #METHOD}, each checked against this class by a
 * test where the schema is a file. Stateless.
 */
public final class HttpSyntax {
    /** One RFC 9110 {@code tchar}, as a regular-expression character class. */
    public static final String TOKEN_CHAR = "[!#$%&'*+.^_`|~0-9A-Za-z-]";
    /** An RFC 9110 {@code token}: one or more {@link #TOKEN_CHAR}s. */
    public static final String TOKEN = TOKEN_CHAR + "+";
    /** A method Postern accepts: one to sixteen upper-case ASCII letters. */
    public static final String METHOD = "[A-Z]{1,16}";

    private static final Pattern TOKEN_PATTERN = Pattern.compile(TOKEN);
    private static final Pattern METHOD_PATTERN = Pattern.compile(METHOD);

    private HttpSyntax() {
    }

    /** Whether {@code s} is an RFC 9110 token, as a header name must be. */
    public static boolean isToken(String s) {
        return TOKEN_PATTERN.matcher(s).matches();
    }

    /** Whether {@code s} is a method Postern accepts ({@link #METHOD}). */
    public static boolean isMethod(String s) {
        return METHOD_PATTERN.matcher(s).matches();
    }
}
