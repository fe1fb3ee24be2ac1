package dev.postern.protocol.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;
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
        ObjectNode outputSchema,
        ObjectNode annotations,
        Function<JsonNode, Binding> binder) {

    /** Names portable to every major client: letters, digits and underscores. */
    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]{0,63}");

    public Tool {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("tool name must match " + NAME.pattern() + ", got " + name);
        }
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(inputSchema, "inputSchema");
        Objects.requireNonNull(outputSchema, "outputSchema");
        Objects.requireNonNull(annotations, "annotations");
        Objects.requireNonNull(binder, "binder");
    }

    /** The entry {@code tools/list} shows. */
    public ObjectNode describe() {
        ObjectNode n = inputSchema.objectNode();
        n.put("name", name);
        n.put("title", title);
        n.put("description", description);
        n.set("inputSchema", inputSchema.deepCopy());
        n.set("outputSchema", outputSchema.deepCopy());
        n.set("annotations", annotations.deepCopy());
        return n;
    }
}
