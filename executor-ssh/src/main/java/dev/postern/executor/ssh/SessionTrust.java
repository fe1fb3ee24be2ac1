package dev.postern.executor.ssh;

import java.net.SocketAddress;
import java.security.PublicKey;
import org.apache.sshd.client.session.ClientSession;

/**
 * The host-key rule one session was opened under, attached to its connection so the client's verifier
 * finds it at every key exchange (the first, and any re-keying of a pooled session), and whether the
 * server's key ever failed it. Thread-safe: the verdict is set on an SSH I/O thread, read by the caller.
 */
final class SessionTrust {
    private final HostKeyCheck check;
    private volatile boolean rejected;

    SessionTrust(HostKeyCheck check) {
        this.check = check;
    }

    boolean verify(ClientSession session, SocketAddress remote, PublicKey key) {
        boolean ok = check.accepts(session, remote, key);
        if (!ok) {
            rejected = true;
        }
        return ok;
    }

    boolean rejected() {
        return rejected;
    }
}
