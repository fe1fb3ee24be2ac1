package dev.postern.executor.ssh;

import dev.postern.policy.model.SshHost;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.security.PublicKey;
import java.util.Optional;
import java.util.function.Function;
import org.apache.sshd.client.keyverifier.KnownHostsServerKeyVerifier;
import org.apache.sshd.client.keyverifier.RejectAllServerKeyVerifier;
import org.apache.sshd.client.keyverifier.ServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.digest.BuiltinDigests;

/**
 * The host-key rule of one configured host: the key must be listed for the host in its
 * known_hosts file, and must match its pinned SHA256 fingerprint; where both are configured, both.
 * An unknown key is refused, a changed key is refused, the file is never written. Thread-safe.
 */
final class HostKeyCheck {
    private final Optional<ServerKeyVerifier> knownHosts;
    private final Optional<String> pinned;

    private HostKeyCheck(Optional<ServerKeyVerifier> knownHosts, Optional<String> pinned) {
        this.knownHosts = knownHosts;
        this.pinned = pinned;
    }

    static HostKeyCheck of(SshHost host, Function<Path, ServerKeyVerifier> knownHostsFiles) {
        return new HostKeyCheck(host.knownHosts().map(knownHostsFiles), host.hostKeyFingerprint().map(HostKeyCheck::unpadded));
    }

    /** A verifier over one known_hosts file that accepts listed keys only and never updates the file. */
    static ServerKeyVerifier strictKnownHosts(Path file) {
        KnownHostsServerKeyVerifier verifier = new KnownHostsServerKeyVerifier(RejectAllServerKeyVerifier.INSTANCE, file);
        verifier.setModifiedServerKeyAcceptor((session, address, entry, expected, actual) -> false);
        return verifier;
    }

    boolean accepts(ClientSession session, SocketAddress remote, PublicKey key) {
        if (pinned.isPresent() && !pinned.get().equals(fingerprint(key))) {
            return false;
        }
        return knownHosts.map(v -> v.verifyServerKey(session, remote, key)).orElse(true);
    }

    /** The OpenSSH form of a key's fingerprint: {@code SHA256:} and unpadded base64. */
    static String fingerprint(PublicKey key) {
        return unpadded(KeyUtils.getFingerPrint(BuiltinDigests.sha256, key));
    }

    private static String unpadded(String fingerprint) {
        int end = fingerprint.length();
        while (end > 0 && fingerprint.charAt(end - 1) == '=') {
            end--;
        }
        return fingerprint.substring(0, end);
    }
}
