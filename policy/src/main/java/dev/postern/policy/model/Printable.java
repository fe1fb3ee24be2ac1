package dev.postern.policy.model;

/**
 * Text from outside (an agent's argument, an upstream server's line) made safe to put in a message:
 * no control character reaches a reader's terminal or splits a line. Written once for every kind
 * and the upstream executor; stateless.
 */
public final class Printable {
    /** How much of agent-supplied text a reason shows: enough to recognise it, never a whole payload. */
    public static final int SHOWN_CODE_POINTS = 64;

    private Printable() {
    }

    /** At most {@value #SHOWN_CODE_POINTS} code points of agent-supplied text, escaped: safe to put in a reason. */
    public static String shown(String s) {
        return escaped(s, SHOWN_CODE_POINTS);
    }

    /**
     * Whether {@code c} could make text pose as other text where a person reads it: an ISO control
     * character (C0, DEL, C1: a CR, an escape sequence), a line or paragraph separator, or a
     * bidirectional mark, embedding, override or isolate (which reorder what is shown).
     */
    public static boolean deceives(int c) {
        return Character.isISOControl(c) || c == 0x2028 || c == 0x2029 || c == 0x200e || c == 0x200f || c == 0x061c
                || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
    }

    /** {@code s} with every character that {@link #deceives} as a {@code \\uXXXX} escape. */
    public static String escaped(String s) {
        return escaped(s, Integer.MAX_VALUE);
    }

    /** At most {@code limit} code points of {@code s}, escaped as {@link #escaped(String)}. */
    public static String escaped(String s, int limit) {
        StringBuilder b = new StringBuilder();
        s.codePoints().limit(limit).forEach(c -> {
            if (deceives(c)) {
                b.append(String.format("\\u%04x", c));
            } else {
                b.appendCodePoint(c);
            }
        });
        return b.toString();
    }

    /**
     * {@code s} with each character that {@link #deceives} but TAB as {@code ?}, its length kept: for a line shown
     * as it came (an upstream server's stderr), where a CR or an escape sequence could rewrite the terminal.
     */
    public static String replaced(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            out.append(c != '\t' && deceives(c) ? '?' : c);
        }
        return out.toString();
    }
}
