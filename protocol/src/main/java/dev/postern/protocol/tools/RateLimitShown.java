package dev.postern.protocol.tools;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.model.Allowance;

/**
 * How every kind shows an allowance's rate limit, written once: to the agent as
 * {@code "rateLimit": {"calls": 30, "perSeconds": 60}} in {@code postern_targets}, to the operator as
 * {@code , rate limit 30 calls per 60 s} in {@code explain} and {@code check-config}. Nothing when the
 * allowance has no limit.
 */
final class RateLimitShown {
    private RateLimitShown() {
    }

    /** Adds the {@code rateLimit} member to an allowance's entry in the agent's target list. */
    static void toAgent(ObjectNode entry, Allowance allowance) {
        allowance.rateLimit().ifPresent(l -> entry.putObject("rateLimit").put("calls", l.calls()).put("perSeconds", l.per().toSeconds()));
    }

    /** Appends the limit to an allowance's line in the operator's description. */
    static void toOperator(StringBuilder line, Allowance allowance) {
        allowance.rateLimit().ifPresent(l -> line.append(", rate limit ").append(l.describe()));
    }
}
