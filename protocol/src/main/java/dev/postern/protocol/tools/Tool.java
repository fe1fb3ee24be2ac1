package dev.postern.protocol.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * One MCP tool: its public description (name, schemas, annotations) and the binder that turns
 * schema-valid arguments into a {@link Binding}. The binder is only ever called after the input
 * schema accepted the arguments.
 */
public record Tool(
        String name,
        String title,
        String description,
        ObjectNode inputSchema,
        Optional<ObjectNode> declaredOutputSchema,
        ObjectNode annotations,
        Function<JsonNode, Binding> binder) {

    /**
     * Names every major client accepts: a letter, then letters, digits, {@code _} and {@code -}, at most
     * 64 in all. Postern's own tools use lower case and {@code _} only; an upstream's keep their name.
     */
    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]{0,63}");

    /** A tool of Postern's own, which always declares its output schema. */
    public Tool(String name, String title, String description, ObjectNode inputSchema, ObjectNode outputSchema,
            ObjectNode annotations, Function<JsonNode, Binding> binder) {
        this(name, title, description, inputSchema, Optional.of(outputSchema), annotations, binder);
    }

    public Tool {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("tool name must match " + NAME.pattern() + ", got " + name);
        }
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(inputSchema, "inputSchema");
        Objects.requireNonNull(declaredOutputSchema, "declaredOutputSchema");
        Objects.requireNonNull(annotations, "annotations");
        Objects.requireNonNull(binder, "binder");
    }

    /** The output schema; every tool of Postern's own declares one (an upstream's tool may not). */
    public ObjectNode outputSchema() {
        return declaredOutputSchema.orElseThrow(() -> new IllegalStateException("tool " + name + " declares no output schema"));
    }

    /** The entry {@code tools/list} shows. */
    public ObjectNode describe() {
        ObjectNode n = inputSchema.objectNode();
        n.put("name", name);
        if (!title.isEmpty()) {
            n.put("title", title); // empty only for an upstream tool that has none
        }
        if (!description.isEmpty()) {
            n.put("description", description);
        }
        n.set("inputSchema", inputSchema.deepCopy());
        declaredOutputSchema.ifPresent(o -> n.set("outputSchema", o.deepCopy()));
        n.set("annotations", annotations.deepCopy());
        return n;
    }
}
