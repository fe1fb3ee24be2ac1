package dev.postern.journal;

import dev.postern.transport.Sha256;
import java.nio.charset.StandardCharsets;

/** SHA-256 in lower-case hex, and the all-zero hash the first row of a chain points to. */
public final class HashChain {
    public static final String GENESIS = "0".repeat(64);

    private HashChain() {
    }

    public static String sha256(byte[] bytes) {
        return Sha256.of(bytes);
    }

    public static String sha256(String line) {
        return sha256(line.getBytes(StandardCharsets.UTF_8));
    }
}
