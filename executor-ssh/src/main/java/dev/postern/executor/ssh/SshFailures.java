package dev.postern.executor.ssh;

import dev.postern.policy.model.SshHost;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.outcome.SshExitOutcome;
import dev.postern.policy.port.CredentialUnavailableException;
import dev.postern.policy.port.SecretMask;
import java.util.Optional;

/**
 * Every failure the SSH executor answers with, in one place: a stable code and words for the agent
 * that name the host by its configured name only, never its address, port, user or an exception
 * (those go to the journal's detail, {@link #located}); and the mask over whatever goes back. The
 * executor decides when a phase failed; this class says what that failure is. Stateless.
 */
final class SshFailures {
    private SshFailures() {
    }

    /** The executor was closed before the call. */
    static ExecutionFailure closed() {
        return failure(FailureCode.EXECUTOR_FAILED, "the SSH executor is closed");
    }

    /** The call was cancelled before anything was contacted. */
    static ExecutionFailure cancelledBeforeConnecting() {
        return failure(FailureCode.CANCELLED, "cancelled before connecting");
    }

    /** The calling thread was interrupted while the call was blocked on the session. */
    static ExecutionFailure interrupted() {
        return failure(FailureCode.CANCELLED, "interrupted");
    }

    /** The session failed in a way no phase anticipated: EXECUTOR_FAILED, the exception chain in the detail only. */
    static ExecutionFailure sessionFailed(SshHost host, Throwable e) {
        return failure(FailureCode.EXECUTOR_FAILED, "ssh: the session with " + where(host) + " failed")
                .withDetail(ExecutionFailure.chain(e));
    }

    /** A credential could not be had: its message for the agent, its detail (where it lives) for the journal. */
    static ExecutionFailure credentialUnavailable(CredentialUnavailableException e) {
        return failure(FailureCode.CREDENTIAL_UNAVAILABLE, e.getMessage()).withDetail(e.detail());
    }

    /** The client could not even start connecting (the address was refused by the client itself). */
    static ExecutionFailure cannotConnect(SshHost host, Throwable e) {
        return failure(FailureCode.CONNECT_FAILED, "ssh: cannot connect to " + where(host)).withDetail(describe(e));
    }

    /** The connection was attempted and failed; {@code e} is the connect future's exception, null if it gave none. */
    static ExecutionFailure notConnected(SshHost host, Throwable e) {
        return failure(FailureCode.CONNECT_FAILED, "ssh: cannot connect to " + where(host)
                + " (refused, unreachable, or its name does not resolve)").withDetail(describe(e));
    }

    /** The server's host key is not the one the policy names: nothing was sent. */
    static ExecutionFailure hostKeyRejected(SshHost host) {
        return failure(FailureCode.HOST_KEY_REJECTED, "ssh: the host key of " + where(host)
                + " is not the one configured (known_hosts or pinned fingerprint); nothing was sent");
    }

    /** The server refused the configured key ({@code key} true) or password. */
    static ExecutionFailure authFailed(SshHost host, boolean key) {
        return failure(FailureCode.AUTH_FAILED, "ssh: " + where(host) + " refused the configured " + (key ? "key" : "password"));
    }

    /** The server refused to open the exec channel; {@code e} is the open future's exception, null if it gave none. */
    static ExecutionFailure channelRefused(SshHost host, Throwable e) {
        return failure(FailureCode.EXECUTOR_FAILED, "ssh: " + where(host) + " refused the exec channel").withDetail(describe(e));
    }

    /** The channel closed without telling how the command ended. */
    static ExecutionFailure noExitStatus(SshHost host) {
        return failure(FailureCode.EXECUTOR_FAILED, "ssh: the channel on " + where(host) + " closed without an exit status or signal");
    }

    /** The call's deadline passed in {@code phase} (words such as "connecting to box-1"). */
    private static ExecutionFailure timeout(SshHost host, String phase) {
        return failure(FailureCode.TIMEOUT, timeoutMessage(host, phase));
    }

