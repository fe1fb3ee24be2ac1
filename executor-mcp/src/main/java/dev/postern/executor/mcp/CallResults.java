package dev.postern.executor.mcp;

import dev.postern.policy.json.JsonValue;
import dev.postern.policy.json.JsonValue.JsonArray;
import dev.postern.policy.json.JsonValue.JsonBoolean;
import dev.postern.policy.json.JsonValue.JsonObject;
import dev.postern.policy.json.JsonValue.JsonString;
import dev.postern.policy.port.SecretMask;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;

/**
 * Checks an upstream's {@code tools/call} result against the shape of MCP's {@code CallToolResult}
 * ({@code content} an array of items of the five known types, each well-formed; {@code isError} a
 * boolean; {@code structuredContent} and {@code _meta} objects), and masks secrets inside its string
 * values and member names so the result stays valid JSON. {@code structuredContent} against the
 * pinned {@code outputSchema} is checked by {@link ToolCall}, with the gateway's schema validator
 * lent through the {@code SchemaValidator} port. Stateless.
 */
final class CallResults {
    private CallResults() {
    }

    /** What is wrong with the result's shape, in words fit for the agent, or empty when it is a well-formed CallToolResult. */
    static Optional<String> problem(JsonValue result) {
        if (!(result instanceof JsonObject o)) {
            return Optional.of("the result is not an object");
        }
        Optional<JsonValue> content = o.get("content");
        if (content.isEmpty() || !(content.get() instanceof JsonArray items)) {
            return Optional.of("the result has no content array");
        }
        for (int i = 0; i < items.elements().size(); i++) {
            Optional<String> wrong = itemProblem(items.elements().get(i));
            if (wrong.isPresent()) {
                return Optional.of("content item " + i + " " + wrong.get());
            }
        }
        if (o.get("isError").isPresent() && !(o.get("isError").get() instanceof JsonBoolean)) {
            return Optional.of("isError is not a boolean");
        }
        if (o.get("structuredContent").isPresent() && !(o.get("structuredContent").get() instanceof JsonObject)) {
            return Optional.of("structuredContent is not an object");
        }
        if (o.get("_meta").isPresent() && !(o.get("_meta").get() instanceof JsonObject)) {
            return Optional.of("_meta is not an object");
        }
        return Optional.empty();
    }

    static boolean isError(JsonObject result) {
        return result.get("isError").filter(JsonBoolean.class::isInstance).map(b -> ((JsonBoolean) b).value()).orElse(false);
    }

    private static Optional<String> itemProblem(JsonValue item) {
        if (!(item instanceof JsonObject o)) {
            return Optional.of("is not an object");
        }
        if (o.get("annotations").isPresent() && !(o.get("annotations").get() instanceof JsonObject)) {
            return Optional.of("has annotations that are not an object");
        }
        if (o.get("_meta").isPresent() && !(o.get("_meta").get() instanceof JsonObject)) {
            return Optional.of("has _meta that is not an object");
        }
        String type = o.string("type").orElse("");
        switch (type) {
            case "text":
                return require(o, "text");
            case "image":
            case "audio":
                return require(o, "data").or(() -> require(o, "mimeType"))
                        .or(() -> base64(o.string("data").orElseThrow()) ? Optional.empty() : Optional.of("has data that is not base64"));
            case "resource_link":
                return require(o, "uri").or(() -> require(o, "name"));
            case "resource":
                Optional<JsonObject> resource = o.object("resource");
                if (resource.isEmpty()) {
                    return Optional.of("has no resource object");
                }
                JsonObject r = resource.get();
                boolean text = r.string("text").isPresent();
                boolean blob = r.string("blob").isPresent();
                if (r.string("uri").isEmpty() || text == blob) {
                    return Optional.of("has a resource without a uri and exactly one of text or blob");
                }
                return blob && !base64(r.string("blob").orElseThrow()) ? Optional.of("has a blob that is not base64") : Optional.empty();
            default:
                return Optional.of("has no known type");
        }
    }

    private static Optional<String> require(JsonObject o, String member) {
        return o.string(member).isPresent() ? Optional.empty() : Optional.of("has no " + member + " string");
    }

    private static boolean base64(String text) {
        try {
            Base64.getDecoder().decode(text);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /**
     * The value with every string and member name masked. Two member names that mask to the same text
     * (both echoing a secret) keep the later one's value: the result stays one valid object.
     */
    static JsonValue mask(JsonValue value, SecretMask mask) {
        if (value instanceof JsonString s) {
            String masked = mask.mask(s.value());
            return masked.equals(s.value()) ? s : new JsonString(masked);
        }
        if (value instanceof JsonArray a) {
            List<JsonValue> out = new ArrayList<>(a.elements().size());
            a.elements().forEach(e -> out.add(mask(e, mask)));
            return new JsonArray(out);
        }
        if (value instanceof JsonObject o) {
            LinkedHashMap<String, JsonValue> out = new LinkedHashMap<>();
            o.members().forEach((k, v) -> out.put(mask.mask(k), mask(v, mask)));
            return new JsonObject(out);
        }
        return value;
    }
}
