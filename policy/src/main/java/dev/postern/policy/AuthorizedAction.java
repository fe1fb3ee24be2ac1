package dev.postern.policy;

import dev.postern.policy.action.Action;
import dev.postern.policy.model.Allowance;

/**
 * A permit: an action the policy allowed, together with everything its executor must enforce.
 * Only {@link PolicyEngine} creates one: the subclasses are final and their constructors
 * package-private, and no class outside this module may live in this package.
 *
 * <p>The set is sealed so that each executor takes exactly its own permit type, typed, with no cast.
 */
@RegistrationPoint("the kind's permit class in permits")
public abstract sealed class AuthorizedAction permits AuthorizedHttpRequest, AuthorizedSshCommand, AuthorizedSqlStatement,
        AuthorizedUpstreamCall {
    private final String rule;

    AuthorizedAction(String rule) {
        this.rule = Decision.requireRule(rule);
    }

    /** The action as the agent asked for it. */
    public abstract Action action();

    /** What the operator allowed that this permit is for: the HTTP target, the SSH host (its rate limit is applied outside the kernel). */
    public abstract Allowance allowance();

    /** The id of the rule that allowed it, for the journal and the agent. */
    public final String rule() {
        return rule;
    }
}
