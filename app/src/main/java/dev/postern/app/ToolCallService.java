package dev.postern.app;

import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.Decision;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.action.Action;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.AuditJournal;
import dev.postern.policy.port.Cancellation;
import dev.postern.policy.port.JournalUnavailableException;
import dev.postern.policy.port.Rejection;
import dev.postern.policy.port.Stage;
import java.io.PrintStream;
import java.util.Objects;
import java.util.Optional;

/**
 * The use case, once: a bound tool call is decided; a denial is journaled and answered; a permit gets
 * its intent row on disk, then its executor through the {@link Dispatcher}, then its outcome row, and
 * is answered. {@code mcp-stdio} runs {@link #call}; {@code explain} runs {@link #dryRun}, which stops
 * after the decision, before the journal and the executor. How the answer looks is the caller's
 * ({@link Answers}). Thread-safe.
 */
public final class ToolCallService {
    private final PolicyEngine engine;
    private final Optional<Effects> effects;

    /** How the caller renders the end of a call. */
    public interface Answers<R> {
        R denied(Decision.Deny deny);

        R executed(Outcome outcome);

        /**
         * The executor hit a fatal VM error: the call was journaled and answered as EXECUTOR_FAILED
         * ({@link #executed}), and the caller should now end the session.
         */
        void fatal(VirtualMachineError error);
    }

    /** How the caller renders the end of a dry run. */
    public interface DryAnswers<R> {
        R denied(Decision.Deny deny);

        R permitted(AuthorizedAction permit);
    }

    private record Effects(AuditJournal journal, Dispatcher dispatcher, PrintStream diagnostics) {
        Effects {
            Objects.requireNonNull(journal, "journal");
            Objects.requireNonNull(dispatcher, "dispatcher");
            Objects.requireNonNull(diagnostics, "diagnostics");
        }
    }

    private ToolCallService(PolicyEngine engine, Optional<Effects> effects) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.effects = effects;
    }

    /** A service that journals and executes. */
    static ToolCallService executing(PolicyEngine engine, AuditJournal journal, Dispatcher dispatcher, PrintStream diagnostics) {
        return new ToolCallService(engine, Optional.of(new Effects(journal, dispatcher, diagnostics)));
    }

    /** A service that can only explain: it holds no journal and no executor. */
    static ToolCallService explaining(PolicyEngine engine) {
        return new ToolCallService(engine, Optional.empty());
    }

    /** Decides, journals and executes one call; {@code frameSha256} identifies the frame it came in. */
    public <R> R call(Action action, String frameSha256, Cancellation cancellation, Answers<R> answers) {
        Effects e = effects.orElseThrow(() -> new IllegalStateException("this service only explains"));
        Decision decision = engine.decide(action);
        if (decision instanceof Decision.Deny deny) {
            e.journal().rejected(new Rejection(Stage.POLICY, "POLICY_DENIED", Optional.of(deny.rule()), frameSha256));
            return answers.denied(deny);
        }
        Ran ran = execute(e, ((Decision.Permit) decision).permit(), frameSha256, cancellation);
        R answer = answers.executed(ran.outcome());
        if (ran.fatal() != null) {
            answers.fatal(ran.fatal());
        }
        return answer;
    }

    /** Decides one call and stops: nothing is journaled, no executor is built or called. */
    public <R> R dryRun(Action action, DryAnswers<R> answers) {
        Decision decision = engine.decide(action);
        if (decision instanceof Decision.Deny deny) {
            return answers.denied(deny);
        }
        return answers.permitted(((Decision.Permit) decision).permit());
    }

    /** What running a permit came to, and the fatal VM error it hit, if any (already journaled as a failure). */
    private record Ran(Outcome outcome, VirtualMachineError fatal) {
    }

    private static Ran execute(Effects e, AuthorizedAction permit, String frameSha256, Cancellation cancellation) {
        long intent;
        try {
            intent = e.journal().intent(permit, frameSha256);
        } catch (JournalUnavailableException ex) {
            e.diagnostics().println("postern: " + ex.getMessage());
            return new Ran(new ExecutionFailure(FailureCode.JOURNAL_UNAVAILABLE,
                    "the actions journal could not be written, so nothing ran"), null);
        }
        Outcome outcome;
        VirtualMachineError fatal = null;
        try {
            outcome = cancellation.isCancelled()
                    ? new ExecutionFailure(FailureCode.CANCELLED, "cancelled before it started")
                    : e.dispatcher().dispatch(permit, cancellation);
        } catch (Throwable t) {
            // The executor broke its contract with an Error (the Dispatcher turns exceptions into
            // failures already): the outcome row must say so, never ok.
            e.diagnostics().println("postern: the executor failed: " + t);
            fatal = t instanceof VirtualMachineError vm ? vm : null;
            outcome = new ExecutionFailure(FailureCode.EXECUTOR_FAILED, "executor failed: " + t.getClass().getSimpleName());
        }
        e.journal().outcome(intent, outcome);
        return new Ran(outcome, fatal);
    }
}
