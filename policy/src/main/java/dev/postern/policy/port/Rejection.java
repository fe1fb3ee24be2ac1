package dev.postern.policy.port;

import dev.postern.policy.action.Action;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One rejected or denied input, as the decisions journal records it: the stage, a stable reason
 * code, the policy rule when a rule decided, the SHA-256 of the frame, and for a tool call that was
 * bound but refused (denied by the policy, or rate-limited) the action, so the journal can say what
 * was refused. Never the frame itself.
 */
public record Rejection(Stage stage, String reasonCode, Optional<String> rule, String frameSha256, Optional<Action> action) {
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

    /** A rejection of input that never became an action. */
    public Rejection(Stage stage, String reasonCode, Optional<String> rule, String frameSha256) {
        this(stage, reasonCode, rule, frameSha256, Optional.empty());
    }

    public Rejection {
        Objects.requireNonNull(stage, "stage");
        Objects.requireNonNull(reasonCode, "reasonCode");
        Objects.requireNonNull(rule, "rule");
        if (frameSha256 == null || !SHA256.matcher(frameSha256).matches()) {
            throw new IllegalArgumentException("frameSha256 must be 64 lower-case hex digits");
        }
        Objects.requireNonNull(action, "action");
    }
}
