package dev.postern.protocol.tools;

/**
 * How many bytes a string takes on the wire, without building the bytes: as UTF-8, and as a JSON
 * string literal (quotes, and escapes as Jackson writes them: a backslash and one letter for the quote,
 * the backslash and five controls, a six-byte hex escape for the other controls below 0x20). Stateless.
 */
final class RenderedSize {
    private RenderedSize() {
    }

    static long ofUtf8(String s) {
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            n += utf8(s, i);
            if (Character.isHighSurrogate(s.charAt(i)) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            }
        }
        return n;
    }

    /** The bytes of {@code s} written as one JSON string value, quotes included. */
    static long ofJsonString(String s) {
        long n = 2;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t') {
                n += 2;
            } else if (c < 0x20) {
                n += 6;
            } else {
                n += utf8(s, i);
                if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                }
            }
        }
        return n;
    }

    /**
     * The bytes {@code s} adds to a success result as one string value: once in {@code structuredContent}
     * ({@link #ofJsonString}) and once more inside the text item, where that literal is escaped again
     * (its quotes and backslashes doubled): 2 bytes an ASCII letter, 6 a quote or backslash, 5 a
     * newline or tab, 13 a NUL.
     */
    static long inBothCopies(String s) {
        long n = 6;
        for (int i = 0; i < s.length(); i++) {
            n += inBothCopies(s, i);
            if (Character.isHighSurrogate(s.charAt(i)) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            }
        }
        return n;
    }

    /** What the character (or surrogate pair) at {@code i} adds to {@link #inBothCopies(String)}. */
    static int inBothCopies(String s, int i) {
        char c = s.charAt(i);
        if (c == '"' || c == '\\') {
            return 6;
        }
        if (c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t') {
            return 5;
        }
        if (c < 0x20) {
            return 13;
        }
        return 2 * utf8(s, i);
    }

    private static int utf8(String s, int i) {
        char c = s.charAt(i);
        if (c < 0x80) {
            return 1;
        }
        if (c < 0x800) {
            return 2;
        }
        if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
            return 4;
        }
        return 3;
    }
}
