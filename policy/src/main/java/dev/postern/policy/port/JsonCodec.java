package dev.postern.policy.port;

import dev.postern.policy.json.JsonValue;

/**
 * The gateway's own strict JSON, lent to the one executor whose effect is JSON-RPC (upstream MCP
 * servers): the same parser that reads the agent's frames (one implementation, never a laxer second
 * one), behind a port so that the executor sees no parser library. Thread-safe.
 */
public interface JsonCodec {

    /** Exactly one strict JSON value (no duplicate keys, no lone surrogates, nothing after it), or {@link Malformed}. */
    JsonValue parse(String text) throws Malformed;

    /** The value as compact JSON, members in their order; never a line break. */
    String write(JsonValue value);

    /** A text that is not exactly one strict JSON value; the message says why, without the text. */
    final class Malformed extends Exception {
        public Malformed(String message) {
            super(message);
        }
    }
}
