package dev.postern.protocol.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A failing pointer is journaled only when the tool's schema declares every name in it. */
class SchemaPointersTest {
    private static final JsonNode SCHEMA;

    static {
        try {
            SCHEMA = new ObjectMapper().readTree("{\"type\":\"object\",\"properties\":{\"args\":{\"type\":\"object\","
                    + "\"properties\":{\"min\":{\"type\":\"number\"},\"a/b\":{\"type\":\"string\"}}},"
                    + "\"items\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"id\":{}}}}}}");
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void declaredNamesAndIndicesAreKept() {
        assertEquals(Optional.of("/args/min"), SchemaPointers.declared("/args/min", SCHEMA));
        assertEquals(Optional.of("/items/3/id"), SchemaPointers.declared("/items/3/id", SCHEMA));
        assertEquals(Optional.of("/args/a~1b"), SchemaPointers.declared("/args/a~1b", SCHEMA), "an escaped declared name");
        assertEquals(Optional.of(""), SchemaPointers.declared("", SCHEMA), "the arguments as a whole");
    }

    @Test
    void aClientsOwnKeyAnywhereInThePointerDropsIt() {
        assertEquals(Optional.empty(), SchemaPointers.declared("/secret-token-value", SCHEMA));
        assertEquals(Optional.empty(), SchemaPointers.declared("/args/min/secret", SCHEMA));
        assertEquals(Optional.empty(), SchemaPointers.declared("/items/01", SCHEMA), "not an index as JSON Pointer writes one");
    }
}
