package dev.postern.transport;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * SHA-256 in lower-case hex, the one implementation of it outside the executors: a digest factory and
 * the hex shape for the reader and the result records, and {@link #of} for everyone (the journal's
 * hash chain).
 */
public final class Sha256 {
    private static final HexFormat FORMAT = HexFormat.of();
    /** Whether a char below {@code 'f' + 1} is a lower-case hex digit. */
    private static final boolean[] LOWER_HEX = lowerHex();

    private Sha256() {
    }

    static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform must provide SHA-256", e);
        }
    }

    /** Finishes {@code digest} (which resets it) and returns lower-case hex. */
    static String finish(MessageDigest digest) {
        return FORMAT.formatHex(digest.digest());
    }

    /** The SHA-256 of {@code bytes} in lower-case hex (64 digits). */
    public static String of(byte[] bytes) {
        return FORMAT.formatHex(newDigest().digest(bytes));
    }

    static String requireHex(String field, String value) {
        if (value == null) {
            throw new NullPointerException(field);
        }
        if (!isHex64(value)) {
            throw new IllegalArgumentException(field + " must be 64 lower-case hex digits, got \"" + value + '"');
        }
        return value;
    }

    /**
     * Exactly 64 chars, each {@code 0-9} or {@code a-f}. A plain loop over a table rather than a regular
     * expression: every frame the reader produces passes through here; a matcher allocated per frame,
     * then range comparisons (a branch per char that random hex digits mispredict), each showed in the
     * CPU profile of the cheap call. With the table the loop's branches go the same way for every
     * valid digit.
     */
    private static boolean isHex64(String value) {
        if (value.length() != 64) {
            return false;
        }
        for (int i = 0; i < 64; i++) {
            char c = value.charAt(i);
            if (c >= LOWER_HEX.length || !LOWER_HEX[c]) {
                return false;
            }
        }
        return true;
    }

    private static boolean[] lowerHex() {
        boolean[] table = new boolean['f' + 1];
        for (char c = '0'; c <= '9'; c++) {
            table[c] = true;
        }
        for (char c = 'a'; c <= 'f'; c++) {
            table[c] = true;
        }
        return table;
    }
}
