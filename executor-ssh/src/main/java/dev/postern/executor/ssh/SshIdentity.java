package dev.postern.executor.ssh;

import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.SshAuth;
import dev.postern.policy.port.CredentialStore;
import dev.postern.policy.port.CredentialUnavailableException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.sshd.client.auth.UserAuthFactory;
import org.apache.sshd.client.auth.keyboard.UserAuthKeyboardInteractiveFactory;
import org.apache.sshd.client.auth.password.UserAuthPasswordFactory;
import org.apache.sshd.client.auth.pubkey.UserAuthPublicKeyFactory;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.NamedResource;
import org.apache.sshd.common.config.keys.FilePasswordProvider;
import org.apache.sshd.common.util.security.SecurityUtils;

/**
 * What the executor presents to one host, read from the credential store before any connection:
 * the key pairs of an OpenSSH private key (decrypted with its passphrase credential) or a password.
 * Each applies itself to one session and offers only its own method. Immutable.
 */
sealed interface SshIdentity {

    void applyTo(ClientSession session);

    /** Bytes that change when the credential does (public keys, or the password), for {@link SessionKey}; never logged or returned. */
    byte[] material();

    static SshIdentity resolve(SshAuth auth, CredentialStore credentials) throws CredentialUnavailableException {
        if (auth instanceof SshAuth.Key key) {
            return KeyIdentity.load(key, credentials);
        }
        if (auth instanceof SshAuth.Password password) {
            return new PasswordIdentity(credentials.resolve(password.password()).revealAsString());
        }
        throw new AssertionError("no identity for " + auth.getClass().getName());
    }

    record KeyIdentity(List<KeyPair> pairs) implements SshIdentity {
        public KeyIdentity {
            pairs = List.copyOf(pairs);
        }

        static KeyIdentity load(SshAuth.Key key, CredentialStore credentials) throws CredentialUnavailableException {
            CredentialRef ref = key.identity();
            byte[] text = credentials.resolve(ref).reveal();
            FilePasswordProvider passphrase = key.passphrase().isEmpty() ? FilePasswordProvider.EMPTY
                    : FilePasswordProvider.of(credentials.resolve(key.passphrase().get()).revealAsString());
            List<KeyPair> pairs = new ArrayList<>();
            try {
                Iterable<KeyPair> loaded = SecurityUtils.loadKeyPairIdentities(
                        null, NamedResource.ofName(ref.name()), new ByteArrayInputStream(text), passphrase);
                if (loaded != null) {
                    loaded.forEach(pairs::add);
                }
            } catch (IOException | GeneralSecurityException | RuntimeException e) {
                String what = "credential " + ref + " is not a readable OpenSSH private key, or its passphrase is wrong or missing";
                throw new CredentialUnavailableException(what, what + " (" + e.getClass().getSimpleName() + ")");
            } finally {
                Arrays.fill(text, (byte) 0);
            }
            if (pairs.isEmpty()) {
                throw new CredentialUnavailableException("credential " + ref + " holds no private key");
            }
            return new KeyIdentity(pairs);
        }

        @Override
        public void applyTo(ClientSession session) {
            List<UserAuthFactory> methods = List.of(UserAuthPublicKeyFactory.INSTANCE);
            session.setUserAuthFactories(methods);
            pairs.forEach(session::addPublicKeyIdentity);
        }

        @Override
        public byte[] material() {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            pairs.forEach(pair -> out.writeBytes(pair.getPublic().getEncoded()));
            return out.toByteArray();
        }

        @Override
        public String toString() {
            return "KeyIdentity[" + pairs.size() + " key(s)]";
        }
    }

    record PasswordIdentity(String password) implements SshIdentity {
        @Override
        public void applyTo(ClientSession session) {
            List<UserAuthFactory> methods = List.of(UserAuthPasswordFactory.INSTANCE, UserAuthKeyboardInteractiveFactory.INSTANCE);
            session.setUserAuthFactories(methods);
            session.addPasswordIdentity(password);
        }

        @Override
        public byte[] material() {
            return password.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return "PasswordIdentity[****]";
        }
    }
}
