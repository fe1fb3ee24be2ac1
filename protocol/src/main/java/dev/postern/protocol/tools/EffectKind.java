package dev.postern.protocol.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.RegistrationPoint;
import dev.postern.policy.action.Action;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.LiveTools;
import dev.postern.policy.model.Policy;
import dev.postern.policy.outcome.Outcome;
import java.util.List;
import java.util.Optional;

/**
 * One kind of external effect as the gateway presents it, declared once: its tool (schemas and
 * binder), how its outcome becomes a tool result, and how its allowances, permits and outcomes are
 * described to {@code postern_targets}, {@code check-config}, {@code explain} and the journal. One
 * implementation per kind ({@link HttpRequestKind}, {@link SshExecKind}, {@link SqlQueryKind},
 * {@link UpstreamToolKind}); the composition root
 * registers each once, and everything else iterates over {@link EffectKinds}. A kind whose one tool the
 * config fixes implements {@link StaticToolKind}; a kind whose tools are known only at run time
 * (upstream MCP servers) implements this interface itself, reading {@link LiveTools}.
 *
 * <p>The kernel types name the kind; this type only presents them. A test checks that every
 * permitted subclass of {@code Action}, {@code AuthorizedAction} and {@code Outcome} (but the
 * kind-neutral {@code ExecutionFailure}) belongs to exactly one registered kind.
 */
@RegistrationPoint("one implementation, beside HttpRequestKind, SshExecKind, SqlQueryKind and UpstreamToolKind")
public interface EffectKind<A extends Action, P extends AuthorizedAction, O extends Outcome> {

    /** The tool's name, which is also the journal's {@code action} field: {@code http_request}. */
    String toolName();

    /**
     * The effect in a phrase, singular, as the documents name the kind when they list every kind:
     * {@code HTTP request}. {@code KindProseTest} holds README.md, ARCHITECTURE.md, CONTRIBUTING.md and
     * the root pom's description to the registered kinds' names.
     */
    String displayName();

    Class<A> actionType();

    Class<P> permitType();

    Class<O> outcomeType();

    Class<? extends Allowance> allowanceType();

    /** The allowances in a sentence, plural: {@code HTTP targets}. */
    String allowancesNoun();

    /** The allowances and what {@code postern_targets} shows of them, for its description: {@code HTTP targets (origin, ...)}. */
    String allowancesSummary();

    /** The field of {@code postern_targets} that lists this kind's allowances: {@code http}. */
    String targetsField();

    /**
     * The tools this kind offers under the policy, given what the run-time sources have found so far
     * ({@code live}; kinds whose tools are fixed by the config ignore it, see {@link StaticToolKind}).
     * Each with its schemas and binder; none when the policy has no allowance of the kind.
     */
    List<Tool> tools(Policy policy, LiveTools live);

    /**
     * Tools that can be called but are not listed: a run-time tool whose live definition no longer
     * matches its pin is withheld from {@code tools/list} yet still bound, so that a call of it is
     * decided (and denied, {@code mcp.pin}) and journaled rather than answered "unknown tool".
     */
    default List<Tool> withheldTools(Policy policy, LiveTools live) {
        return List.of();
    }

    /** This kind's allowances as {@code postern_targets} shows them: no secrets, no credential names. */
    ArrayNode describeForAgent(Policy policy, LiveTools live);

    /** This kind's allowances as {@code check-config} prints them, one or more lines each, ending in newlines. */
    String describeForOperator(Policy policy);

    /** A success (or a failure's partial) as {@code structuredContent}, valid against the tool's output schema. */
    ObjectNode render(O outcome);

    /**
     * How a success becomes the tool's result: by default {@link #render}'s structured content, which
     * {@link ToolResults} also copies into a text item; a kind whose effect returns a result of its own
     * (an upstream tool's {@code CallToolResult}, already checked) hands it over whole.
     */
    default KindResult result(O outcome) {
        return new KindResult.Structured(render(outcome));
    }

    /**
     * A rendering of {@code outcome} for a result that {@link #render} would make larger than
     * {@code maxRenderedBytes} (a success's JSON counted twice, escapes included, as
     * {@link ToolResults} caps it): what the kind can make fit, its streams in a more compact
     * encoding or cut and flagged truncated, still valid against the output schema. A kind with
     * nothing to shrink returns {@link #render}'s, which the cap then refuses.
     */
    default ObjectNode renderWithin(O outcome, long maxRenderedBytes) {
        return render(outcome);
    }

    /** What the executor would do with the permit, for {@code explain}; names credentials, never their values. */
    String explain(P permit);

    /**
     * The kind's fields of an intent row: {@code target}, the rendered action (what the executor will
     * do, with every argument) and a one-line {@code preview}; with {@code redactArguments}, SHA-256
     * digests ({@code argumentsSha256}) instead of the rendered arguments. The journal masks credentials
     * in every field afterwards; never a body.
     */
    void journalIntent(P permit, ObjectNode row, boolean redactArguments);

    /**
     * The kind's fields of a denial row, for an action the policy refused (or a rate limit held back):
     * the {@code target} or {@code host} it asked for and what was {@code refused}, rendered as the
     * agent asked (digests instead with {@code redactArguments}); never a body.
     */
    void journalDenial(A action, ObjectNode row, boolean redactArguments);

    /** The kind's fields of a successful outcome row after {@code result: ok}: counts and statuses only. */
    void journalOutcome(O outcome, ObjectNode row);

    /**
     * The action as the agent asked for it, for the {@code asked} field of an intent or denial row
     * (beside the kind's name, which {@link EffectKinds} adds): every field {@link #actionOf} needs to
     * rebuild it, so that {@code audit replay} can decide it again. Written only without
     * {@code redactArguments}; never a body (an HTTP body is neither journaled nor judged by the policy).
     */
    ObjectNode asked(A action);

    /**
     * The action an {@link #asked} object of this kind holds, as read back from a journal row; empty
     * when the object is not one this kind writes (a hand-edited or truncated row). Rebuilds exactly
     * what {@link #asked} wrote, never a guess at what is missing.
     */
    Optional<A> actionOf(JsonNode asked);
}
