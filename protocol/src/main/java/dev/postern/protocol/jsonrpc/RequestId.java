package dev.postern.protocol.jsonrpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.Objects;

/** A JSON-RPC request id: a string or an integer that fits in a long. Never null, bool or float. */
public sealed interface RequestId {

    JsonNode toJson();

    record Text(String value) implements RequestId {
        public Text {
            Objects.requireNonNull(value, "value");
        }

        @Override
        public JsonNode toJson() {
            return JsonNodeFactory.instance.textNode(value);
        }
    }

    record Number(long value) implements RequestId {
        @Override
        public JsonNode toJson() {
            return JsonNodeFactory.instance.numberNode(value);
        }
    }

    /** The id in {@code node}, or empty if it is not of an allowed type. */
    static java.util.Optional<RequestId> of(JsonNode node) {
        if (node.isTextual()) {
            return java.util.Optional.of(new Text(node.textValue()));
        }
        if (node.isIntegralNumber() && node.canConvertToLong()) {
            return java.util.Optional.of(new Number(node.longValue()));
        }
        return java.util.Optional.empty();
    }
}
