package dev.postern.policy.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The one HTTP token and method syntax: every RFC 9110 tchar accepted, every delimiter, space,
 * control and non-ASCII character refused, inside a token and alone; methods exactly 1..16
 * upper-case ASCII letters. The former copies (the rules, the target model, both JSON schemas) use
 * this; their own tests still hold their texts.
 */
class HttpSyntaxTest {
    /** RFC 9110 §5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA. */
    private static final String TCHAR_SYMBOLS = "!#$%&'*+-.^_`|~";
    /** RFC 9110 §5.6.2's delimiters, plus space and tab. */
    private static final String DELIMITERS = "\"(),/:;<=>?@[\\]{} \t";

    static Stream<String> tokens() {
        List<String> out = new ArrayList<>(List.of("a", "Z", "0", "X-Api-Key", "accept", "ACCEPT", "x_y", "a".repeat(300)));
        for (char c : TCHAR_SYMBOLS.toCharArray()) {
            out.add("a" + c + "b");
            out.add(String.valueOf(c));
        }
        return out.stream();
    }

    static Stream<String> notTokens() {
        List<String> out = new ArrayList<>(List.of("", "Accépt", "a\u00ffb", "a\u0100b", "a\uD83D\uDE00", "a\r\nb", "a\0b", "a\u007fb"));
        for (char c : DELIMITERS.toCharArray()) {
            out.add("a" + c + "b");
            out.add(String.valueOf(c));
            out.add("a" + c);
            out.add(c + "a");
        }
        for (char c = 0; c < 0x20; c++) {
            out.add("a" + c + "b");
        }
        return out.stream();
    }

    @ParameterizedTest
    @MethodSource("tokens")
    void everyTcharIsATokenCharacter(String token) {
        assertTrue(HttpSyntax.isToken(token), token);
    }

    @ParameterizedTest
    @MethodSource("notTokens")
    void delimitersSpacesControlsAndNonAsciiAreNotTokenCharacters(String notToken) {
        assertFalse(HttpSyntax.isToken(notToken), notToken);
    }

    @Test
    void exactlyTheSeventySevenTcharsAreTokenCharacters() {
        StringBuilder accepted = new StringBuilder();
        for (char c = 0; c < 0x180; c++) {
            if (HttpSyntax.isToken(String.valueOf(c))) {
                accepted.append(c);
            }
        }
        assertEquals("!#$%&'*+-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ^_`abcdefghijklmnopqrstuvwxyz|~", accepted.toString());
    }

    @Test
    void theRegexTextsAreTheCheckItself() {
        // The JSON schemas embed these texts; the check must be exactly what they say.
        assertEquals(HttpSyntax.TOKEN_CHAR + "+", HttpSyntax.TOKEN);
        for (char c = 0; c < 0x180; c++) {
            String s = String.valueOf(c);
            assertEquals(s.matches(HttpSyntax.TOKEN), HttpSyntax.isToken(s), "char " + (int) c);
            assertEquals(("A" + s).matches(HttpSyntax.METHOD), HttpSyntax.isMethod("A" + s), "char " + (int) c);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"GET", "POST", "A", "PROPFIND", "ABCDEFGHIJKLMNOP"})
    void methodsAreOneToSixteenUpperCaseLetters(String method) {
        assertTrue(HttpSyntax.isMethod(method), method);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "get", "Get", "ABCDEFGHIJKLMNOPQ", "GET ", " GET", "GET\r\n", "M-SEARCH", "G1", "GÉT", "É",
        "\u0130", "\uFF27ET"})
    void anythingElseIsNotAMethod(String method) {
        assertFalse(HttpSyntax.isMethod(method), method);
    }
}
