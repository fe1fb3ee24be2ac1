package dev.postern.policy.port;

import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One rejected or denied input, as the decisions journal records it: the stage, a stable reason
 * code, the policy rule when a rule decided, and the SHA-256 of the frame. Never the frame itself.
 */
public record Rejection(Stage stage, String reasonCode, Optional<String> rule, String frameSha256) {
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

    public Rejection {
        Objects.requireNonNull(stage, "stage");
        Objects.requireNonNull(reasonCode, "reasonCode");
        Objects.requireNonNull(rule, "rule");
        if (frameSha256 == null || !SHA256.matcher(frameSha256).matches()) {
            throw new IllegalArgumentException("frameSha256 must be 64 lower-case hex digits");
        }
    }
}
