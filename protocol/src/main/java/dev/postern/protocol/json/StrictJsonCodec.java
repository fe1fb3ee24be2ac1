package dev.postern.protocol.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.postern.policy.json.JsonValue;
import dev.postern.policy.port.JsonCodec;

/**
 * The {@link JsonCodec} port over the gateway's own {@link StrictJson}: what the upstream MCP executor
 * reads its servers' lines with, so an upstream's stdout meets exactly the rules the agent's stdin does.
 * Thread-safe.
 */
public final class StrictJsonCodec implements JsonCodec {
    private final StrictJson strict;

    /** A codec whose strings may be up to {@code maxStringLength} characters (the line limit bounds them anyway). */
    public StrictJsonCodec(int maxStringLength) {
        this.strict = new StrictJson(maxStringLength);
    }

    @Override
    public JsonValue parse(String text) throws Malformed {
        try {
            return JsonValues.of(strict.parse(text));
        } catch (JsonSyntaxError e) {
            throw new Malformed(e.getMessage());
        }
    }

    @Override
    public String write(JsonValue value) {
        try {
            return strict.mapper().writeValueAsString(JsonValues.node(value));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON value that cannot be written", e);
        }
    }
}
