package dev.postern.protocol.tools;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Strict readers of the fields of an {@code asked} object ({@link EffectKind#asked}): each returns
 * empty when the field is absent or of another shape, never a default. Stateless.
 */
final class AskedFields {
    private AskedFields() {
    }

    static Optional<String> text(JsonNode asked, String field) {
        JsonNode v = asked.get(field);
        return v != null && v.isTextual() ? Optional.of(v.textValue()) : Optional.empty();
    }

    /** An array of {@code {name, value}} string pairs, in order. */
    static Optional<List<Map.Entry<String, String>>> pairs(JsonNode asked, String field) {
        JsonNode v = asked.get(field);
        if (v == null || !v.isArray()) {
            return Optional.empty();
        }
        List<Map.Entry<String, String>> out = new ArrayList<>();
        for (JsonNode p : v) {
            if (!p.isObject() || p.size() != 2 || !p.path("name").isTextual() || !p.path("value").isTextual()) {
                return Optional.empty();
            }
            out.add(Map.entry(p.get("name").textValue(), p.get("value").textValue()));
        }
        return Optional.of(out);
    }

    /** An object whose every member {@code value} reads (empty when one does not). */
    static <V> Optional<Map<String, V>> members(JsonNode asked, String field, Function<JsonNode, Optional<V>> value) {
        JsonNode v = asked.get(field);
        if (v == null || !v.isObject()) {
            return Optional.empty();
        }
        Map<String, V> out = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = v.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            Optional<V> read = value.apply(e.getValue());
            if (read.isEmpty()) {
                return Optional.empty();
            }
            out.put(e.getKey(), read.get());
        }
        return Optional.of(out);
    }

    /** A whole number that fits 64 bits, as the binders accept it. */
    static boolean whole(JsonNode v) {
        return v.isIntegralNumber() && v.canConvertToLong();
    }
}
