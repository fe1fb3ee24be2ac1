package dev.postern.policy;

/**
 * Why an action that needed a human's approval did not get it, each with its stable rule id (README,
 * "Rule ids"). Every one ends the call with zero effects; none is retried or asked again.
 */
public enum ApprovalFailure {
    /** The human declined or dismissed the question, or accepted without approving. */
    DECLINED("approval.declined"),
    /** No answer came within {@code session.approvalTimeoutSeconds}. */
    TIMEOUT("approval.timeout"),
    /** The client cannot ask a human (it declared no elicitation capability, or its era has none). */
    UNSUPPORTED("approval.unsupported"),
    /** The answer was malformed, or its proof (a stateless requestState) was forged, moved, expired or replayed. */
    INVALID("approval.invalid");

    private final String rule;

    ApprovalFailure(String rule) {
        this.rule = rule;
    }

    public String rule() {
        return rule;
    }
}
