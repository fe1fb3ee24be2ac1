package dev.postern.executor.ssh;

import dev.postern.policy.model.SshAuth;
import dev.postern.policy.model.SshHost;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything a pooled session was opened and trusted under: the host's name, where it is, who logged
 * in with which credential (and a salted digest of the credential's current value, so a rotated key or
 * password opens a new session), and the host-key rule. Two calls share a session only when their keys
 * are equal, so a changed policy never reuses a session made under other rules. Limits (timeout,
 * output cap) are not part of it: they bind each call, not the session. Immutable.
 */
record SessionKey(String host, String address, int port, String user, SshAuth auth,
                  Optional<Path> knownHosts, Optional<String> hostKeyFingerprint, String identityDigest) {

    SessionKey {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(auth, "auth");
        Objects.requireNonNull(knownHosts, "knownHosts");
        Objects.requireNonNull(hostKeyFingerprint, "hostKeyFingerprint");
        Objects.requireNonNull(identityDigest, "identityDigest");
    }

    /** The key of {@code host} as {@code identity} logs in; {@code salt} keeps the digest of a password from being guessable offline. */
    static SessionKey of(SshHost host, SshIdentity identity, byte[] salt) {
        return new SessionKey(host.name(), host.address(), host.port(), host.user(), host.auth(),
                host.knownHosts(), host.hostKeyFingerprint(), digest(salt, identity.material()));
    }

    private static String digest(byte[] salt, byte[] material) {
        try {
            MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
            sha256.update(salt);
            return HexFormat.of().formatHex(sha256.digest(material));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
