package dev.postern.executor.ssh;

import dev.postern.fixtures.InMemoryCredentials;
import static dev.postern.executor.ssh.SshOutcomes.assertFailure;
import static dev.postern.executor.ssh.SshOutcomes.eventually;
import static dev.postern.executor.ssh.SshOutcomes.exited;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.fixtures.FakeSshServer;
import dev.postern.fixtures.FakeSshServer.Reply;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.SshAuth;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.outcome.SshExitOutcome;
import dev.postern.policy.port.Cancellation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Sessions are reused per host and trust rule, bounded, closed when idle, and never reused after a failed call. */
class SessionReuseTest {
    private static final Duration IDLE = Duration.ofMillis(200);

    @TempDir
    Path dir;

    private FakeSshServer server;
    private InMemoryCredentials credentials;
    private Permits permits;
    private final List<SshActionExecutor> executors = new ArrayList<>();
    private final ExecutorService callers = Executors.newCachedThreadPool();

    @BeforeEach
    void start() {
        server = FakeSshServer.start();
        server.respond(Wrapped::echo);
        credentials = new InMemoryCredentials().put("k", server.generateClientKey(dir).privateKeyText());
        permits = new Permits(server.port()).knownHosts(server.writeKnownHosts(dir.resolve("known_hosts")));
    }

    @AfterEach
    void stop() {
        callers.shutdownNow();
        executors.forEach(SshActionExecutor::close);
        server.close();
    }

    @Test
    void sequentialCallsAuthenticateOnceAndRunTwoCommands() {
        SshActionExecutor executor = executor(2, 8, Duration.ofMinutes(1));

        SshExitOutcome first = exited(executor.execute(permits.echo("one"), new Cancellation()));
        SshExitOutcome second = exited(executor.execute(permits.echo("two"), new Cancellation()));

        assertEquals(1, server.authCount());
        assertEquals(List.of("'echo' 'one'", "'echo' 'two'"), Wrapped.operatorLines(server.commands()));
        assertEquals("'echo' 'two'", text(second.stdout()));
        assertEquals(server.hostKeyFingerprint(), first.hostKeyFingerprint());
        assertEquals(server.hostKeyFingerprint(), second.hostKeyFingerprint(), "a reused session reports the key verified at its connect");
        assertEquals(1, server.openSessionCount());
    }

    @Test
    void timedOutCallsSessionIsNotReused() {
        SshActionExecutor executor = executor(2, 8, Duration.ofMinutes(1));
        server.respond(command -> Wrapped.operatorLine(command).startsWith("'uptime'")
                ? Reply.exit("", "", 0).after(Duration.ofMinutes(1)) : Reply.exit(Wrapped.operatorLine(command), "", 0));
        exited(executor.execute(permits.echo("warm"), new Cancellation()));

        assertFailure(FailureCode.TIMEOUT, executor.execute(permits.timeout(Duration.ofSeconds(1)).uptime(), new Cancellation()));
        assertEquals(1, server.authCount(), "the timed-out call ran on the pooled session");

        exited(executor.execute(permits.timeout(Duration.ofSeconds(10)).echo("after"), new Cancellation()));
        assertEquals(2, server.authCount(), "the call after the timeout authenticated a new session");
        assertEquals(3, server.commandCount());
    }

    @Test
    void cancelledCallsSessionIsNotReused() throws Exception {
        SshActionExecutor executor = executor(2, 8, Duration.ofMinutes(1));
        server.respond(command -> Wrapped.operatorLine(command).startsWith("'uptime'")
                ? Reply.exit("", "", 0).after(Duration.ofMinutes(1)) : Reply.exit(Wrapped.operatorLine(command), "", 0));
        exited(executor.execute(permits.echo("warm"), new Cancellation()));
        assertEquals("'echo' 'warm'", Wrapped.operatorLine(server.takeCommand(Duration.ZERO)));
        Cancellation cancellation = new Cancellation();

        Future<Outcome> stalled = callers.submit(() -> executor.execute(permits.uptime(), cancellation));
        assertNotNull(server.takeCommand(Duration.ofSeconds(10)), "the stalling command started");
        cancellation.cancel();
        assertFailure(FailureCode.CANCELLED, stalled.get(10, TimeUnit.SECONDS));

        exited(executor.execute(permits.echo("after"), new Cancellation()));
        assertEquals(2, server.authCount(), "the call after the cancellation authenticated a new session");
    }

    @Test
    void idleSessionIsClosedAfterTheIdleTimeout() {
        SshActionExecutor executor = executor(2, 8, IDLE);

        exited(executor.execute(permits.echo("one"), new Cancellation()));
        eventually(() -> server.openSessionCount() == 0, "the server saw the idle session close");

        exited(executor.execute(permits.echo("two"), new Cancellation()));
        assertEquals(2, server.authCount(), "the second call could not reuse the closed session");
    }

    @Test
    void otherUserForTheSameHostNameGetsANewSession() {
        SshActionExecutor executor = executor(2, 8, Duration.ofMinutes(1));

        exited(executor.execute(permits.echo("deploy"), new Cancellation()));
        exited(executor.execute(permits.user("admin").echo("admin"), new Cancellation()));

        assertEquals(2, server.authCount());
        assertEquals(2, server.openSessionCount());
    }

