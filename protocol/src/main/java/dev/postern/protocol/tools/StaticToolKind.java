package dev.postern.protocol.tools;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.action.Action;
import dev.postern.policy.model.LiveTools;
import dev.postern.policy.model.Policy;
import dev.postern.policy.outcome.Outcome;
import java.util.List;

/**
 * A kind with one tool whose shape the config alone fixes ({@code http_request}, {@code ssh_exec},
 * {@code sql_query}): offered when the policy has an allowance of the kind, blind to run-time listings.
 */
public interface StaticToolKind<A extends Action, P extends AuthorizedAction, O extends Outcome> extends EffectKind<A, P, O> {

    /** Whether the policy offers this kind's tool at all: it has at least one allowance of the kind. */
    default boolean offeredBy(Policy policy) {
        return !policy.allowances(allowanceType()).isEmpty();
    }

    /** The tool, with its schemas (enums from the policy where the policy names things) and binder. */
    Tool tool(Policy policy);

    /** This kind's allowances as {@code postern_targets} shows them: no secrets, no credential names. */
    ArrayNode describeForAgent(Policy policy);

    @Override
    default List<Tool> tools(Policy policy, LiveTools live) {
        return offeredBy(policy) ? List.of(tool(policy)) : List.of();
    }

    @Override
    default ArrayNode describeForAgent(Policy policy, LiveTools live) {
        return describeForAgent(policy);
    }
}
