package dev.postern.policy;

import dev.postern.policy.action.Action;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * An action the policy allows only with a human's approval: what to show the human
 * ({@link #shown()}, no secrets) and its digest, the rule that would permit it, and the permit held
 * back until {@link #grant} receives a {@link HumanApproval} of exactly this digest. The permit is
 * built at that moment, once: a second grant, or a grant for another digest, is refused.
 * Thread-safe. Only the rules in this package create one.
 */
public final class PendingApproval {
    private final Action action;
    private final String rule;
    private final String reason;
    private final ShownAction shown;
    private final String digest;
    private final Supplier<AuthorizedAction> permit;
    private final AtomicBoolean used = new AtomicBoolean();

    PendingApproval(Action action, String rule, String reason, ShownAction shown, Supplier<AuthorizedAction> permit) {
        this.action = Objects.requireNonNull(action, "action");
        this.rule = Decision.requireRule(rule);
        this.reason = Objects.requireNonNull(reason, "reason");
        this.shown = Objects.requireNonNull(shown, "shown");
        this.digest = shown.digest();
        this.permit = Objects.requireNonNull(permit, "permit");
    }

    /** The action as the agent asked for it. */
    public Action action() {
        return action;
    }

    /** The rule that permits the action once a human approves it. */
    public String rule() {
        return rule;
    }

    /** Why a human must approve, in words an agent and an operator can read. */
    public String reason() {
        return reason;
    }

    /** The exact action, as the human sees it. */
    public ShownAction shown() {
        return shown;
    }

    /** {@link ShownAction#digest()} of {@link #shown()}: what an approval must name. */
    public String digest() {
        return digest;
    }

    /**
     * The permit, for an approval of exactly this action; at most once.
     *
     * @throws IllegalArgumentException if the approval names another action
     * @throws IllegalStateException if this pending approval was already granted
     */
    public Decision.Permit grant(HumanApproval approval) {
        Objects.requireNonNull(approval, "approval");
        if (!approval.actionDigest().equals(digest)) {
            throw new IllegalArgumentException("the approval names another action");
        }
        if (!used.compareAndSet(false, true)) {
            throw new IllegalStateException("this approval was already granted; an approval covers one execution");
        }
        return new Decision.Permit(permit.get());
    }

    /** The denial that ends the call when approval did not come. */
    public Decision.Deny refuse(ApprovalFailure failure, String reason) {
        return new Decision.Deny(failure.rule(), reason);
    }

    @Override
    public String toString() {
        return "PendingApproval[" + shown.kind() + ' ' + digest + ", rule=" + rule + ']';
    }
}
