package dev.postern.executor.ssh;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.policy.json.JsonValue.JsonObject;
import dev.postern.policy.model.SshHost;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.outcome.SshExitOutcome;
import dev.postern.policy.outcome.UpstreamCallOutcome;
import dev.postern.policy.port.CredentialUnavailableException;
import dev.postern.policy.port.SecretMask;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Each failure the SSH executor answers with: its code, its words for the agent (the host's
 * configured name, never its address, port, user or an exception), what the journal's detail gains,
 * and the mask over everything that goes back. No server: the executor's own tests show each one
 * arises where it should.
 */
class SshFailuresTest {
    private static final int PORT = 12224;
    private static final SshHost HOST = new Permits(PORT).user("agentuser").fingerprint("SHA256:" + "A".repeat(43))
            .timeout(Duration.ofMillis(1500)).echo("x").host();
    private static final Pattern REVEALING = Pattern.compile("127\\.0\\.0\\.1|" + PORT + "|agentuser|Exception|/");

    private static ExecutionFailure fitForTheAgent(ExecutionFailure f, FailureCode code, String message) {
        assertEquals(code, f.code(), f.message());
        assertEquals(message, f.message());
        assertFalse(REVEALING.matcher(f.message()).find(), () -> "the agent would learn too much: " + f.message());
        return f;
    }

    private static SshExitOutcome exit(String stdout, boolean stdoutCut, String stderr, boolean stderrCut) {
        return new SshExitOutcome(Permits.HOST, OptionalInt.of(3), Optional.of("TERM"),
                stdout.getBytes(StandardCharsets.UTF_8), stdoutCut, stderr.getBytes(StandardCharsets.UTF_8), stderrCut, "SHA256:abc");
    }

    @Test
    void failuresBeforeAnyConnectionSayWhatHappenedInWords() {
        fitForTheAgent(SshFailures.closed(), FailureCode.EXECUTOR_FAILED, "the SSH executor is closed");
        fitForTheAgent(SshFailures.cancelledBeforeConnecting(), FailureCode.CANCELLED, "cancelled before connecting");
        fitForTheAgent(SshFailures.interrupted(), FailureCode.CANCELLED, "interrupted");
    }

    @Test
    void anUnforeseenSessionFailureKeepsItsExceptionForTheJournalOnly() {
        ExecutionFailure f = fitForTheAgent(SshFailures.sessionFailed(HOST, new IOException("broken pipe to 127.0.0.1:12224")),
                FailureCode.EXECUTOR_FAILED, "ssh: the session with fake failed");
        assertEquals("IOException: broken pipe to 127.0.0.1:12224", f.detail());
    }

    @Test
    void aMissingCredentialTellsTheAgentItsNameAndTheJournalWhereItLives() {
        ExecutionFailure f = SshFailures.credentialUnavailable(
                new CredentialUnavailableException("credential k is not set", "credential k: file /run/secrets/k is missing"));
        assertEquals(FailureCode.CREDENTIAL_UNAVAILABLE, f.code());
        assertEquals("credential k is not set", f.message());
        assertEquals("credential k: file /run/secrets/k is missing", f.detail());
    }

    @Test
    void aConnectionThatCannotBeMadeNamesTheHostAndKeepsTheCauseForTheJournal() {
        ExecutionFailure early = fitForTheAgent(SshFailures.cannotConnect(HOST, new IOException("bad address 127.0.0.1")),
                FailureCode.CONNECT_FAILED, "ssh: cannot connect to fake");
        assertEquals("IOException: bad address 127.0.0.1", early.detail());
        ExecutionFailure late = fitForTheAgent(SshFailures.notConnected(HOST,
                        new IOException("connect", new ConnectException("Connection refused: /127.0.0.1:12224"))),
                FailureCode.CONNECT_FAILED, "ssh: cannot connect to fake (refused, unreachable, or its name does not resolve)");
        assertEquals("IOException: connect; caused by ConnectException: Connection refused: /127.0.0.1:12224", late.detail());
        assertEquals("unknown error", SshFailures.notConnected(HOST, null).detail(), "a future that failed without an exception");
    }

    @Test
    void aRejectedHostKeyAndARefusedCredentialNameTheHostOnly() {
        fitForTheAgent(SshFailures.hostKeyRejected(HOST), FailureCode.HOST_KEY_REJECTED,
                "ssh: the host key of fake is not the one configured (known_hosts or pinned fingerprint); nothing was sent");
        fitForTheAgent(SshFailures.authFailed(HOST, true), FailureCode.AUTH_FAILED, "ssh: fake refused the configured key");
        fitForTheAgent(SshFailures.authFailed(HOST, false), FailureCode.AUTH_FAILED, "ssh: fake refused the configured password");
    }

    @Test
    void aRefusedChannelAndAMissingExitStatusAreExecutorFailures() {
        ExecutionFailure refused = fitForTheAgent(SshFailures.channelRefused(HOST, new IOException("administratively prohibited")),
                FailureCode.EXECUTOR_FAILED, "ssh: fake refused the exec channel");
        assertEquals("IOException: administratively prohibited", refused.detail());
        assertEquals("unknown error", SshFailures.channelRefused(HOST, null).detail());
        fitForTheAgent(SshFailures.noExitStatus(HOST), FailureCode.EXECUTOR_FAILED,
                "ssh: the channel on fake closed without an exit status or signal");
    }

