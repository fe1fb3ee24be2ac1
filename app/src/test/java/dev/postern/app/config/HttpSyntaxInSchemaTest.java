package dev.postern.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.policy.model.HttpSyntax;
import java.io.IOException;
import java.io.InputStream;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The config schema is a file, so it cannot name {@link HttpSyntax}; this test holds its HTTP method
 * and header-name patterns to it (an OTLP exporter's header names too), and finds any other pattern that copies either syntax.
 */
class HttpSyntaxInSchemaTest {
    private static final String SCHEMA = "/dev/postern/app/postern-config.schema.json";
    private static final String HTTP_TARGET = "/properties/http/properties/targets/items/properties/";

    @Test
    void theSchemasMethodAndHeaderPatternsAreTheKernelsSyntax() throws IOException {
        JsonNode schema;
        try (InputStream in = HttpSyntaxInSchemaTest.class.getResourceAsStream(SCHEMA)) {
            schema = new ObjectMapper().readTree(in);
        }
        Map<String, String> copies = new TreeMap<>();
        collect(schema, "", copies);

        String method = "^" + HttpSyntax.METHOD + "$";
        String token = "^" + HttpSyntax.TOKEN + "$";
        assertEquals(Map.of(
                HTTP_TARGET + "methods/items/pattern", method,
                HTTP_TARGET + "confirm/items/pattern", method,
                HTTP_TARGET + "confirm/properties/methods/items/pattern", method,
                HTTP_TARGET + "headers/items/pattern", token,
                HTTP_TARGET + "auth/properties/header/pattern", token,
                "/properties/telemetry/properties/headers/propertyNames/pattern", token), copies);
    }

    /** Every pattern that spells a method or a token character class, by pointer. */
    private static void collect(JsonNode node, String pointer, Map<String, String> out) {
        if (node.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> f = fields.next();
                String at = pointer + '/' + f.getKey().replace("~", "~0").replace("/", "~1");
                JsonNode v = f.getValue();
                if (f.getKey().equals("pattern") && v.isTextual()
                        && (v.textValue().contains("[A-Z]{") || v.textValue().contains("^_`|~"))) {
                    out.put(at, v.textValue());
                } else {
                    collect(v, at, out);
                }
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                collect(node.get(i), pointer + '/' + i, out);
            }
        }
    }
}
