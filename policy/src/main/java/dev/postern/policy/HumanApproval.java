package dev.postern.policy;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A human's explicit approval of one shown action, named by its digest ({@link ShownAction#digest()}):
 * the one value {@link PendingApproval#grant} takes. Whoever constructs it vouches that a human saw
 * that action and accepted it; {@code channel} says how the answer came (for the journal).
 */
public record HumanApproval(String actionDigest, String channel) {
    private static final Pattern DIGEST = Pattern.compile("sha256:[0-9a-f]{64}");

    public HumanApproval {
        Objects.requireNonNull(actionDigest, "actionDigest");
        Objects.requireNonNull(channel, "channel");
        if (!DIGEST.matcher(actionDigest).matches()) {
            throw new IllegalArgumentException("actionDigest must be sha256: and 64 hex digits");
        }
        if (channel.isBlank()) {
            throw new IllegalArgumentException("channel must not be blank");
        }
    }
}
