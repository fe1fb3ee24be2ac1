package dev.postern.policy.port;

import dev.postern.policy.json.JsonValue;
import dev.postern.policy.json.JsonValue.JsonObject;
import java.util.Optional;

/**
 * JSON Schema validation as the gateway validates tool arguments, lent to the upstream MCP executor
 * so that it checks an upstream's {@code structuredContent} against the tool's pinned
 * {@code outputSchema} without seeing a schema library. Thread-safe.
 */
public interface SchemaValidator {

    /**
     * {@code schema} compiled once, for many values. Total: a schema the gateway cannot use (one that
     * refers outside itself, or does not compile) gives a check that refuses every value, saying why.
     */
    Check compile(JsonObject schema);

    /** One compiled schema. Thread-safe; never throws. */
    interface Check {
        /** Why {@code value} does not conform (the first failing JSON pointer and why), or empty when it does. */
        Optional<String> problem(JsonValue value);
    }
}
