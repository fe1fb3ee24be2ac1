package dev.postern.policy.model;

import java.util.Objects;

/**
 * A tool name an allowance offers under a name of its own (an operation's {@link TypedTool}, an upstream
 * server's {@code server__tool}), and who offers it in words ({@code sql database shop, statement
 * cancel-order}), so that {@link Policy} can refuse one name offered twice and say by whom.
 */
public record ToolClaim(String tool, String by) {
    public ToolClaim {
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(by, "by");
    }
}
