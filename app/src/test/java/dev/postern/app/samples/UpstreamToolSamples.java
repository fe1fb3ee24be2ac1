package dev.postern.app.samples;

import dev.postern.policy.json.JsonValue;
import dev.postern.policy.json.Pins;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.ArgNarrowing;
import dev.postern.policy.model.LiveTools;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.model.UpstreamTool;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.outcome.UpstreamCallOutcome;
import dev.postern.protocol.json.JsonSyntaxError;
import dev.postern.protocol.json.JsonValues;
import dev.postern.protocol.json.StrictJson;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The upstream MCP tool kind's samples: a ticket server whose one tool is pinned and narrowed, listed as
 * reviewed; a call result of the upstream's own, which the gateway passes on whole (nothing to shrink).
 */
public final class UpstreamToolSamples implements KindSamples {
    /** The example tool's definition as its server lists it. */
    static final JsonValue.JsonObject DEFINITION = definition();
    static final UpstreamServer SERVER = new UpstreamServer("tickets", List.of("/usr/bin/node", "/opt/mcp/tickets/index.js"),
            "/opt/mcp/tickets", Map.of(), Duration.ofSeconds(20), Duration.ofSeconds(60), 1_048_576,
            List.of(new UpstreamTool("create_ticket", Pins.of(DEFINITION), true, Map.of("queue",
                    new ArgNarrowing(Optional.of(List.of(new JsonValue.JsonString("ops"))), Optional.empty(), Optional.empty(),
                            OptionalInt.empty(), Optional.empty(), Optional.empty())))),
            Optional.empty());

    @Override
    public Allowance exampleAllowance() {
        return SERVER;
    }

    @Override
    public LiveTools listed(LiveTools live) {
        return live.with(SERVER, new LiveTools.Listing.Listed(List.of(DEFINITION)));
    }

    @Override
    public Outcome outcome() {
        return new UpstreamCallOutcome("tickets", "create_ticket", new JsonValue.JsonObject(Map.of("content",
                new JsonValue.JsonArray(List.of(new JsonValue.JsonObject(Map.of("type", new JsonValue.JsonString("text"),
                        "text", new JsonValue.JsonString("opened OPS-1"))))))), false);
    }

    @Override
    public Optional<Outcome> tooLargeForAResult() {
        return Optional.empty();
    }

    private static JsonValue.JsonObject definition() {
        try {
            return JsonValues.object(new StrictJson(1 << 16).parse("{\"name\":\"create_ticket\",\"title\":\"Create a ticket\","
                    + "\"description\":\"Opens a ticket in a queue.\",\"inputSchema\":{\"type\":\"object\",\"properties\":"
                    + "{\"queue\":{\"type\":\"string\"},\"title\":{\"type\":\"string\",\"maxLength\":200}},"
                    + "\"required\":[\"queue\",\"title\"]},\"annotations\":{\"destructiveHint\":false}}"));
        } catch (JsonSyntaxError e) {
            throw new AssertionError(e);
        }
    }
}
