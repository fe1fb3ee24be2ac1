package dev.postern.policy.port;

import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One step of a human approval, as the decisions journal records it: a question asked, or its
 * answer. It names the rule that needs the approval, the digest of the exact action (never the action
 * itself), how the human was asked ({@link Channel}), for an answer the outcome ({@code approved} or
 * an {@code approval.*} rule id) and a short fixed detail, and the SHA-256 of the tool call's frame.
 */
public record ApprovalRecord(Event event, String rule, String actionDigest, Channel channel, Optional<String> result,
                             Optional<String> detail, String frameSha256) {
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
    private static final Pattern DIGEST = Pattern.compile("sha256:[0-9a-f]{64}");

    /** A question asked, or its answer. */
    public enum Event { ASKED, ANSWERED }

    /**
     * Who was asked, or who answered: the MCP client ({@code elicitation/create} or an
     * {@code input_required} result), the loopback approval page, the terminal ({@code postern approvals}),
     * the channels Postern owns before either answered ({@code LOCAL}: a question put there, or an
     * expiry), or no one ({@code NONE}: no channel could ask).
     */
    public enum Channel { CLIENT, PAGE, TERMINAL, LOCAL, NONE }

    public ApprovalRecord {
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(rule, "rule");
        if (actionDigest == null || !DIGEST.matcher(actionDigest).matches()) {
            throw new IllegalArgumentException("actionDigest must be sha256: and 64 hex digits");
        }
        Objects.requireNonNull(channel, "channel");
        Objects.requireNonNull(result, "result");
        Objects.requireNonNull(detail, "detail");
        if ((event == Event.ANSWERED) != result.isPresent()) {
            throw new IllegalArgumentException("an answer has a result; a question has none");
        }
        if (frameSha256 == null || !SHA256.matcher(frameSha256).matches()) {
            throw new IllegalArgumentException("frameSha256 must be 64 lower-case hex digits");
        }
    }

    /** A question asked through {@code channel}. */
    public static ApprovalRecord asked(String rule, String actionDigest, Channel channel, String frameSha256) {
        return new ApprovalRecord(Event.ASKED, rule, actionDigest, channel, Optional.empty(), Optional.empty(), frameSha256);
    }

    /** An answer: {@code result} is {@code approved} or an {@code approval.*} rule id. */
    public static ApprovalRecord answered(String rule, String actionDigest, Channel channel, String result, String detail,
                                          String frameSha256) {
        return new ApprovalRecord(Event.ANSWERED, rule, actionDigest, channel, Optional.of(result), Optional.of(detail), frameSha256);
    }
}
