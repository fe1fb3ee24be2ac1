package dev.postern.protocol.archfixtures;

import dev.postern.policy.Decision;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.action.Action;
import dev.postern.policy.model.Policy;

/** Violation: the protocol building its own policy engine instead of being handed the composition root's. Never run. */
public final class ProtocolDecidingItself {
    static Decision decide(Policy policy, Action action) {
        return new PolicyEngine(policy).decide(action);
    }
}
