package dev.postern.executor.http;

import dev.postern.policy.model.TrustStore;
import dev.postern.policy.port.CredentialStore;
import dev.postern.policy.port.CredentialUnavailableException;
import dev.postern.policy.port.SecretMask;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Arrays;
import java.util.Collections;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Turns a target's {@link TrustStore} into a TLS context that trusts exactly the store's
 * trusted-certificate entries (key entries are ignored, the JVM's default authorities are not
 * added), with the store's password read from the credential store when it names one. A store
 * that cannot be read, or holds no certificate, is an error: there is no fallback to other trust.
 * Stateless; thread-safe.
 */
final class TrustStores {

    /** The store could not be read or trusts nothing; the message names the file, never a secret. */
    static final class UnreadableTrustStoreException extends Exception {
        private static final long serialVersionUID = 1L;

        UnreadableTrustStoreException(String message) {
            super(message);
        }
    }

    private TrustStores() {
    }

    static SSLContext context(TrustStore store, CredentialStore credentials, SecretMask mask)
            throws UnreadableTrustStoreException, CredentialUnavailableException {
        char[] password = store.password().isPresent() ? chars(credentials.resolve(store.password().get()).reveal(), store) : null;
        String what = "trust store " + store.file() + " (" + store.type() + ")";
        try {
            KeyStore loaded = KeyStore.getInstance(store.type().name());
            try (InputStream in = Files.newInputStream(store.file())) {
                loaded.load(in, password);
            }
            KeyStore anchors = KeyStore.getInstance("PKCS12");
            anchors.load(null, null);
            for (String alias : Collections.list(loaded.aliases())) {
                if (loaded.isCertificateEntry(alias)) {
                    Certificate c = loaded.getCertificate(alias);
                    anchors.setCertificateEntry(alias, c);
                }
            }
            if (anchors.size() == 0) {
                throw new UnreadableTrustStoreException(what + (loaded.size() == 0 && password == null
                        && store.type() == TrustStore.Type.PKCS12
                        ? " shows no certificate without a password (a PKCS12 store made by keytool encrypts its"
                        + " certificates: name the credential that opens it in \"password\")"
                        : " holds no trusted-certificate entry (key entries are not trusted)"));
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(anchors);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            String message = e.getMessage();
            throw new UnreadableTrustStoreException("cannot read " + what + ": " + e.getClass().getSimpleName()
                    + (message == null ? "" : ": " + mask.mask(message)));
        } finally {
            if (password != null) {
                Arrays.fill(password, '\0');
            }
        }
    }

    private static char[] chars(byte[] secret, TrustStore store) throws CredentialUnavailableException {
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
        } catch (CharacterCodingException e) {
            throw new CredentialUnavailableException("credential " + store.password().orElseThrow()
                    + " is not UTF-8 text, so it cannot open a trust store");
        } finally {
            Arrays.fill(secret, (byte) 0);
        }
    }
}
