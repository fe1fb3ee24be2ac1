package dev.postern.executor.ssh;

import dev.postern.policy.AuthorizedSshCommand;
import dev.postern.policy.model.SshHost;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.outcome.SshExitOutcome;
import dev.postern.policy.port.ActionExecutor;
import dev.postern.policy.port.Cancellation;
import dev.postern.policy.port.CredentialStore;
import dev.postern.policy.port.CredentialUnavailableException;
import dev.postern.policy.port.SecretMask;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.channel.ClientChannelEvent;
import org.apache.sshd.client.future.AuthFuture;
import org.apache.sshd.client.future.ConnectFuture;
import org.apache.sshd.client.future.OpenFuture;
import org.apache.sshd.client.keyverifier.ServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.AttributeRepository;
import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.future.CancelOption;

/**
 * Runs a permitted SSH command on Apache MINA SSHD's client: exec channel only (no PTY, no
 * environment, no agent, X11 or port forwarding), the host key checked against the host's known_hosts
 * file and/or pinned fingerprint before authentication, key or password auth from the credential
 * store, one deadline of {@code host.timeout()} across waiting for a session, connect, auth and exec,
 * and each output stream capped at {@code host.maxOutputBytes()}.
 *
 * <p>Authenticated sessions are reused: per host and everything that decides trust and identity
 * ({@link SessionKey}), at most {@code maxSessionsPerHost} at once (a call beyond that waits, within
 * its deadline, for one to free up) and {@code maxIdlePerHost} idle ones, each closed after
 * {@code idleTimeout} idle. A session whose call failed, timed out or was cancelled is closed, never
 * reused. Thread-safe; one shared client serves concurrent calls. Never throws from {@link #execute}:
 * every failure is an {@link ExecutionFailure} with a stable code.
 */
public final class SshActionExecutor implements ActionExecutor<AuthorizedSshCommand> {

