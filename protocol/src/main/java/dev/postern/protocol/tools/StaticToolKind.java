package dev.postern.protocol.tools;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.action.Action;
import dev.postern.policy.model.LiveTools;
import dev.postern.policy.model.Policy;
import dev.postern.policy.outcome.Outcome;
import java.util.List;

/**
 * A kind whose tools the config alone fixes: one generic tool ({@code http_request}, {@code ssh_exec},
 * {@code sql_query}), offered when the policy has an allowance of the kind, and after it one typed tool
 * per operation the operator asked to offer under a name of its own ({@code "tool"}); blind to run-time
 * listings.
 */
public interface StaticToolKind<A extends Action, P extends AuthorizedAction, O extends Outcome> extends EffectKind<A, P, O> {

    /** Whether the policy offers this kind's tool at all: it has at least one allowance of the kind. */
    default boolean offeredBy(Policy policy) {
        return !policy.allowances(allowanceType()).isEmpty();
    }

    /** The tool, with its schemas (enums from the policy where the policy names things) and binder. */
    Tool tool(Policy policy);

    /**
     * The typed tools, one per operation whose config names a {@code tool}, in policy order: an input
     * schema of exactly that operation's arguments, annotations derived from what its policy allows, the
     * generic tool's output schema, and a binder that builds the very action the generic tool would build
     * for the same operation, so that one rule decides both. None when no operation asks (a kind that has
     * no operations to offer returns none, as a visible decision).
     */
    List<Tool> typedTools(Policy policy);

    /** This kind's allowances as {@code postern_targets} shows them: no secrets, no credential names. */
    ArrayNode describeForAgent(Policy policy);

    @Override
    default List<Tool> tools(Policy policy, LiveTools live) {
        if (!offeredBy(policy)) {
            return List.of();
        }
        List<Tool> tools = new java.util.ArrayList<>();
        tools.add(tool(policy));
        tools.addAll(typedTools(policy));
        return List.copyOf(tools);
    }

    @Override
    default ArrayNode describeForAgent(Policy policy, LiveTools live) {
        return describeForAgent(policy);
    }
}
