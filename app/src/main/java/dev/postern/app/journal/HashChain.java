package dev.postern.app.journal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 in lower-case hex, and the all-zero hash the first row of a chain points to. */
public final class HashChain {
    public static final String GENESIS = "0".repeat(64);

    private HashChain() {
    }

    public static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    public static String sha256(String line) {
        return sha256(line.getBytes(StandardCharsets.UTF_8));
    }
}