    /** Sessions per host at once by default: the gateway's default {@code maxInFlight}, so calls rarely wait. */
    public static final int DEFAULT_MAX_SESSIONS_PER_HOST = 8;
    private static final int DEFAULT_MAX_IDLE_PER_HOST = 2;
    private static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);
    private static final AttributeKey<SessionTrust> TRUST = new AttributeKey<>();

    private final CredentialStore credentials;
    private final SshClient client;
    private final SessionPool pool;
    private final int maxSessionsPerHost;
    /** Salts the digests of credentials in {@link SessionKey}s; fresh per executor, never leaves it. */
    private final byte[] salt = new byte[32];
    private final ConcurrentMap<Path, ServerKeyVerifier> knownHostsFiles = new ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();

    public SshActionExecutor(CredentialStore credentials) {
        this(credentials, DEFAULT_MAX_SESSIONS_PER_HOST);
    }

    /** An executor that keeps at most {@code maxSessionsPerHost} sessions to one host at once (give it the gateway's maxInFlight). */
    public SshActionExecutor(CredentialStore credentials, int maxSessionsPerHost) {
        this(credentials, DEFAULT_MAX_IDLE_PER_HOST, maxSessionsPerHost, DEFAULT_IDLE_TIMEOUT);
    }

    SshActionExecutor(CredentialStore credentials, int maxIdlePerHost, int maxSessionsPerHost, Duration idleTimeout) {
        this.credentials = Objects.requireNonNull(credentials, "credentials");
        this.pool = new SessionPool(maxIdlePerHost, maxSessionsPerHost, idleTimeout);
        this.maxSessionsPerHost = maxSessionsPerHost;
        new SecureRandom().nextBytes(salt);
        this.client = HardenedClient.start(SshActionExecutor::verifyServerKey);
    }

    /**
     * For {@code postern trust-host}: connects to {@code address:port}, reads the host key the server
     * offers and disconnects within {@code timeout}, trusting nothing (the connection ends before
     * authentication). Throws when no key was offered in time or the connection failed.
     */
    public static OfferedKey probeHostKey(String address, int port, Duration timeout) throws IOException {
        return HostKeyProbe.probe(address, port, timeout);
    }

    /** The key a server offered: its SSH type, its OpenSSH {@code SHA256:} fingerprint, and a known_hosts line for it. */
    public record OfferedKey(String type, String fingerprint, String knownHostsLine) {
        public OfferedKey {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(fingerprint, "fingerprint");
            Objects.requireNonNull(knownHostsLine, "knownHostsLine");
        }
    }

    @Override
    public Class<AuthorizedSshCommand> permitType() {
        return AuthorizedSshCommand.class;
    }

    @Override
    public Outcome execute(AuthorizedSshCommand permit, Cancellation cancellation) {
        Objects.requireNonNull(permit, "permit");
        Objects.requireNonNull(cancellation, "cancellation");
        if (closed.get()) {
            return SshFailures.closed();
        }
        if (cancellation.isCancelled()) {
            return SshFailures.cancelledBeforeConnecting();
        }
        return SshFailures.masked(SshFailures.located(attempt(permit, cancellation), permit.host()), SecretMask.of(credentials));
    }

    private Outcome attempt(AuthorizedSshCommand permit, Cancellation cancellation) {
        try {
            return run(permit, cancellation);
        } catch (InterruptedIOException e) {
            Thread.currentThread().interrupt();
            return SshFailures.interrupted();
        } catch (IOException | RuntimeException e) {
            return SshFailures.sessionFailed(permit.host(), e);
        }
    }

    private Outcome run(AuthorizedSshCommand permit, Cancellation cancellation) throws IOException {
        SshHost host = permit.host();
        SshIdentity identity;
        try {
            identity = SshIdentity.resolve(host.auth(), credentials);
        } catch (CredentialUnavailableException e) {
            return SshFailures.credentialUnavailable(e);
        }
        Deadline deadline = new Deadline(host.timeout());
        Attempt attempt = new Attempt();
        cancellation.onCancel(attempt::cancel);

        SessionPool.Lease lease;
        try {
            lease = pool.lease(SessionKey.of(host, identity, salt), deadline.remaining(), attempt::cancelled);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return cancelled("while waiting for a free session");
        }
        if (lease == null) {
            return attempt.cancelled() ? cancelled("while waiting for a free session")
                    : SshFailures.noFreeSession(host, maxSessionsPerHost);
        }
        Outcome outcome = null;
        try {
            ClientSession pooled = lease.takeIdle();
            if (pooled != null) {
                attempt.session(pooled);
                Optional<Outcome> ran = exec(permit, pooled, attempt, deadline, true);
                if (ran.isPresent()) {
                    outcome = ran.get();
                    return outcome;
                }
                // The pooled session died while idle and nothing was sent on it: start afresh, still one effect at most.
                lease.discard();
            }
            Optional<ExecutionFailure> refused = connect(host, identity, attempt, deadline, lease);
            if (refused.isPresent()) {
                outcome = refused.get();
                return outcome;
            }
            outcome = exec(permit, lease.session(), attempt, deadline, false).orElseThrow();
            return outcome;
        } finally {
            // A session goes back only after a clean run, and only if no cancellation got to it first.
            lease.release(outcome instanceof SshExitOutcome && attempt.finish());
        }
    }

    /** Opens and authenticates a new session, held by {@code lease}; a failure, or empty when it is ready. */
    private Optional<ExecutionFailure> connect(SshHost host, SshIdentity identity, Attempt attempt, Deadline deadline,
                                               SessionPool.Lease lease) throws IOException {
        SessionTrust trust = new SessionTrust(HostKeyCheck.of(host,
                file -> knownHostsFiles.computeIfAbsent(file, HostKeyCheck::strictKnownHosts)));
        ConnectFuture connect;
        try {
            connect = client.connect(host.user(), host.address(), host.port(), AttributeRepository.ofKeyValuePair(TRUST, trust));
        } catch (IOException e) {
            return Optional.of(SshFailures.cannotConnect(host, e));
        }
        attempt.connecting(connect);
        if (!connect.await(deadline.remaining(), CancelOption.CANCEL_ON_TIMEOUT)) {
            return Optional.of(attempt.cancelled() ? cancelled("while connecting") : SshFailures.connectTimedOut(host));
        }
        if (connect.isConnected()) {
            lease.adopt(connect.getSession());
        }
        if (attempt.cancelled()) {
            return Optional.of(cancelled("while connecting"));
        }
        if (!connect.isConnected()) {
            return Optional.of(SshFailures.notConnected(host, connect.getException()));
        }
        ClientSession session = connect.getSession();
        attempt.session(session);
        identity.applyTo(session);
        AuthFuture auth = session.auth();
        boolean done = auth.await(deadline.remaining(), CancelOption.CANCEL_ON_TIMEOUT);
        // The key exchange precedes authentication, so a refused host key shows up here first.
        if (trust.rejected()) {
            return Optional.of(SshFailures.hostKeyRejected(host));
        }
        if (attempt.cancelled()) {
            return Optional.of(cancelled("while authenticating"));
        }
        if (!done) {
            return Optional.of(SshFailures.authTimedOut(host));
        }
        if (!auth.isSuccess()) {
            return Optional.of(SshFailures.authFailed(host, identity instanceof SshIdentity.KeyIdentity));
        }
        return Optional.empty();
    }

    /**
     * Runs the command on an authenticated session. Empty only for a {@code pooled} session that could
     * not open a channel: the command was never sent, so the caller may try a new session.
     */
    private Optional<Outcome> exec(AuthorizedSshCommand permit, ClientSession session, Attempt attempt, Deadline deadline,
                                   boolean pooled) throws IOException {
        SshHost host = permit.host();
        // Verified at this session's key exchange(s) under the same SessionKey, hence under this host's rule.
        String fingerprint = HostKeyCheck.fingerprint(session.getServerKey());

        BoundedSink stdout = new BoundedSink(host.maxOutputBytes());
        BoundedSink stderr = new BoundedSink(host.maxOutputBytes());
        SignallingExec channel;
        try {
            channel = SignallingExec.on(session, StopWrapper.wrap(permit.commandLine()));
        } catch (IOException e) {
            if (attempt.cancelled()) {
                return Optional.of(cancelled("while opening the channel"));
            }
            if (pooled) {
                return Optional.empty();
            }
            throw e;
        }
        // Not closed on success: it closes itself when the command ends; on failure the session is closed with it.
        channel.setUsePty(false);
        channel.setAgentForwarding(false);
        channel.setOut(stdout);
        channel.setErr(stderr);
        attempt.channel(channel);
        OpenFuture open;
        try {
            open = channel.open();
        } catch (IOException e) {
            if (attempt.cancelled()) {
                return Optional.of(cancelled("while opening the channel", attempt));
            }
            if (pooled) {
                return Optional.empty();
            }
            throw e;
        }
        attempt.opening(open);
        boolean opened = open.await(deadline.remaining(), CancelOption.CANCEL_ON_TIMEOUT);
        if (attempt.cancelled()) {
            return Optional.of(cancelled("while opening the channel", attempt));
        }
        if (!opened) {
            Attempt.Stopped stopped = settled(Attempt.stop(channel, open, session));
            return Optional.of(SshFailures.channelTimedOut(host, stopped));
        }
        if (!open.isOpened()) {
            if (pooled) {
                return Optional.empty();
            }
            return Optional.of(SshFailures.channelRefused(host, open.getException()));
        }
        // The channel's input stays open: its end tells the stop-wrapper to stop the command (the command itself reads /dev/null).
        Set<ClientChannelEvent> events = channel.waitFor(EnumSet.of(ClientChannelEvent.CLOSED), deadline.remaining());
        if (attempt.cancelled()) {
            return Optional.of(cancelled("while the command ran", attempt));
        }
        if (!events.contains(ClientChannelEvent.CLOSED)) {
            // What was read so far goes back with the TIMEOUT; bytes arriving while the channel closes are not added.
            SshExitOutcome readSoFar = new SshExitOutcome(host.name(), OptionalInt.empty(), Optional.empty(),
                    stdout.bytes(), stdout.truncated(), stderr.bytes(), stderr.truncated(), fingerprint);
            Attempt.Stopped stopped = settled(Attempt.stop(channel, open, session));
            return Optional.of(SshFailures.commandTimedOut(host, readSoFar, stdout.seen(), stderr.seen(), stopped));
        }
        Integer status = channel.getExitStatus();
        String signal = channel.getExitSignal();
        if (status == null && signal == null) {
            return Optional.of(SshFailures.noExitStatus(host));
        }
        return Optional.of(new SshExitOutcome(host.name(),
                status == null ? OptionalInt.empty() : OptionalInt.of(status),
                Optional.ofNullable(signal),
                stdout.bytes(), stdout.truncated(),
                stderr.bytes(), stderr.truncated(),
                fingerprint));
    }

    /** Closes idle sessions and stops the shared client; later calls fail with EXECUTOR_FAILED. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            try {
                pool.close();
                client.stop();
            } catch (RuntimeException e) {
                System.err.println("ssh executor: stopping the client failed: " + SshFailures.describe(e));
            }
        }
    }

    private static boolean verifyServerKey(ClientSession session, SocketAddress remote, PublicKey key) {
        SessionTrust trust = session.getConnectionContext() == null ? null : session.getConnectionContext().getAttribute(TRUST);
        // A session this executor did not open has no rule, and a key without a rule is refused.
        return trust != null && trust.verify(session, remote, key);
    }

    /**
     * Waits for a stop to settle, which it does within {@link Attempt#SIGNAL_REPLY_WAIT} of starting
     * (the bound here only guards against a stop that was never started).
     */
    private static Attempt.Stopped settled(CompletableFuture<Attempt.Stopped> stopping) throws InterruptedIOException {
        try {
            return stopping.get(2 * Attempt.SIGNAL_REPLY_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while stopping the remote command");
        } catch (ExecutionException | TimeoutException e) {
            return Attempt.Stopped.UNANSWERED;
        }
    }

    /** A cancellation that may have found a command to stop: says what stopping it achieved. */
    private static ExecutionFailure cancelled(String phase, Attempt attempt) throws InterruptedIOException {
        CompletableFuture<Attempt.Stopped> stopping = attempt.stopped();
        return SshFailures.cancelled(phase, stopping == null ? null : settled(stopping));
    }

    private static ExecutionFailure cancelled(String phase) {
        return SshFailures.cancelled(phase);
    }

    /** One call's time budget, shared by its phases. Not thread-safe; used by the calling thread. */
    private static final class Deadline {
        private final long endNanos;

        Deadline(Duration budget) {
            this.endNanos = System.nanoTime() + budget.toNanos();
        }

        Duration remaining() {
            return Duration.ofNanos(Math.max(1, endNanos - System.nanoTime()));
        }
    }
}
