package dev.postern.policy;

import dev.postern.policy.action.Action;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Policy;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Decides every action against one immutable {@link Policy}: deny by default, permit only what a
 * target or host explicitly allows. Pure: no I/O, no clock, no mutable state; thread-safe. Total: an
 * exception while checking agent input is a denial by rule {@code policy.error}, never an escape.
 *
 * <p>Each kind of effect has one {@link Rules}, found by the action's type; {@code PolicyEngineKindsTest}
 * checks that every permitted {@link Action} has rules here.
 */
public final class PolicyEngine {
    private final Policy policy;
    private final Map<Class<?>, Rules<?>> rulesByAction;

    @RegistrationPoint("the kind's Rules in the list")
    public PolicyEngine(Policy policy) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.rulesByAction = List.<Rules<?>>of(
                        new HttpRules(policy.allowances(HttpTarget.class)),
                        new SshRules(policy),
                        new SqlRules(policy),
                        new UpstreamRules(policy))
                .stream().collect(Collectors.toUnmodifiableMap(Rules::actionType, Function.identity()));
    }

    public Policy policy() {
        return policy;
    }

    public Decision decide(Action action) {
        Objects.requireNonNull(action, "action");
        Rules<?> rules = rulesByAction.get(action.getClass());
        if (rules == null) {
            throw new AssertionError("no rule for action type " + action.getClass().getName());
        }
        try {
            return decideWith(rules, action);
        } catch (RuntimeException e) {
            return new Decision.Deny("policy.error", "the request could not be checked (" + e.getClass().getSimpleName()
                    + "), so it is denied");
        }
    }

    /** Whether this engine has rules for the action type; for the test that every kind is judged. */
    boolean judges(Class<? extends Action> actionType) {
        return rulesByAction.containsKey(actionType);
    }

    private static <A extends Action> Decision decideWith(Rules<A> rules, Action action) {
        return rules.decide(rules.actionType().cast(action));
    }
}
