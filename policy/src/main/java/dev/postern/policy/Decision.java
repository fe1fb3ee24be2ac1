package dev.postern.policy;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What the policy engine says about one action: {@link Permit} with the permit, {@link Deny}
 * with the rule that denied and a reason an agent can act on, or {@link ApprovalRequired} when a
 * rule marked {@code confirm} allows it only once a human approves the exact action. None carries a
 * secret.
 */
public sealed interface Decision {

    /** Rule ids are stable, dotted, lower-case words: {@code http.method}, {@code ssh.args.pattern}. */
    Pattern RULE = Pattern.compile("[a-z][a-z0-9-]*(\\.[a-z0-9-]+)*(:[A-Za-z0-9_.-]+)?");

    record Permit(AuthorizedAction permit) implements Decision {
        public Permit {
            Objects.requireNonNull(permit, "permit");
        }
    }

    /** Allowed only with a human's approval; {@link PendingApproval#grant} yields the permit. */
    record ApprovalRequired(PendingApproval pending) implements Decision {
        public ApprovalRequired {
            Objects.requireNonNull(pending, "pending");
        }
    }

    record Deny(String rule, String reason) implements Decision {
        public Deny {
            requireRule(rule);
            Objects.requireNonNull(reason, "reason");
            if (reason.isBlank()) {
                throw new IllegalArgumentException("a denial needs a reason");
            }
        }
    }

    static String requireRule(String rule) {
        if (rule == null || !RULE.matcher(rule).matches()) {
            throw new IllegalArgumentException("rule id must match " + RULE.pattern() + ", got " + rule);
        }
        return rule;
    }
}
