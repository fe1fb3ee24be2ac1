package dev.postern.policy.port;

import dev.postern.policy.action.Action;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One rejected or denied input, as the decisions journal records it: the stage, a stable reason
 * code, the policy rule when a rule decided, the SHA-256 of the frame, and for a tool call that was
 * bound but refused (denied by the policy, or rate-limited) the action, so the journal can say what
 * was refused, with the tool it was called by (a typed tool names its operation's kind's action); for a
 * tool call refused before it was bound (an unknown tool, arguments that fail the schema), the tool's
 * name as the client gave it and the JSON pointer that failed. Never the frame itself, and never an
 * argument's value.
 */
public record Rejection(Stage stage, String reasonCode, Optional<String> rule, String frameSha256, Optional<Action> action,
                        Optional<String> tool, Optional<String> pointer) {
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
    /** How much of a client's tool name or pointer is kept: enough to read, not a place to park data. */
    public static final int MAX_NAME_CHARS = 128;

    /** A rejection of input that never became an action. */
    public Rejection(Stage stage, String reasonCode, Optional<String> rule, String frameSha256) {
        this(stage, reasonCode, rule, frameSha256, Optional.empty());
    }

    /** A rejection, with the action when one was bound. */
    public Rejection(Stage stage, String reasonCode, Optional<String> rule, String frameSha256, Optional<Action> action) {
        this(stage, reasonCode, rule, frameSha256, action, Optional.empty(), Optional.empty());
    }

    public Rejection {
        Objects.requireNonNull(stage, "stage");
        Objects.requireNonNull(reasonCode, "reasonCode");
        Objects.requireNonNull(rule, "rule");
        if (frameSha256 == null || !SHA256.matcher(frameSha256).matches()) {
            throw new IllegalArgumentException("frameSha256 must be 64 lower-case hex digits");
        }
        Objects.requireNonNull(action, "action");
        tool = Objects.requireNonNull(tool, "tool").map(Rejection::bounded);
        pointer = Objects.requireNonNull(pointer, "pointer").map(Rejection::bounded);
    }

    /**
     * This rejection of a call to {@code toolName}: refused before it was bound, {@code failed} the JSON
     * pointer that failed, if any; or, with the action, the tool the bound call came by.
     */
    public Rejection ofTool(String toolName, Optional<String> failed) {
        return new Rejection(stage, reasonCode, rule, frameSha256, action, Optional.of(toolName), failed);
    }

    private static String bounded(String s) {
        return s.length() <= MAX_NAME_CHARS ? s : s.substring(0, MAX_NAME_CHARS) + "…";
    }
}
