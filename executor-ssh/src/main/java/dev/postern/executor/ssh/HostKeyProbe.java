package dev.postern.executor.ssh;

import dev.postern.executor.ssh.SshActionExecutor.OfferedKey;
import dev.postern.policy.model.HostSyntax;
import java.io.IOException;
import java.net.SocketAddress;
import java.security.PublicKey;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.future.ConnectFuture;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.config.keys.PublicKeyEntry;
import org.apache.sshd.common.future.CancelOption;

/**
 * Reads the host key an SSH server offers, and trusts nothing: the key exchange's server-key check
 * records the key and answers "no", so the connection ends before authentication and no command,
 * credential or file is involved. Behind {@link SshActionExecutor#probeHostKey} (the module's one
 * public class) for {@code postern trust-host}, which prints what an operator may pin after checking
 * it out of band. Stateless; each probe uses its own short-lived {@link HardenedClient}.
 */
final class HostKeyProbe {
    /** The user name sent in the protocol's first messages; no authentication is ever attempted with it. */
    private static final String PROBE_USER = "postern-trust-host";

    private HostKeyProbe() {
    }

    /**
     * Connects to {@code address:port}, reads the offered host key and disconnects, all within
     * {@code timeout}. Throws when no key was offered in time or the connection failed.
     */
    static OfferedKey probe(String address, int port, Duration timeout) throws IOException {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(timeout, "timeout");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be 1..65535, got " + port);
        }
        CompletableFuture<PublicKey> offered = new CompletableFuture<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        SshClient client = HardenedClient.start((ClientSession session, SocketAddress remote, PublicKey key) -> {
            offered.complete(key);
            return false;
        });
        try {
            ConnectFuture connect = client.connect(PROBE_USER, address, port);
            if (!connect.await(timeout, CancelOption.CANCEL_ON_TIMEOUT)) {
                throw new IOException("timed out connecting to " + where(address, port));
            }
            if (!connect.isConnected()) {
                Throwable cause = connect.getException();
                throw new IOException("cannot connect to " + where(address, port) + (cause == null ? "" : ": " + cause.getMessage()), cause);
            }
            try (ClientSession session = connect.getSession()) {
                PublicKey key = await(offered, session, deadline, address, port);
                return describe(key, address, port);
            }
        } finally {
            client.stop();
        }
    }

    private static PublicKey await(CompletableFuture<PublicKey> offered, ClientSession session, long deadline, String address, int port)
            throws IOException {
        // The key exchange starts on its own once connected; the verifier completes the future mid-exchange.
        session.addCloseFutureListener(f -> offered.completeExceptionally(
                new IOException(where(address, port) + " closed the connection before offering a host key")));
        try {
            return offered.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new IOException("timed out waiting for the host key of " + where(address, port), e);
        } catch (ExecutionException e) {
            throw new IOException(e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while waiting for the host key of " + where(address, port));
        }
    }

    static OfferedKey describe(PublicKey key, String address, int port) {
        // OpenSSH's known_hosts form: the bare address on port 22, else [address]:port.
        String pattern = port == 22 ? address : '[' + address + "]:" + port;
        return new OfferedKey(KeyUtils.getKeyType(key), HostKeyCheck.fingerprint(key), pattern + ' ' + PublicKeyEntry.toString(key));
    }

    private static String where(String address, int port) {
        return HostSyntax.inAuthority(address) + ':' + port;
    }
}
