package dev.postern.policy.json;

import java.math.BigDecimal;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One JSON value, immutable and exact: objects keep their members' order, numbers are exact decimals.
 * Its {@link #canonical()} text is RFC 8785's (JCS), so two values that mean the same JSON have one
 * canonical form, which pins and digests are taken over. Values come from the gateway's strict parser
 * (duplicate keys, lone surrogates and the rest are refused before one is built).
 */
public sealed interface JsonValue
        permits JsonValue.JsonObject, JsonValue.JsonArray, JsonValue.JsonString, JsonValue.JsonNumber, JsonValue.JsonBoolean,
        JsonValue.JsonNull {

    /** The RFC 8785 canonical text: members sorted by UTF-16 code units, numbers as ECMAScript prints them, no white space. */
    default String canonical() {
        StringBuilder out = new StringBuilder();
        Canonical.write(this, out);
        return out.toString();
    }

    /** An object; its members in the order they were given, each key once. */
    record JsonObject(Map<String, JsonValue> members) implements JsonValue {
        public JsonObject {
            Objects.requireNonNull(members, "members");
            LinkedHashMap<String, JsonValue> copy = new LinkedHashMap<>();
            members.forEach((k, v) -> copy.put(Objects.requireNonNull(k, "member name"), Objects.requireNonNull(v, "member " + k)));
            members = Collections.unmodifiableMap(copy);
        }

        public static JsonObject empty() {
            return new JsonObject(Map.of());
        }

        public Optional<JsonValue> get(String name) {
            return Optional.ofNullable(members.get(name));
        }

        /** The member as an object, if it is one. */
        public Optional<JsonObject> object(String name) {
            return get(name).filter(JsonObject.class::isInstance).map(JsonObject.class::cast);
        }

        /** The member as a string, if it is one. */
        public Optional<String> string(String name) {
            return get(name).filter(JsonString.class::isInstance).map(v -> ((JsonString) v).value());
        }

        /** A copy with only the named members, in this object's order. */
        public JsonObject only(List<String> names) {
            LinkedHashMap<String, JsonValue> kept = new LinkedHashMap<>();
            members.forEach((k, v) -> {
                if (names.contains(k)) {
                    kept.put(k, v);
                }
            });
            return new JsonObject(kept);
        }

        /** A copy with {@code name} set to {@code value} (replaced in place, or added last). */
        public JsonObject with(String name, JsonValue value) {
            LinkedHashMap<String, JsonValue> copy = new LinkedHashMap<>(members);
            copy.put(name, value);
            return new JsonObject(copy);
        }
    }

    record JsonArray(List<JsonValue> elements) implements JsonValue {
        public JsonArray {
            elements = List.copyOf(Objects.requireNonNull(elements, "elements"));
        }
    }

    record JsonString(String value) implements JsonValue {
        public JsonString {
            Objects.requireNonNull(value, "value");
        }
    }

    /** An exact number; its canonical form is the nearest IEEE double's, as RFC 8785 requires. */
    record JsonNumber(BigDecimal value) implements JsonValue {
        public JsonNumber {
            Objects.requireNonNull(value, "value");
        }

        public static JsonNumber of(long value) {
            return new JsonNumber(BigDecimal.valueOf(value));
        }
    }

    record JsonBoolean(boolean value) implements JsonValue {
        public static final JsonBoolean TRUE = new JsonBoolean(true);
        public static final JsonBoolean FALSE = new JsonBoolean(false);
    }

    record JsonNull() implements JsonValue {
        public static final JsonNull NULL = new JsonNull();
    }
}
