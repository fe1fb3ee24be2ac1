package dev.postern.policy;

import dev.postern.policy.action.Action;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.action.SqlQueryAction;
import dev.postern.policy.action.SshCommandAction;
import dev.postern.policy.model.Policy;
import java.util.Objects;

/**
 * Decides every action against one immutable {@link Policy}: deny by default, permit only what a
 * target, host or database explicitly allows. Pure: no I/O, no clock, no mutable state; thread-safe.
 * Total: an exception while checking agent input is a denial by rule {@code policy.error}, never an escape.
 */
public final class PolicyEngine {
    private final Policy policy;
    private final HttpRules http;
    private final SshRules ssh;
    private final SqlRules sql;

    public PolicyEngine(Policy policy) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.http = new HttpRules(policy.httpTargets());
        this.ssh = new SshRules(policy);
        this.sql = new SqlRules(policy);
    }

    public Policy policy() {
        return policy;
    }

    public Decision decide(Action action) {
        Objects.requireNonNull(action, "action");
        try {
            return decideChecked(action);
        } catch (RuntimeException e) {
            return new Decision.Deny("policy.error", "the request could not be checked (" + e.getClass().getSimpleName()
                    + "), so it is denied");
        }
    }

    private Decision decideChecked(Action action) {
        // Java 17 has no pattern switch; the sealed Action keeps this list short and complete.
        if (action instanceof HttpRequestAction request) {
            return http.decide(request);
        }
        if (action instanceof SshCommandAction command) {
            return ssh.decide(command);
        }
        if (action instanceof SqlQueryAction query) {
            return sql.decide(query);
        }
        throw new AssertionError("no rule for action type " + action.getClass().getName());
    }
}
