package dev.postern.protocol.tools;

import static dev.postern.protocol.tools.ToolCatalog.JSON;
import static dev.postern.protocol.tools.ToolCatalog.objectSchema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.model.ParamSpec;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * What the static kinds share to offer one operation as a tool of its own ({@link StaticToolKind#typedTools}):
 * an input schema that says exactly what the operation's params accept, and a binder that rewrites the
 * typed arguments into the generic tool's and binds them with the generic binder, so both tools build the
 * very same action. Stateless.
 */
final class TypedTools {
    private TypedTools() {
    }

    /**
     * The params as an input schema: each param by name with its type and every bound, enum and pattern
     * (anchored, since the policy matches a pattern against the whole value), every param required (the
     * policy fills every placeholder), nothing else accepted.
     */
    static ObjectNode paramsSchema(Map<String, ParamSpec> params) {
        ObjectNode in = objectSchema();
        ObjectNode properties = in.putObject("properties");
        new TreeMap<>(params).forEach((name, spec) -> {
            ObjectNode p = ParamSchema.describe(spec);
            if (p.has("pattern")) {
                p.put("pattern", "^(?:" + p.get("pattern").textValue() + ")$");
            }
            properties.set(name, p);
        });
        if (!params.isEmpty()) {
            new TreeMap<>(params).keySet().forEach(in.putArray("required")::add);
        }
        return in;
    }

    /**
     * A typed tool's binder: {@code generic} made of the typed arguments by {@code toGeneric}, bound by the
     * generic tool's {@code binder}; a refusal's pointer into the generic {@code /args} is given back as the
     * typed tool's own.
     */
    static Function<JsonNode, Binding> binding(Function<JsonNode, ObjectNode> toGeneric, Function<JsonNode, Binding> binder) {
        return typed -> {
            Binding b = binder.apply(toGeneric.apply(typed));
            if (b instanceof Binding.Invalid invalid && invalid.pointer().startsWith("/args/")) {
                return new Binding.Invalid(invalid.pointer().substring("/args".length()), invalid.message());
            }
            return b;
        };
    }

    /** The generic arguments of a named operation: {@code {<where>: whereName, <what>: whatName, args: <the typed arguments>}}. */
    static ObjectNode named(String where, String whereName, String what, String whatName, JsonNode typed) {
        ObjectNode generic = JSON.objectNode();
        generic.put(where, whereName);
        generic.put(what, whatName);
        generic.set("args", typed.deepCopy());
        return generic;
    }

    /** A regular-expression literal matching {@code text} exactly, in the syntax JSON Schema's ECMA-262 and Java share. */
    static String literal(String text) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if ("^$\\.*+?()[]{}|".indexOf(c) >= 0) {
                b.append('\\');
            }
            b.append(c);
        }
        return b.toString();
    }
}
