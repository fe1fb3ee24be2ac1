package dev.postern.app.check;

import dev.postern.policy.model.TrustStore;
import dev.postern.policy.port.CredentialStore;
import dev.postern.policy.port.CredentialUnavailableException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.UnrecoverableKeyException;
import java.util.Arrays;
import java.util.Collections;

/**
 * Opens an HTTP target's trust store as the HTTP executor does (its password from the credential
 * store, only its trusted-certificate entries trusted) and, when that fails, says why in words, as
 * a phrase that follows the file's name: gone, unreadable, not a key store (a PEM file named), a
 * password that does not open it, no trusted-certificate entry. Never an exception's class or
 * message, never the password. Stateless.
 *
 * <p>Limits: a certificate the store trusts is not judged further (expiry, CA flag); the JDK reads
 * either format whatever {@code type} says, so a JKS file named PKCS12 is not a problem here, nor
 * at call time.
 */
final class TrustStoreFiles {

    /** The store's anchors, or why there are none; {@code atPassword} when the password is to blame. */
    record Opened(KeyStore anchors, String problem, boolean atPassword) {
        boolean ok() {
            return anchors != null;
        }
    }

    private TrustStoreFiles() {
    }

    static Opened open(TrustStore store, CredentialStore credentials) {
        char[] password = null;
        try {
            if (store.password().isPresent()) {
                try {
                    password = chars(credentials.resolve(store.password().get()).reveal());
                } catch (CredentialUnavailableException e) {
                    String name = store.password().get().name();
                    return new Opened(null, "cannot be opened: its password credential " + name + " cannot be read (see /credentials/"
                            + name + ")", true);
                } catch (CharacterCodingException e) {
                    return new Opened(null, "cannot be opened: its password credential " + store.password().get().name()
                            + " is not UTF-8 text", true);
                }
            }
            byte[] bytes;
            try {
                bytes = Files.readAllBytes(store.file());
            } catch (NoSuchFileException e) {
                return new Opened(null, "no longer exists", false);
            } catch (AccessDeniedException e) {
                return new Opened(null, "cannot be read: permission denied", false);
            } catch (FileSystemException e) {
                return new Opened(null, "cannot be read" + (e.getReason() == null ? "" : ": " + e.getReason()), false);
            } catch (IOException e) {
                return new Opened(null, "cannot be read", false);
            }
            return load(store, bytes, password);
        } finally {
            if (password != null) {
                Arrays.fill(password, '\0');
            }
        }
    }

    private static Opened load(TrustStore store, byte[] bytes, char[] password) {
        String type = store.type().name();
        if (bytes.length == 0) {
            return new Opened(null, "is empty", false);
        }
        try {
            KeyStore loaded = KeyStore.getInstance(type);
            try {
                loaded.load(new ByteArrayInputStream(bytes), password);
            } catch (IOException e) {
                if (e.getCause() instanceof UnrecoverableKeyException) {
                    return new Opened(null, password == null
                            ? "cannot be read without a password (name the credential that opens it in \"password\")"
                            : "cannot be opened with the password in credential " + store.password().orElseThrow().name()
                            + ": the password is wrong or the file is damaged", true);
                }
                return new Opened(null, new String(bytes, StandardCharsets.ISO_8859_1).contains("-----BEGIN ")
                        ? "is a PEM file, not a " + type + " key store (import its certificates with keytool -importcert)"
                        : "is not a " + type + " key store (nor a JKS or PKCS12 one)", false);
            }
            KeyStore anchors = KeyStore.getInstance("PKCS12");
            anchors.load(null, null);
            for (String alias : Collections.list(loaded.aliases())) {
                if (loaded.isCertificateEntry(alias)) {
                    anchors.setCertificateEntry(alias, loaded.getCertificate(alias));
                }
            }
            if (anchors.size() == 0) {
                return loaded.size() == 0 && password == null && store.type() == TrustStore.Type.PKCS12
                        ? new Opened(null, "shows no certificate without a password (a PKCS12 store made by keytool encrypts its"
                                + " certificates: name the credential that opens it in \"password\")", true)
                        : new Opened(null, "holds no trusted-certificate entry (key entries are not trusted)", false);
            }
            return new Opened(anchors, null, false);
        } catch (GeneralSecurityException | IOException e) {
            return new Opened(null, "cannot be read as a " + type + " key store", false);
        }
    }

    private static char[] chars(byte[] secret) throws CharacterCodingException {
        try {
            CharBuffer decoded = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(secret));
            char[] out = new char[decoded.remaining()];
            decoded.get(out);
            if (decoded.hasArray()) {
                Arrays.fill(decoded.array(), '\0');
            }
            return out;
        } finally {
            Arrays.fill(secret, (byte) 0);
        }
    }
}
