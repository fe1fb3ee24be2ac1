package dev.postern.protocol.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.json.JsonValue;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Converts between Jackson trees and the kernel's immutable {@link JsonValue}, both ways, exactly:
 * member order kept, numbers as exact decimals. The tree must come from {@link StrictJson} (no
 * duplicate keys, no non-finite numbers), which is the only parser allowed to make one.
 */
public final class JsonValues {
    private static final JsonNodeFactory JSON = JsonNodeFactory.withExactBigDecimals(true);

    private JsonValues() {
    }

    public static JsonValue of(JsonNode node) {
        if (node.isObject()) {
            Map<String, JsonValue> members = new LinkedHashMap<>();
            Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> e = fields.next();
                members.put(e.getKey(), of(e.getValue()));
            }
            return new JsonValue.JsonObject(members);
        }
        if (node.isArray()) {
            List<JsonValue> elements = new ArrayList<>(node.size());
            node.forEach(n -> elements.add(of(n)));
            return new JsonValue.JsonArray(elements);
        }
        if (node.isTextual()) {
            return new JsonValue.JsonString(node.textValue());
        }
        if (node.isNumber()) {
            return new JsonValue.JsonNumber(node.isBigDecimal() || node.isFloatingPointNumber() ? node.decimalValue()
                    : new BigDecimal(node.bigIntegerValue()));
        }
        if (node.isBoolean()) {
            return node.booleanValue() ? JsonValue.JsonBoolean.TRUE : JsonValue.JsonBoolean.FALSE;
        }
        if (node.isNull()) {
            return JsonValue.JsonNull.NULL;
        }
        throw new IllegalArgumentException("not a JSON value: " + node.getNodeType());
    }

    /** An object node as the kernel's object. */
    public static JsonValue.JsonObject object(JsonNode node) {
        if (!node.isObject()) {
            throw new IllegalArgumentException("not a JSON object");
        }
        return (JsonValue.JsonObject) of(node);
    }

    public static JsonNode node(JsonValue value) {
        if (value instanceof JsonValue.JsonObject o) {
            return objectNode(o);
        }
        if (value instanceof JsonValue.JsonArray a) {
            ArrayNode array = JSON.arrayNode();
            a.elements().forEach(e -> array.add(node(e)));
            return array;
        }
        if (value instanceof JsonValue.JsonString s) {
            return JSON.textNode(s.value());
        }
        if (value instanceof JsonValue.JsonNumber n) {
            BigDecimal d = n.value();
            return d.scale() <= 0 && d.precision() - d.scale() <= 19 ? JSON.numberNode(d.toBigIntegerExact()) : JSON.numberNode(d);
        }
        if (value instanceof JsonValue.JsonBoolean b) {
            return JSON.booleanNode(b.value());
        }
        return JSON.nullNode();
    }

    public static ObjectNode objectNode(JsonValue.JsonObject object) {
        ObjectNode n = JSON.objectNode();
        object.members().forEach((k, v) -> n.set(k, node(v)));
        return n;
    }
}
