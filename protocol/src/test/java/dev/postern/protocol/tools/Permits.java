package dev.postern.protocol.tools;

import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.Decision;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.action.Action;
import dev.postern.policy.model.Policy;

/**
 * Real permits for the kinds' presentation tests: the kernel's engine decides the action over the
 * given policy, so a permit holds exactly what the executor would get (canonical URI, rendered argv,
 * bound values). A denial or an approval request fails the test that asked for a permit.
 */
final class Permits {
    private Permits() {
    }

    static <P extends AuthorizedAction> P permit(Policy policy, Action action, Class<P> type) {
        Decision d = new PolicyEngine(policy).decide(action);
        if (d instanceof Decision.Permit p) {
            return type.cast(p.permit());
        }
        throw new AssertionError("the test policy should permit " + action + " but said " + d);
    }
}