    @Test
    void otherPortForTheSameHostNameGetsANewSession() throws IOException {
        server.allowPassword("deploy", "pw");
        credentials.put("pw", "pw");
        try (FakeSshServer second = FakeSshServer.start()) {
            second.allowPassword("deploy", "pw");
            // One known_hosts file lists both, so only the port differs between the two permits.
            Path both = dir.resolve("known_hosts_both");
            Files.writeString(both, server.knownHostsLine() + '\n' + second.knownHostsLine() + '\n');
            SshAuth password = new SshAuth.Password(new CredentialRef("pw"));
            SshActionExecutor executor = executor(2, 8, Duration.ofMinutes(1));

            exited(executor.execute(new Permits(server.port()).knownHosts(both).auth(password).echo("first"), new Cancellation()));
            exited(executor.execute(new Permits(second.port()).knownHosts(both).auth(password).echo("second"), new Cancellation()));

            assertEquals(List.of("'echo' 'first'"), Wrapped.operatorLines(server.commands()));
            assertEquals(List.of("'echo' 'second'"), Wrapped.operatorLines(second.commands()));
            assertEquals(1, second.authCount());
        }
    }

    @Test
    void pinnedFingerprintAddedToThePolicyGetsANewSession() {
        SshActionExecutor executor = executor(2, 8, Duration.ofMinutes(1));

        exited(executor.execute(permits.echo("known_hosts only"), new Cancellation()));
        exited(executor.execute(permits.fingerprint(server.hostKeyFingerprint()).echo("and pinned"), new Cancellation()));

        assertEquals(2, server.authCount());
    }

    @Test
    void idleSessionNeverBypassesAChangedHostKeyRule() {
        String otherFingerprint;
        try (FakeSshServer other = FakeSshServer.start()) {
            otherFingerprint = other.hostKeyFingerprint();
        }
        SshActionExecutor executor = executor(2, 8, Duration.ofMinutes(1));
        exited(executor.execute(permits.echo("trusted"), new Cancellation()));

        assertFailure(FailureCode.HOST_KEY_REJECTED, executor.execute(permits.fingerprint(otherFingerprint).echo("pinned elsewhere"),
                new Cancellation()));

        assertEquals(List.of("'echo' 'trusted'"), Wrapped.operatorLines(server.commands()));
        assertEquals(1, server.authCount());
    }

    @Test
    void rotatedCredentialValueGetsANewSession() {
        SshActionExecutor executor = executor(2, 8, Duration.ofMinutes(1));
        exited(executor.execute(permits.echo("old key"), new Cancellation()));

        credentials.put("k", server.generateClientKey(dir).privateKeyText());
        exited(executor.execute(permits.echo("new key"), new Cancellation()));

        assertEquals(2, server.authCount());
    }

    @Test
    void idleSessionsBeyondTheBoundAreClosed() throws Exception {
        SshActionExecutor executor = executor(1, 8, Duration.ofMinutes(1));
        CountDownLatch bothRunning = new CountDownLatch(2);
        server.respond(command -> {
            bothRunning.countDown();
            try {
                bothRunning.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Reply.exit(Wrapped.operatorLine(command), "", 0);
        });

        Future<Outcome> a = callers.submit(() -> executor.execute(permits.echo("a"), new Cancellation()));
        Future<Outcome> b = callers.submit(() -> executor.execute(permits.echo("b"), new Cancellation()));
        exited(a.get(20, TimeUnit.SECONDS));
        exited(b.get(20, TimeUnit.SECONDS));

        assertEquals(2, server.authCount(), "two calls at once ran on two sessions");
        eventually(() -> server.openSessionCount() == 1, "one session stayed idle and the other was closed");
    }

    @Test
    void callBeyondTheSessionBoundWaitsAndTimesOutWithoutContactingTheHost() throws Exception {
        SshActionExecutor executor = executor(2, 1, Duration.ofMinutes(1));
        CountDownLatch release = new CountDownLatch(1);
        server.respond(command -> {
            try {
                release.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Reply.exit(Wrapped.operatorLine(command), "", 0);
        });
        Future<Outcome> holder = callers.submit(() -> executor.execute(permits.echo("holder"), new Cancellation()));
        assertNotNull(server.takeCommand(Duration.ofSeconds(10)), "the first call holds the only session");

        ExecutionFailure waited = assertFailure(FailureCode.TIMEOUT,
                executor.execute(permits.timeout(Duration.ofSeconds(1)).echo("waiter"), new Cancellation()));

        assertTrue(waited.message().contains("free up"), waited.message());
        assertEquals(1, server.authCount());
        assertEquals(List.of("'echo' 'holder'"), Wrapped.operatorLines(server.commands()));
        release.countDown();
        exited(holder.get(20, TimeUnit.SECONDS));
    }

    private SshActionExecutor executor(int maxIdle, int maxSessions, Duration idleTimeout) {
        SshActionExecutor executor = new SshActionExecutor(credentials, maxIdle, maxSessions, idleTimeout);
        executors.add(executor);
        return executor;
    }




    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
