package dev.postern.journal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Ed25519 key pairs as PEM text, made by the JDK or by the {@code openssl} command (when it is installed). */
public record Ed25519Keys(String privatePem, String publicPem) {

    /** A pair from the JDK's KeyPairGenerator, written as openssl writes PKCS#8 and SubjectPublicKeyInfo. */
    public static Ed25519Keys fromJdk() throws GeneralSecurityException {
        KeyPair pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        return new Ed25519Keys(pem("PRIVATE KEY", pair.getPrivate().getEncoded()), pem("PUBLIC KEY", pair.getPublic().getEncoded()));
    }

    /** A pair made by {@code openssl genpkey -algorithm ed25519} and {@code openssl pkey -pubout}; empty when openssl is missing. */
    public static Optional<Ed25519Keys> fromOpenssl(Path scratch) throws IOException, InterruptedException {
        Path key = scratch.resolve("openssl-ed25519.pem");
        Path pub = scratch.resolve("openssl-ed25519.pub.pem");
        if (!run("openssl", "genpkey", "-algorithm", "ed25519", "-out", key.toString())
                || !run("openssl", "pkey", "-in", key.toString(), "-pubout", "-out", pub.toString())) {
            return Optional.empty();
        }
        return Optional.of(new Ed25519Keys(Files.readString(key, StandardCharsets.US_ASCII), Files.readString(pub, StandardCharsets.US_ASCII)));
    }

    private static boolean run(String... command) throws InterruptedException {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    private static String pem(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + label + "-----\n";
    }
}
