package dev.postern.policy.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * An operator's SQL statement as PostgreSQL's lexer would split it, far enough to know three things:
 * that it is exactly one statement (no {@code ;} in code except one trailing one), where its
 * {@code :name} placeholders are (outside quotes and comments, and not the {@code ::} cast), and the
 * same text in JDBC's positional form ({@code ?} per placeholder, a literal {@code ?} in code doubled
 * so the driver does not take it for one). It understands {@code '...'} (with {@code ''}),
 * {@code E'...'} (with backslash escapes), {@code "..."}, {@code $tag$...$tag$}, {@code --} and nested
 * {@code /* *}{@code /} comments, and assumes {@code standard_conforming_strings} is on (the executor
 * sets it). Positional {@code $1} parameters are refused: placeholders are named. Immutable.
 *
 * @param sql the statement as the operator wrote it
 * @param placeholders the placeholder names in order of appearance (a name may repeat)
 * @param jdbcSql the statement with each placeholder replaced by {@code ?}, for a PreparedStatement
 */
public record SqlText(String sql, List<String> placeholders, String jdbcSql) {

    public SqlText {
        Objects.requireNonNull(sql, "sql");
        placeholders = List.copyOf(Objects.requireNonNull(placeholders, "placeholders"));
        Objects.requireNonNull(jdbcSql, "jdbcSql");
    }

    /** Lexes {@code sql}; throws {@link IllegalArgumentException} naming the offset of what is wrong. */
    public static SqlText parse(String sql) {
        return new Lexer(Objects.requireNonNull(sql, "sql")).run();
    }

    private static final class Lexer {
        private final String s;
        private final StringBuilder out = new StringBuilder();
        private final List<String> names = new ArrayList<>();
        private int i;
        private boolean code;
        /** Offset of a {@code ;} seen in code; anything but blanks and comments after it is a second statement. */
        private int semicolon = -1;

        Lexer(String s) {
            this.s = s;
        }

        SqlText run() {
            if (s.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("the SQL must not contain NUL");
            }
            while (i < s.length()) {
                char c = s.charAt(i);
                if (Character.isWhitespace(c)) {
                    copy(1);
                } else if (c == '-' && at(i + 1) == '-') {
                    lineComment();
                } else if (c == '/' && at(i + 1) == '*') {
                    blockComment();
                } else {
                    token(c);
                }
            }
            if (!code) {
                throw new IllegalArgumentException("the SQL holds no statement");
            }
            return new SqlText(s, names, out.toString());
        }

        private void token(char c) {
            if (semicolon >= 0) {
                throw new IllegalArgumentException("the SQL holds more than one statement: text follows the ';' at offset " + semicolon);
            }
            if (c == ';') {
                semicolon = i;
                i++; // the one trailing ';' is dropped: the driver gets exactly one statement
                return;
            }
            code = true;
            if (c == '\'') {
                quoted('\'', false);
            } else if (c == '"') {
                quoted('"', false);
            } else if ((c == 'E' || c == 'e') && at(i + 1) == '\'') {
                copy(1);
                quoted('\'', true);
            } else if ((c == 'U' || c == 'u') && at(i + 1) == '&' && (at(i + 2) == '\'' || at(i + 2) == '"')) {
                copy(2);
                quoted(s.charAt(i), false);
            } else if (c == '$') {
                dollar();
            } else if (c == ':') {
                colon();
            } else if (c == '?') {
                out.append("??");
                i++;
            } else if (identifierStart(c)) {
                int start = i;
                while (i < s.length() && identifierPart(s.charAt(i))) {
                    i++;
                }
                out.append(s, start, i);
            } else {
                copy(1);
            }
        }

        private void quoted(char quote, boolean backslashes) {
            int start = i;
            copy(1);
            while (i < s.length()) {
                char c = s.charAt(i);
                if (backslashes && c == '\\') {
                    copy(Math.min(2, s.length() - i));
                } else if (c == quote) {
                    copy(1);
                    if (at(i) == quote) {
                        copy(1);
                    } else {
                        return;
                    }
                } else {
                    copy(1);
                }
            }
            throw new IllegalArgumentException("unterminated " + quote + " quote starting at offset " + start);
        }

        private void dollar() {
            int start = i;
            int j = i + 1;
            if (j < s.length() && Character.isDigit(s.charAt(j))) {
                throw new IllegalArgumentException("positional parameter at offset " + start
                        + ": name placeholders as :name instead");
            }
            while (j < s.length() && identifierPart(s.charAt(j)) && s.charAt(j) != '$') {
                j++;
            }
            if (j >= s.length() || s.charAt(j) != '$' || (j > i + 1 && !identifierStart(s.charAt(i + 1)))) {
                copy(1); // a lone '$' is no quote; the server will judge it
                return;
            }
            String tag = s.substring(i, j + 1);
            int end = s.indexOf(tag, j + 1);
            if (end < 0) {
                throw new IllegalArgumentException("unterminated dollar quote " + tag + " starting at offset " + start);
            }
            copy(end + tag.length() - i);
        }

        private void colon() {
            if (at(i + 1) == ':') {
                copy(2);
                return;
            }
            if (!identifierStart(at(i + 1))) {
                copy(1);
                return;
            }
            int start = ++i;
            while (i < s.length() && placeholderPart(s.charAt(i))) {
                i++;
            }
            String name = s.substring(start, i);
            if (name.length() > 64 || !name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw new IllegalArgumentException("bad placeholder :" + name + " at offset " + (start - 1));
            }
            names.add(name);
            out.append('?');
        }

        private void lineComment() {
            while (i < s.length() && s.charAt(i) != '\n') {
                copy(1);
            }
        }

        private void blockComment() {
            int start = i;
            int depth = 0;
            while (i < s.length()) {
                if (s.charAt(i) == '/' && at(i + 1) == '*') {
                    depth++;
                    copy(2);
                } else if (s.charAt(i) == '*' && at(i + 1) == '/') {
                    depth--;
                    copy(2);
                    if (depth == 0) {
                        return;
                    }
                } else {
                    copy(1);
                }
            }
            throw new IllegalArgumentException("unterminated comment starting at offset " + start);
        }

        private char at(int k) {
            return k < s.length() ? s.charAt(k) : '\0';
        }

        private void copy(int n) {
            out.append(s, i, i + n);
            i += n;
        }

        private static boolean identifierStart(char c) {
            return Character.isLetter(c) || c == '_' || c > 0x7f;
        }

        private static boolean identifierPart(char c) {
            return identifierStart(c) || Character.isDigit(c) || c == '$';
        }

        private static boolean placeholderPart(char c) {
            return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
        }
    }
}