    /** The deadline passed before the connection was made. */
    static ExecutionFailure connectTimedOut(SshHost host) {
        return timeout(host, "connecting to " + where(host));
    }

    /** The deadline passed before the server accepted or refused the credential. */
    static ExecutionFailure authTimedOut(SshHost host) {
        return timeout(host, "authenticating to " + where(host));
    }

    /** The deadline passed while waiting for one of the host's {@code sessions} sessions to free up. */
    static ExecutionFailure noFreeSession(SshHost host, int sessions) {
        return timeout(host, "waiting for one of the " + sessions + " sessions to " + where(host) + " to free up");
    }

    /** The deadline passed before the channel opened; {@code stopped} is what the stop then achieved. */
    static ExecutionFailure channelTimedOut(SshHost host, Attempt.Stopped stopped) {
        return timeout(host, "opening an exec channel on " + where(host) + "; " + stopped.describe());
    }

    /**
     * The command outlived the deadline: TIMEOUT with what it had printed ({@code readSoFar}), how
     * many bytes of each stream were seen, and what stopping it achieved.
     */
    static ExecutionFailure commandTimedOut(SshHost host, SshExitOutcome readSoFar, long stdoutSeen, long stderrSeen,
                                            Attempt.Stopped stopped) {
        return new ExecutionFailure(FailureCode.TIMEOUT, timeoutMessage(host,
                "waiting for the command to exit (read " + stdoutSeen + " stdout and " + stderrSeen
                        + " stderr bytes); " + stopped.describe()), Optional.of(readSoFar));
    }

    /** The call was cancelled in {@code phase}. */
    static ExecutionFailure cancelled(String phase) {
        return failure(FailureCode.CANCELLED, "ssh: cancelled " + phase);
    }

    /** The call was cancelled in {@code phase}; {@code stopped}, when a command was being stopped, says what that achieved. */
    static ExecutionFailure cancelled(String phase, Attempt.Stopped stopped) {
        return cancelled(stopped == null ? phase : phase + "; " + stopped.describe());
    }

    /** A failure's detail gains where the host is and who logs in (the agent's message names the host only). */
    static Outcome located(Outcome outcome, SshHost host) {
        if (outcome instanceof ExecutionFailure f) {
            String at = "host " + host.name() + " is " + host.user() + '@' + host.address() + ':' + host.port();
            return f.withDetail(f.detail().isEmpty() ? at : at + "; " + f.detail());
        }
        return outcome;
    }

    /** A remote command may print a credential (a password it was given, a key file it read): mask it. */
    static Outcome masked(Outcome outcome, SecretMask mask) {
        if (outcome instanceof SshExitOutcome o) {
            return new SshExitOutcome(o.host(), o.exitStatus(), o.exitSignal(),
                    mask.mask(o.stdout(), o.stdoutTruncated()), o.stdoutTruncated(),
                    mask.mask(o.stderr(), o.stderrTruncated()), o.stderrTruncated(),
                    o.hostKeyFingerprint());
        }
        if (outcome instanceof ExecutionFailure f) {
            return new ExecutionFailure(f.code(), mask.mask(f.message()), f.partial().map(p -> masked(p, mask)), mask.mask(f.detail()));
        }
        return outcome;
    }

    /** An exception chain for a failure's detail or stderr, never for a message the agent reads. */
    static String describe(Throwable e) {
        return e == null ? "unknown error" : ExecutionFailure.chain(e);
    }

    private static String timeoutMessage(SshHost host, String phase) {
        return "ssh: no answer within " + host.timeout().toMillis() + " ms while " + phase;
    }

    /** The host as a message names it: its configured name only (its address and user go to the detail, {@link #located}). */
    private static String where(SshHost host) {
        return host.name();
    }

    private static ExecutionFailure failure(FailureCode code, String message) {
        return new ExecutionFailure(code, message);
    }
}
