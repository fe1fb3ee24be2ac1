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
