package dev.postern.executor.ssh;

import dev.postern.fixtures.InMemoryCredentials;
import static dev.postern.executor.ssh.SshOutcomes.assertFailure;
import static dev.postern.executor.ssh.SshOutcomes.eventually;
import static dev.postern.executor.ssh.SshOutcomes.exited;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.fixtures.FakeSshServer;
import dev.postern.fixtures.FakeSshServer.Reply;
import dev.postern.policy.AuthorizedSshCommand;
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
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.sshd.common.config.keys.PublicKeyEntry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SshActionExecutorTest {

    @TempDir
    Path dir;

    private FakeSshServer server;
    private InMemoryCredentials credentials;
    private SshActionExecutor executor;
    private Permits permits;

    @BeforeEach
    void start() {
        server = FakeSshServer.start();
        server.respond(Wrapped::echo);
        credentials = new InMemoryCredentials().put("k", server.generateClientKey(dir).privateKeyText());
        executor = new SshActionExecutor(credentials);
        permits = new Permits(server.port()).knownHosts(server.writeKnownHosts(dir.resolve("known_hosts")));
    }

    @AfterEach
    void stop() {
        executor.close();
        server.close();
    }

    @Test
    void hostileArgumentArrivesOnceAsOneQuotedElement() throws InterruptedException {
        AuthorizedSshCommand permit = permits.echo("a b; rm -rf / 'x'");

        SshExitOutcome exit = exited(executor.execute(permit, new Cancellation()));

        String expected = "'echo' 'a b; rm -rf / '\\''x'\\'''";
        assertEquals(expected, permit.commandLine());
        assertEquals(List.of(expected), Wrapped.operatorLines(server.commands()));
        assertEquals(expected, Wrapped.operatorLine(server.takeCommand(Duration.ZERO)));
        assertEquals(expected, text(exit.stdout()));
        assertEquals(0, exit.exitStatus().getAsInt());
        assertEquals(Optional.empty(), exit.exitSignal());
        assertEquals(server.hostKeyFingerprint(), exit.hostKeyFingerprint());
    }

    @Test
    void pinnedFingerprintAloneVerifiesTheHost() {
        AuthorizedSshCommand permit = new Permits(server.port()).fingerprint(server.hostKeyFingerprint()).uptime();

        SshExitOutcome exit = exited(executor.execute(permit, new Cancellation()));

        assertEquals(server.hostKeyFingerprint(), exit.hostKeyFingerprint());
        assertEquals(List.of("'uptime'"), Wrapped.operatorLines(server.commands()));
    }

    @Test
    void wrongPinnedFingerprintIsRejectedBeforeAuthentication() {
        String otherFingerprint;
        try (FakeSshServer other = FakeSshServer.start()) {
            otherFingerprint = other.hostKeyFingerprint();
        }
        AuthorizedSshCommand permit = new Permits(server.port()).fingerprint(otherFingerprint).uptime();

        assertFailure(FailureCode.HOST_KEY_REJECTED, executor.execute(permit, new Cancellation()));
        assertEquals(0, server.authCount());
        assertEquals(0, server.commandCount());
    }

    @Test
    void changedKeyInKnownHostsIsRejectedBeforeAuthentication() throws IOException {
        Path knownHosts = dir.resolve("known_hosts_changed");
        try (FakeSshServer other = FakeSshServer.start()) {
            // The right host and port, another key: what a man in the middle looks like.
            Files.writeString(knownHosts, "[127.0.0.1]:" + server.port() + ' ' + PublicKeyEntry.toString(other.hostKey()) + '\n');
        }
        String before = Files.readString(knownHosts);
        AuthorizedSshCommand permit = new Permits(server.port()).knownHosts(knownHosts).uptime();

        assertFailure(FailureCode.HOST_KEY_REJECTED, executor.execute(permit, new Cancellation()));
        assertEquals(0, server.authCount());
        assertEquals(0, server.commandCount());
        assertEquals(before, Files.readString(knownHosts), "the known_hosts file is never rewritten");
    }

    @Test
    void hostMissingFromKnownHostsIsRejectedBeforeAuthentication() throws IOException {
        Path knownHosts;
        try (FakeSshServer other = FakeSshServer.start()) {
            knownHosts = other.writeKnownHosts(dir.resolve("known_hosts_other"));
        }
        String before = Files.readString(knownHosts);
        AuthorizedSshCommand permit = new Permits(server.port()).knownHosts(knownHosts).uptime();

        assertFailure(FailureCode.HOST_KEY_REJECTED, executor.execute(permit, new Cancellation()));
        assertEquals(0, server.authCount());
        assertEquals(0, server.commandCount());
        assertEquals(before, Files.readString(knownHosts), "an unknown host is never added");
    }

    @Test
    void missingKnownHostsFileTrustsNothing() {
        AuthorizedSshCommand permit = new Permits(server.port()).knownHosts(dir.resolve("no_such_known_hosts")).uptime();

        assertFailure(FailureCode.HOST_KEY_REJECTED, executor.execute(permit, new Cancellation()));
        assertEquals(0, server.authCount());
        assertFalse(Files.exists(dir.resolve("no_such_known_hosts")), "the file is not created");
    }

    @Test
    void knownHostsAndPinBothMustMatch() {
        String otherFingerprint;
        try (FakeSshServer other = FakeSshServer.start()) {
            otherFingerprint = other.hostKeyFingerprint();
        }
        AuthorizedSshCommand permit = permits.fingerprint(otherFingerprint).uptime();

        assertFailure(FailureCode.HOST_KEY_REJECTED, executor.execute(permit, new Cancellation()));
        assertEquals(0, server.authCount());
    }

    @Test
    void encryptedKeyIsUnlockedWithItsPassphraseCredential() {
        credentials.put("enc", server.generateEncryptedClientKey(dir, "correct horse").privateKeyText())
                .put("pass", "correct horse");
        AuthorizedSshCommand permit = permits
                .auth(new SshAuth.Key(new CredentialRef("enc"), Optional.of(new CredentialRef("pass")))).uptime();

        exited(executor.execute(permit, new Cancellation()));
        assertEquals(1, server.authCount());
        assertEquals(1, server.commandCount());
    }

    @Test
    void wrongPassphraseFailsBeforeConnecting() {
        credentials.put("enc", server.generateEncryptedClientKey(dir, "correct horse").privateKeyText())
                .put("pass", "battery staple");
        AuthorizedSshCommand permit = permits
                .auth(new SshAuth.Key(new CredentialRef("enc"), Optional.of(new CredentialRef("pass")))).uptime();

        ExecutionFailure failure = assertFailure(FailureCode.CREDENTIAL_UNAVAILABLE, executor.execute(permit, new Cancellation()));
        assertFalse(failure.message().contains("battery"), failure.message());
        assertEquals(0, server.authCount());
        assertEquals(0, server.commandCount());
    }

    @Test
    void missingCredentialIsReportedByName() {
        AuthorizedSshCommand permit = permits.auth(new SshAuth.Key(new CredentialRef("absent"), Optional.empty())).uptime();

        ExecutionFailure failure = assertFailure(FailureCode.CREDENTIAL_UNAVAILABLE, executor.execute(permit, new Cancellation()));
        assertTrue(failure.message().contains("absent"), failure.message());
        assertEquals(0, server.commandCount());
    }

    @Test
    void passwordAuthenticationWorks() {
        server.allowPassword("deploy", "s3cret pass");
        credentials.put("pw", "s3cret pass");
        AuthorizedSshCommand permit = permits.auth(new SshAuth.Password(new CredentialRef("pw"))).uptime();

        exited(executor.execute(permit, new Cancellation()));
        assertEquals(1, server.authCount());
        assertEquals(List.of("'uptime'"), Wrapped.operatorLines(server.commands()));
    }

    @Test
    void wrongPasswordIsAuthFailedAndRunsNothing() {
        server.allowPassword("deploy", "s3cret pass");
        credentials.put("pw", "guess");
        AuthorizedSshCommand permit = permits.auth(new SshAuth.Password(new CredentialRef("pw"))).uptime();

        ExecutionFailure failure = assertFailure(FailureCode.AUTH_FAILED, executor.execute(permit, new Cancellation()));
        assertFalse(failure.message().contains("guess"), failure.message());
        assertEquals(0, server.authCount());
        assertEquals(0, server.commandCount());
    }

    @Test
    void keyTheServerDoesNotKnowIsAuthFailed() {
        try (FakeSshServer other = FakeSshServer.start()) {
            credentials.put("stranger", other.generateClientKey(dir).privateKeyText());
        }
        AuthorizedSshCommand permit = permits.auth(new SshAuth.Key(new CredentialRef("stranger"), Optional.empty())).uptime();

        assertFailure(FailureCode.AUTH_FAILED, executor.execute(permit, new Cancellation()));
        assertEquals(0, server.commandCount());
    }

    @Test
    void closedPortIsConnectFailed() {
        int port;
        try (FakeSshServer gone = FakeSshServer.start()) {
            port = gone.port();
        }
        AuthorizedSshCommand permit = new Permits(port).fingerprint(server.hostKeyFingerprint()).uptime();

        assertFailure(FailureCode.CONNECT_FAILED, executor.execute(permit, new Cancellation()));
    }

    @Test
    void nonZeroExitStatusAndStderrAreReported() {
        server.respond(command -> Reply.exit("out", "boom", 3));

        SshExitOutcome exit = exited(executor.execute(permits.uptime(), new Cancellation()));

        assertEquals(3, exit.exitStatus().getAsInt());
        assertEquals(Optional.empty(), exit.exitSignal());
        assertEquals("out", text(exit.stdout()));
        assertEquals("boom", text(exit.stderr()));
        assertFalse(exit.stdoutTruncated());
        assertFalse(exit.stderrTruncated());
    }

    @Test
    void exitSignalIsReportedWithoutStatus() {
        server.respond(command -> Reply.signal("partial", "", "KILL"));

        SshExitOutcome exit = exited(executor.execute(permits.uptime(), new Cancellation()));

        assertEquals(Optional.of("KILL"), exit.exitSignal());
        assertTrue(exit.exitStatus().isEmpty());
        assertEquals("partial", text(exit.stdout()));
    }

    @Test
    void stdoutPastTheCapIsCutAndFlaggedWhileStderrIsKept() {
        byte[] big = filled(200_000, (byte) 'o');
        server.respond(command -> Reply.exit(big, "tail".getBytes(StandardCharsets.UTF_8), 0));

        SshExitOutcome exit = exited(executor.execute(permits.maxOutputBytes(100).uptime(), new Cancellation()));

        assertArrayEquals(filled(100, (byte) 'o'), exit.stdout());
        assertTrue(exit.stdoutTruncated());
        assertEquals("tail", text(exit.stderr()));
        assertFalse(exit.stderrTruncated());
        assertEquals(0, exit.exitStatus().getAsInt(), "the rest of stdout was drained, so the command ran to its end");
    }

    @Test
    void stderrPastTheCapIsCutAndFlaggedWhileStdoutIsKept() {
        server.respond(command -> Reply.exit(new byte[0], filled(5_000, (byte) 'e'), 0));

        SshExitOutcome exit = exited(executor.execute(permits.maxOutputBytes(10).uptime(), new Cancellation()));

        assertArrayEquals(filled(10, (byte) 'e'), exit.stderr());
        assertTrue(exit.stderrTruncated());
        assertEquals(0, exit.stdout().length);
        assertFalse(exit.stdoutTruncated());
    }

    @Test
    void outputExactlyAtTheCapIsNotTruncated() {
        server.respond(command -> Reply.exit("0123456789", "", 0));

        SshExitOutcome exit = exited(executor.execute(permits.maxOutputBytes(10).uptime(), new Cancellation()));

        assertEquals("0123456789", text(exit.stdout()));
        assertFalse(exit.stdoutTruncated());
    }

    @Test
    void commandOutlivingTheTimeoutIsSignalledAndReportedAsTimeout() {
        server.respond(command -> Reply.exit("late", "", 0).after(Duration.ofMinutes(1)));

        ExecutionFailure failure = assertFailure(FailureCode.TIMEOUT,
                executor.execute(permits.timeout(Duration.ofSeconds(1)).uptime(), new Cancellation()));

        assertEquals(1, server.commandCount());
        assertEquals(List.of("TERM"), server.receivedSignals(),
                "the server had the TERM request before the answer came: the answer waits for the signal's reply");
        assertTrue(failure.message().contains("the server accepted the request to signal it TERM"), failure.message());
        assertTrue(failure.message().contains("tells the stop-wrapper on the host to send TERM"), failure.message());
        eventually(() -> server.openCommandCount() == 0, "the remote command's channel was closed");
    }

    @Test
    void timeoutAnswersWithoutWaitingForTheServerToConfirmTheClose() {
        // Like OpenSSH: the server confirms a channel close only once the command ended, here never.
        server.holdCloseWhileCommandRuns(Duration.ofMinutes(1));
        server.respond(command -> Reply.exit("late", "", 0).after(Duration.ofMinutes(1)));
        Duration timeout = Duration.ofSeconds(1);
        long start = System.nanoTime();

        assertFailure(FailureCode.TIMEOUT, executor.execute(permits.timeout(timeout).uptime(), new Cancellation()));

        // A call that waited for a graceful close would answer no sooner than 2 s (the close grace) after its deadline.
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertTrue(took.compareTo(timeout.plusSeconds(2)) < 0, "answered " + took.toMillis() + " ms after the call");
        eventually(() -> server.openSessionCount() == 0, "the timed-out session was dropped, not pooled");
    }

    @Test
    void commandThatPrintsThenStallsTimesOutWithWhatItPrinted() {
        server.respond(command -> Reply.exit("started\n", "warming up", 0).thenStall(Duration.ofMinutes(1)));

        ExecutionFailure failure = assertFailure(FailureCode.TIMEOUT,
                executor.execute(permits.timeout(Duration.ofSeconds(1)).uptime(), new Cancellation()));

        SshExitOutcome partial = assertInstanceOf(SshExitOutcome.class, failure.partial().orElseThrow(),
                "the timeout carries what was read so far");
        assertEquals("started\n", text(partial.stdout()));
        assertEquals("warming up", text(partial.stderr()));
        assertFalse(partial.stdoutTruncated());
        assertTrue(partial.exitStatus().isEmpty(), "the command never exited");
        assertTrue(partial.exitSignal().isEmpty());
        assertEquals(server.hostKeyFingerprint(), partial.hostKeyFingerprint());
        eventually(() -> server.receivedSignals().contains("TERM"), "the remote command was signalled TERM");
    }

    @Test
    void partialOutputOfATimeoutIsMaskedAndCapped() {
        credentials.put("api-token", "tok-9f8e7d6c");
        server.respond(command -> Reply.exit("token=tok-9f8e7d6c and more", "", 0).thenStall(Duration.ofMinutes(1)));

        ExecutionFailure failure = assertFailure(FailureCode.TIMEOUT,
                executor.execute(permits.timeout(Duration.ofSeconds(1)).maxOutputBytes(16).uptime(), new Cancellation()));

        SshExitOutcome partial = assertInstanceOf(SshExitOutcome.class, failure.partial().orElseThrow());
        assertEquals("token=****", text(partial.stdout()), "cut at 16 bytes, inside the secret, and masked whole");
        assertTrue(partial.stdoutTruncated());
    }

    @Test
    void timeoutBeforeAnyOutputStillSaysNothingWasRead() {
        server.respond(command -> Reply.exit("late", "", 0).after(Duration.ofMinutes(1)));

        ExecutionFailure failure = assertFailure(FailureCode.TIMEOUT,
                executor.execute(permits.timeout(Duration.ofSeconds(1)).uptime(), new Cancellation()));

        SshExitOutcome partial = assertInstanceOf(SshExitOutcome.class, failure.partial().orElseThrow());
        assertEquals(0, partial.stdout().length);
        assertEquals(0, partial.stderr().length);
    }

    @Test
    void cancellationClosesTheRunningCommand() throws Exception {
        server.respond(command -> Reply.exit("late", "", 0).after(Duration.ofMinutes(1)));
        Cancellation cancellation = new Cancellation();
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try {
            Future<Outcome> outcome = caller.submit(() -> executor.execute(permits.uptime(), cancellation));
            assertNotNull(server.takeCommand(Duration.ofSeconds(10)), "the command started");

            cancellation.cancel();

            ExecutionFailure failure = assertFailure(FailureCode.CANCELLED, outcome.get(10, TimeUnit.SECONDS));
            assertEquals(List.of("TERM"), server.receivedSignals(), "the signal was answered before the call was");
            assertTrue(failure.message().contains("the server accepted the request to signal it TERM"), failure.message());
            eventually(() -> server.openCommandCount() == 0, "the remote command's channel was closed");
        } finally {
            caller.shutdownNow();
        }
    }

    @Test
    void callCancelledBeforehandContactsNobody() {
        Cancellation cancellation = new Cancellation();
        cancellation.cancel();

        assertFailure(FailureCode.CANCELLED, executor.execute(permits.uptime(), cancellation));
        assertEquals(0, server.authCount());
        assertEquals(0, server.commandCount());
    }

    @Test
    void closedExecutorRefusesWork() {
        executor.close();

        assertFailure(FailureCode.EXECUTOR_FAILED, executor.execute(permits.uptime(), new Cancellation()));
        assertEquals(0, server.commandCount());
    }

    @Test
    void concurrentCallsEachRunTheirOwnCommandOnce() throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(4);
        try {
            List<Future<Outcome>> outcomes = new java.util.ArrayList<>();
            for (int i = 0; i < 8; i++) {
                AuthorizedSshCommand permit = permits.echo("call " + i);
                outcomes.add(callers.submit(() -> executor.execute(permit, new Cancellation())));
            }
            for (int i = 0; i < 8; i++) {
                assertEquals("'echo' 'call " + i + "'", text(exited(outcomes.get(i).get(30, TimeUnit.SECONDS)).stdout()));
            }
            assertEquals(8, server.commandCount());
            assertEquals(8, Wrapped.operatorLines(server.commands()).stream().distinct().count());
        } finally {
            callers.shutdownNow();
        }
    }




    private static byte[] filled(int length, byte value) {
        byte[] bytes = new byte[length];
        Arrays.fill(bytes, value);
        return bytes;
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
