package dev.postern.policy.outcome;

import dev.postern.policy.json.JsonValue.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * What an upstream tool returned: its {@code CallToolResult}, checked (shape, content types, the
 * pinned output schema), within the server's byte cap and masked against its credentials by the
 * executor, and whether the upstream itself flagged it {@code isError} (a tool error, not a failure
 * of the gateway's).
 */
public record UpstreamCallOutcome(String server, String tool, JsonObject result, boolean upstreamError) implements Outcome {
    public UpstreamCallOutcome {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(result, "result");
    }

    /** The result is capped whole by the executor (too large is a failure), so it carries no truncated stream. */
    @Override
    public List<CapturedStream> streams() {
        return List.of();
    }

    @Override
    public List<byte[]> visibleParts() {
        return List.of(server.getBytes(StandardCharsets.UTF_8), tool.getBytes(StandardCharsets.UTF_8),
                result.canonical().getBytes(StandardCharsets.UTF_8));
    }
}
