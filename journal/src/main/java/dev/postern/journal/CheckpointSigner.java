package dev.postern.journal;

import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.util.Base64;
import java.util.Objects;

/**
 * Signs chain heads for checkpoint rows with one Ed25519 private key, and says how often: after the
 * batch in which the chain's seq passes a multiple of {@code everyRows}, and when a journal is closed.
 * Thread-safe (a {@link Signature} is made per signing).
 */
public final class CheckpointSigner {
    private final PrivateKey key;
    private final int everyRows;

    public CheckpointSigner(PrivateKey key, int everyRows) {
        this.key = Objects.requireNonNull(key, "key");
        if (!Checkpoints.ALGORITHM.equals(key.getAlgorithm()) && !"EdDSA".equals(key.getAlgorithm())) {
            throw new IllegalArgumentException("a checkpoint key is Ed25519, not " + key.getAlgorithm());
        }
        if (everyRows < 1) {
            throw new IllegalArgumentException("everyRows must be positive");
        }
        this.everyRows = everyRows;
    }

    /** A signer from a PEM PKCS#8 Ed25519 private key, checkpointing every {@link Checkpoints#DEFAULT_EVERY_ROWS} rows. */
    public static CheckpointSigner fromPem(String pem) throws GeneralSecurityException {
        return new CheckpointSigner(Checkpoints.privateKey(pem), Checkpoints.DEFAULT_EVERY_ROWS);
    }

    int everyRows() {
        return everyRows;
    }

    /** Whether a batch that moved the chain's seq from {@code before} to {@code after} passed a multiple of everyRows. */
    boolean due(long before, long after) {
        return after / everyRows > before / everyRows;
    }

    /** The Base64 signature of {@code journal}'s head. */
    String sign(String journal, long headSeq, String headSha256) {
        try {
            Signature s = Signature.getInstance(Checkpoints.ALGORITHM);
            s.initSign(key);
            s.update(Checkpoints.message(journal, headSeq, headSha256));
            return Base64.getEncoder().encodeToString(s.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Ed25519 signing failed: " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "CheckpointSigner[Ed25519, every " + everyRows + " rows]";
    }
}
