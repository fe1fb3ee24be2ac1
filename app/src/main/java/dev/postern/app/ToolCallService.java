package dev.postern.app;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.app.config.ConfigDefaults;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.Decision;
import dev.postern.policy.PendingApproval;
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
import dev.postern.policy.port.Telemetry;
import dev.postern.protocol.approval.ApprovalRoute;
import dev.postern.protocol.approval.RequestStateCodec;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The use case, once: a bound tool call is decided; a denial is journaled and answered; a permit
 * passes its target's rate limit ({@link RateLimits}: past it, a decisions row and the failure
 * {@code RATE_LIMITED}, nothing run), then gets its intent row on disk, then its executor through the
 * {@link Dispatcher}, then its outcome row, and is answered. A decision that needs a human's approval goes through {@link Approvals} first, and
 * only an explicit approval of that exact action yields the permit. {@code mcp-stdio} runs
 * {@link #call}; {@code explain} runs {@link #dryRun}, which stops
 * after the decision, before the journal and the executor. How the answer looks is the caller's
 * ({@link Answers}). Thread-safe.
 */
public final class ToolCallService {
    private final Supplier<PolicyEngine> engine;
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

        /** Stateless era, first call under a confirm rule: ask through {@code input_required}; nothing ran. */
        R inputRequired(ObjectNode inputRequests, String requestState);

        /** Stateless era: the call needs form elicitation, which the request did not declare (-32021); nothing ran. */
        R missingCapability(ObjectNode requiredCapabilities);
    }

    /** How the caller renders the end of a dry run. */
    public interface DryAnswers<R> {
        R denied(Decision.Deny deny);

        R permitted(AuthorizedAction permit);

        /** Allowed only once a human approves; no one is asked in a dry run. */
        R approvalRequired(PendingApproval pending);
    }

    /** How a call came in, for the approval step: the tool's name and how its client can be asked. */
    public record Asking(String tool, ApprovalRoute route, Approvals.Elicitor elicitor, String client) {
        public Asking {
            Objects.requireNonNull(tool, "tool");
            Objects.requireNonNull(route, "route");
            Objects.requireNonNull(elicitor, "elicitor");
            Objects.requireNonNull(client, "client");
        }

        /** A call from a client whose name is not known. */
        public Asking(String tool, ApprovalRoute route, Approvals.Elicitor elicitor) {
            this(tool, route, elicitor, "an MCP client");
        }

        /** A call whose client cannot be asked: a confirm rule ends it approval.unsupported. */
        static Asking nobody() {
            return NOBODY;
        }

        /** The tool the journal's rows name: the one the client called, none for a call that came by no tool ({@link #nobody}). */
        Optional<String> journaled() {
            return this == NOBODY ? Optional.empty() : Optional.of(tool);
        }
    }

    private static final Asking NOBODY = new Asking("unnamed", new ApprovalRoute.Unable("no human can be asked on this connection"),
            (params, timeout, cancellation) -> new Approvals.Asked.Unavailable("no human can be asked"));

    private record Effects(RateLimits rateLimits, AuditJournal journal, Dispatcher dispatcher, PrintStream diagnostics,
                           Approvals approvals) {
        Effects {
            Objects.requireNonNull(rateLimits, "rateLimits");
            Objects.requireNonNull(journal, "journal");
            Objects.requireNonNull(dispatcher, "dispatcher");
            Objects.requireNonNull(diagnostics, "diagnostics");
            Objects.requireNonNull(approvals, "approvals");
        }
    }

    private ToolCallService(Supplier<PolicyEngine> engine, Optional<Effects> effects) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.effects = effects;
    }

    /** A service that journals and executes, without rate limits. */
    static ToolCallService executing(PolicyEngine engine, AuditJournal journal, Dispatcher dispatcher, PrintStream diagnostics) {
        return executing(engine, RateLimits.none(), journal, dispatcher, diagnostics);
    }

    /** A service that journals and executes, asking a human through {@code approvals} where a rule says confirm, without rate limits. */
    static ToolCallService executing(PolicyEngine engine, AuditJournal journal, Dispatcher dispatcher, PrintStream diagnostics,
                                     Approvals approvals) {
        return executing(engine, RateLimits.none(), journal, dispatcher, diagnostics, approvals);
    }

    /** A service that journals and executes what the policy permits and {@code rateLimits} admits; approvals wait the default time. */
    static ToolCallService executing(PolicyEngine engine, RateLimits rateLimits, AuditJournal journal, Dispatcher dispatcher,
            PrintStream diagnostics) {
        Duration wait = Duration.ofSeconds(ConfigDefaults.APPROVAL_TIMEOUT_SECONDS);
        return executing(engine, rateLimits, journal, dispatcher, diagnostics,
                new Approvals(RequestStateCodec.withFreshKey(wait), wait, journal));
    }

    /**
     * A service that journals and executes what the policy permits (after a human's approval where a
     * rule says confirm) and {@code rateLimits} admits.
     */
    static ToolCallService executing(PolicyEngine engine, RateLimits rateLimits, AuditJournal journal, Dispatcher dispatcher,
            PrintStream diagnostics, Approvals approvals) {
        Objects.requireNonNull(engine, "engine");
        return following(() -> engine, rateLimits, journal, dispatcher, diagnostics, approvals);
    }

    /**
     * As above, each call decided by the engine {@code engine} gives when the call is decided: a config
     * reload swaps it between calls, and a call already decided runs under the engine that decided it.
     */
    static ToolCallService following(Supplier<PolicyEngine> engine, RateLimits rateLimits, AuditJournal journal, Dispatcher dispatcher,
            PrintStream diagnostics, Approvals approvals) {
        return new ToolCallService(engine, Optional.of(new Effects(rateLimits, journal, dispatcher, diagnostics, approvals)));
    }

    /** A service that can only explain: it holds no journal and no executor. */
    static ToolCallService explaining(PolicyEngine engine) {
        Objects.requireNonNull(engine, "engine");
        return new ToolCallService(() -> engine, Optional.empty());
    }

    /** Decides, journals and executes one call; {@code frameSha256} identifies the frame it came in. */
    public <R> R call(Action action, String frameSha256, Cancellation cancellation, Answers<R> answers) {
        return call(action, frameSha256, cancellation, Asking.nobody(), answers);
    }

    /**
     * Decides, asks a human where a rule says so (blocking while a handshake-era human decides),
     * journals and executes one call.
     */
    public <R> R call(Action action, String frameSha256, Cancellation cancellation, Asking asking, Answers<R> answers) {
        return call(action, frameSha256, cancellation, asking, Telemetry.Span.NONE, answers);
    }

    /** As above, telling {@code span} what the call came to: the decision, the approval's answer, the intent row, the outcome. */
    public <R> R call(Action action, String frameSha256, Cancellation cancellation, Asking asking, Telemetry.Span span,
            Answers<R> answers) {
        Effects e = effects.orElseThrow(() -> new IllegalStateException("this service only explains"));
        Decision decision = engine.get().decide(action);
        if (decision instanceof Decision.ApprovalRequired held) {
            Approvals.Step step = e.approvals().settle(held.pending(), asking.tool(), asking.client(), asking.route(),
                    asking.elicitor(), cancellation, frameSha256);
            span.approval(step instanceof Approvals.Step.Granted ? "approved"
                    : step instanceof Approvals.Step.Refused refused ? refused.deny().rule()
                    : step instanceof Approvals.Step.InputRequired ? "input_required" : "capability_missing");
            if (step instanceof Approvals.Step.Refused refused) {
                span.rejected(Stage.POLICY, "APPROVAL_REFUSED", Optional.of(refused.deny().rule()));
                // The decisions journal has the approval's answer row; no second row for the same denial.
                return answers.denied(refused.deny());
            }
            if (step instanceof Approvals.Step.InputRequired ask) {
                return answers.inputRequired(ask.inputRequests(), ask.requestState());
            }
            if (step instanceof Approvals.Step.CapabilityMissing missing) {
                return answers.missingCapability(missing.requiredCapabilities());
            }
            decision = new Decision.Permit(((Approvals.Step.Granted) step).permit());
        }
        if (decision instanceof Decision.Deny deny) {
            span.rejected(Stage.POLICY, "POLICY_DENIED", Optional.of(deny.rule()));
            e.journal().rejected(named(new Rejection(Stage.POLICY, "POLICY_DENIED", Optional.of(deny.rule()), frameSha256,
                    Optional.of(action)), asking));
            return answers.denied(deny);
        }
        AuthorizedAction permit = ((Decision.Permit) decision).permit();
        Optional<RateLimits.Refusal> limited = e.rateLimits().admit(permit);
        if (limited.isPresent()) {
            span.rejected(Stage.POLICY, limited.get().reason(), Optional.of(limited.get().rule()));
            e.journal().rejected(named(new Rejection(Stage.POLICY, limited.get().reason(), Optional.of(limited.get().rule()), frameSha256,
                    Optional.of(action)), asking));
            return answers.executed(limited.get().answer());
        }
        Ran ran = execute(e, permit, frameSha256, asking.journaled(), cancellation, span);
        R answer = answers.executed(ran.outcome());
        if (ran.fatal() != null) {
            answers.fatal(ran.fatal());
        }
        return answer;
    }

    /** Decides one call and stops: nothing is journaled, no executor is built or called. */
    public <R> R dryRun(Action action, DryAnswers<R> answers) {
        Decision decision = engine.get().decide(action);
        if (decision instanceof Decision.Deny deny) {
            return answers.denied(deny);
        }
        if (decision instanceof Decision.ApprovalRequired held) {
            return answers.approvalRequired(held.pending());
        }
        return answers.permitted(((Decision.Permit) decision).permit());
    }

    /** What running a permit came to, and the fatal VM error it hit, if any (already journaled as a failure). */
    private record Ran(Outcome outcome, VirtualMachineError fatal) {
    }

    /** A denial's row names the tool the call came by, as its intent row would have. */
    private static Rejection named(Rejection rejection, Asking asking) {
        return asking.journaled().map(tool -> rejection.ofTool(tool, Optional.empty())).orElse(rejection);
    }

    private static Ran execute(Effects e, AuthorizedAction permit, String frameSha256, Optional<String> tool, Cancellation cancellation,
            Telemetry.Span span) {
        long intent;
        try {
            intent = e.journal().intent(permit, frameSha256, tool);
        } catch (JournalUnavailableException ex) {
            e.diagnostics().println("postern: " + ex.getMessage());
            span.executed(Optional.of(FailureCode.JOURNAL_UNAVAILABLE.name()));
            return new Ran(new ExecutionFailure(FailureCode.JOURNAL_UNAVAILABLE,
                    "the actions journal could not be written, so nothing ran"), null);
        }
        span.permitted(permit, intent);
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
            outcome = new ExecutionFailure(FailureCode.EXECUTOR_FAILED, "the executor failed unexpectedly")
                    .withDetail(ExecutionFailure.chain(t));
        }
        e.journal().outcome(intent, outcome);
        span.executed(outcome instanceof ExecutionFailure failure ? Optional.of(failure.code().name()) : Optional.empty());
        return new Ran(outcome, fatal);
    }
}
