package dev.postern.executor.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.json.JsonValue;
import dev.postern.policy.port.JsonCodec;
import dev.postern.protocol.json.JsonSyntaxError;
import dev.postern.protocol.json.StrictJson;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The gateway's strict JSON (protocol's {@link StrictJson}) behind the {@link JsonCodec} port, for
 * these tests only, until protocol's own adapter ({@code dev.postern.protocol.json.StrictJsonCodec})
 * exists: Jackson trees converted to and from {@link JsonValue}.
 */
final class TestCodec implements JsonCodec {
    private final StrictJson json = new StrictJson(16 * 1024 * 1024);

    @Override
    public JsonValue parse(String text) throws Malformed {
        try {
            return of(json.parse(text));
        } catch (JsonSyntaxError e) {
            throw new Malformed(e.getMessage());
        }
    }

    @Override
    public String write(JsonValue value) {
        try {
            return json.mapper().writeValueAsString(node(value));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JsonValue always writes", e);
        }
    }

    static JsonValue of(JsonNode n) {
        if (n.isObject()) {
            Map<String, JsonValue> members = new LinkedHashMap<>();
            Iterator<Map.Entry<String, JsonNode>> it = n.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                members.put(e.getKey(), of(e.getValue()));
            }
            return new JsonValue.JsonObject(members);
        }
        if (n.isArray()) {
            List<JsonValue> elements = new ArrayList<>();
            n.forEach(e -> elements.add(of(e)));
            return new JsonValue.JsonArray(elements);
        }
        if (n.isTextual()) {
            return new JsonValue.JsonString(n.textValue());
        }
        if (n.isNumber()) {
            return new JsonValue.JsonNumber(n.isBigInteger() || n.isIntegralNumber() ? new BigDecimal(n.bigIntegerValue()) : n.decimalValue());
        }
        if (n.isBoolean()) {
            return n.booleanValue() ? JsonValue.JsonBoolean.TRUE : JsonValue.JsonBoolean.FALSE;
        }
        return JsonValue.JsonNull.NULL;
    }

    static JsonNode node(JsonValue v) {
        JsonNodeFactory f = JsonNodeFactory.withExactBigDecimals(true);
        if (v instanceof JsonValue.JsonObject o) {
            ObjectNode out = f.objectNode();
            o.members().forEach((k, m) -> out.set(k, node(m)));
            return out;
        }
        if (v instanceof JsonValue.JsonArray a) {
            ArrayNode out = f.arrayNode();
            a.elements().forEach(e -> out.add(node(e)));
            return out;
        }
        if (v instanceof JsonValue.JsonString s) {
            return f.textNode(s.value());
        }
        if (v instanceof JsonValue.JsonNumber n) {
            return f.numberNode(n.value());
        }
        if (v instanceof JsonValue.JsonBoolean b) {
            return f.booleanNode(b.value());
        }
        return f.nullNode();
    }
}
