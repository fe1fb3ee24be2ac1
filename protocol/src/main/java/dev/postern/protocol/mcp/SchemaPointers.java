package dev.postern.protocol.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which failing JSON pointers may be journaled: those made only of array indices and of property
 * names the tool's own input schema declares, so a client's undeclared key (raw input) never enters
 * the journal. Stateless.
 */
final class SchemaPointers {
    private static final Pattern INDEX = Pattern.compile("0|[1-9][0-9]{0,8}");

    private SchemaPointers() {
    }

    /** {@code pointer} when every segment is an index or a name {@code schema} declares; empty otherwise. */
    static Optional<String> declared(String pointer, JsonNode schema) {
        if (pointer.isEmpty()) {
            return Optional.of(pointer);
        }
        Set<String> names = new HashSet<>();
        collect(schema, names, 0);
        for (String segment : pointer.substring(1).split("/", -1)) {
            String name = segment.replace("~1", "/").replace("~0", "~");
            if (!INDEX.matcher(segment).matches() && !names.contains(name)) {
                return Optional.empty();
            }
        }
        return Optional.of(pointer);
    }

    private static void collect(JsonNode node, Set<String> names, int depth) {
        if (depth > 64 || node == null || !node.isContainerNode()) {
            return;
        }
        JsonNode properties = node.get("properties");
        if (properties != null && properties.isObject()) {
            properties.fieldNames().forEachRemaining(names::add);
        }
        for (Iterator<JsonNode> children = node.elements(); children.hasNext(); ) {
            collect(children.next(), names, depth + 1);
        }
    }
}