    @Test
    void eachTimeoutNamesTheBudgetAndThePhase() {
        String within = "ssh: no answer within 1500 ms while ";
        fitForTheAgent(SshFailures.connectTimedOut(HOST), FailureCode.TIMEOUT, within + "connecting to fake");
        fitForTheAgent(SshFailures.authTimedOut(HOST), FailureCode.TIMEOUT, within + "authenticating to fake");
        fitForTheAgent(SshFailures.noFreeSession(HOST, 8), FailureCode.TIMEOUT,
                within + "waiting for one of the 8 sessions to fake to free up");
        fitForTheAgent(SshFailures.channelTimedOut(HOST, Attempt.Stopped.NOT_SIGNALLED), FailureCode.TIMEOUT,
                within + "opening an exec channel on fake; " + Attempt.Stopped.NOT_SIGNALLED.describe());
    }

    @Test
    void aCommandThatOutlivedItsDeadlineComesBackWithWhatItPrinted() {
        SshExitOutcome readSoFar = exit("half", false, "", false);
        ExecutionFailure f = fitForTheAgent(SshFailures.commandTimedOut(HOST, readSoFar, 4, 0, Attempt.Stopped.REFUSED),
                FailureCode.TIMEOUT, "ssh: no answer within 1500 ms while waiting for the command to exit (read 4 stdout and 0 stderr"
                        + " bytes); " + Attempt.Stopped.REFUSED.describe());
        assertSame(readSoFar, f.partial().orElseThrow());
    }

    @Test
    void aCancellationSaysWhatStoppingTheCommandAchievedWhenThereWasOne() {
        fitForTheAgent(SshFailures.cancelled("while connecting"), FailureCode.CANCELLED, "ssh: cancelled while connecting");
        fitForTheAgent(SshFailures.cancelled("while the command ran", null), FailureCode.CANCELLED,
                "ssh: cancelled while the command ran");
        fitForTheAgent(SshFailures.cancelled("while the command ran", Attempt.Stopped.SIGNALLED), FailureCode.CANCELLED,
                "ssh: cancelled while the command ran; " + Attempt.Stopped.SIGNALLED.describe());
    }

    @Test
    void theJournalsDetailGainsWhereTheHostIsAndWhoLogsIn() {
        String at = "host fake is agentuser@127.0.0.1:" + PORT;
        ExecutionFailure bare = assertInstanceOf(ExecutionFailure.class, SshFailures.located(SshFailures.hostKeyRejected(HOST), HOST));
        assertEquals(at, bare.detail());
        assertEquals(SshFailures.hostKeyRejected(HOST).message(), bare.message(), "the agent's words are unchanged");
        ExecutionFailure withCause = assertInstanceOf(ExecutionFailure.class,
                SshFailures.located(SshFailures.cannotConnect(HOST, new IOException("no route")), HOST));
        assertEquals(at + "; IOException: no route", withCause.detail());
        SshExitOutcome ran = exit("ok", false, "", false);
        assertSame(ran, SshFailures.located(ran, HOST), "a command that ran is not a failure to locate");
    }

    @Test
    void theMaskCoversOutputMessagesDetailsAndWhatATimeoutReadSoFar() {
        SecretMask mask = new SecretMask(List.of("hunter22".getBytes(StandardCharsets.UTF_8)));
        SshExitOutcome ran = assertInstanceOf(SshExitOutcome.class,
                SshFailures.masked(exit("pw=hunter22 tail hunt", true, "err hunter22 hunt", false), mask));
        assertEquals("pw=**** tail ****", new String(ran.stdout(), StandardCharsets.UTF_8), "a cut stream hides a secret's start");
        assertTrue(ran.stdoutTruncated());
        assertEquals("err **** hunt", new String(ran.stderr(), StandardCharsets.UTF_8), "a whole stream keeps a mere prefix");
        assertFalse(ran.stderrTruncated());
        assertEquals(OptionalInt.of(3), ran.exitStatus());
        assertEquals(Optional.of("TERM"), ran.exitSignal());
        assertEquals(Permits.HOST, ran.host());
        assertEquals("SHA256:abc", ran.hostKeyFingerprint());

        ExecutionFailure timedOut = new ExecutionFailure(FailureCode.TIMEOUT, "saw hunter22", Optional.of(exit("hunter22", false, "", false)))
                .withDetail("detail hunter22");
        ExecutionFailure masked = assertInstanceOf(ExecutionFailure.class, SshFailures.masked(timedOut, mask));
        assertEquals(FailureCode.TIMEOUT, masked.code());
        assertEquals("saw ****", masked.message());
        assertEquals("detail ****", masked.detail());
        SshExitOutcome partial = assertInstanceOf(SshExitOutcome.class, masked.partial().orElseThrow());
        assertArrayEquals("****".getBytes(StandardCharsets.UTF_8), partial.stdout());

        Outcome other = new UpstreamCallOutcome("up", "tool", new JsonObject(Map.of()), false);
        assertSame(other, SshFailures.masked(other, mask), "only SSH outcomes and failures are masked here");
    }

    @Test
    void anExceptionIsDescribedForTheJournalAndItsAbsenceSaidSo() {
        assertEquals("unknown error", SshFailures.describe(null));
        assertEquals("IOException: gone", SshFailures.describe(new IOException("gone")));
    }
}
