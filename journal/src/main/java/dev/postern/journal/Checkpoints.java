package dev.postern.journal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a checkpoint row signs and the keys that sign and check it (DESIGN §6): an Ed25519 signature
 * over the journal's name, the seq of the row before the checkpoint and that row's SHA-256, as the
 * bytes {@code postern-journal-checkpoint-v1\nNAME\nSEQ\nSHA256\n}. The journal's name
 * ({@code actions.jsonl}) is signed, not the file the row sits in, because rotation renames files.
 * Keys are read from PEM: PKCS#8 {@code PRIVATE KEY} as {@code openssl genpkey -algorithm ed25519}
 * writes it, X.509 {@code PUBLIC KEY} as {@code openssl pkey -pubout} prints it. Stateless.
 */
public final class Checkpoints {
    /** The row kind. */
    public static final String KIND = "checkpoint";
    /** The signature algorithm, also the row's {@code alg}. */
    public static final String ALGORITHM = "Ed25519";
    /** A checkpoint is written after the batch in which the chain's seq passes a multiple of this. */
    public static final int DEFAULT_EVERY_ROWS = 1000;

    private static final Pattern PEM = Pattern.compile(
            "-----BEGIN ([A-Z ]+)-----\\s*([A-Za-z0-9+/=\\s]+?)\\s*-----END \\1-----\\s*");

    private Checkpoints() {
    }

    /** The exact bytes a checkpoint signs. */
    static byte[] message(String journal, long headSeq, String headSha256) {
        return ("postern-journal-checkpoint-v1\n" + journal + '\n' + headSeq + '\n' + headSha256 + '\n')
                .getBytes(StandardCharsets.UTF_8);
    }

    /** An Ed25519 private key from PEM PKCS#8; the message says what is wrong, never the key's bytes. */
    public static PrivateKey privateKey(String pem) throws GeneralSecurityException {
        byte[] der = der(pem, "PRIVATE KEY");
        try {
            return KeyFactory.getInstance(ALGORITHM).generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new GeneralSecurityException("not an Ed25519 private key (make one with: openssl genpkey -algorithm ed25519)");
        }
    }

    /** An Ed25519 public key from PEM (X.509 SubjectPublicKeyInfo). */
    public static PublicKey publicKey(String pem) throws GeneralSecurityException {
        byte[] der = der(pem, "PUBLIC KEY");
        try {
            return KeyFactory.getInstance(ALGORITHM).generatePublic(new X509EncodedKeySpec(der));
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new GeneralSecurityException("not an Ed25519 public key (print one with: openssl pkey -in KEY -pubout)");
        }
    }

    private static byte[] der(String pem, String label) throws GeneralSecurityException {
        Matcher m = PEM.matcher(pem.strip() + "\n");
        if (!m.matches()) {
            throw new GeneralSecurityException("not one PEM block (-----BEGIN " + label + "----- ... -----END " + label + "-----)");
        }
        if (!m.group(1).equals(label)) {
            throw new GeneralSecurityException("a PEM " + m.group(1) + " where a " + label + " belongs"
                    + (m.group(1).contains("ENCRYPTED") ? " (an encrypted key cannot be used: Postern has no passphrase to open it)" : ""));
        }
        try {
            return Base64.getMimeDecoder().decode(m.group(2));
        } catch (IllegalArgumentException e) {
            throw new GeneralSecurityException("the PEM block is not valid Base64");
        }
    }
}
