package dev.postern.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Judges what a client sent a gateway ({@link PackagedGateway#clientRequests()}): which MCP era it
 * spoke. Stateless.
 */
final class ClientWire {
    static final String STATELESS_VERSION = "2026-07-28";

    private ClientWire() {
    }

    /**
     * Asserts the client spoke only the stateless era: it never sent {@code initialize}, and every
     * request carried {@code _meta} with protocol version 2026-07-28 and its capabilities, starting
     * with {@code server/discover}. Returns the requests' methods in order.
     */
    static List<String> assertSpokeTheStatelessEra(List<JsonNode> sent, String context) {
        List<String> methods = new ArrayList<>();
        for (JsonNode message : sent) {
            if (!message.has("id") || !message.has("method")) {
                continue;
            }
            String method = message.path("method").asText();
            methods.add(method);
            JsonNode meta = message.path("params").path("_meta");
            assertEquals(STATELESS_VERSION, meta.path("io.modelcontextprotocol/protocolVersion").asText(),
                    method + " carries the stateless protocol version in _meta\n" + context);
            assertTrue(meta.path("io.modelcontextprotocol/clientCapabilities").isObject(),
                    method + " carries its client capabilities in _meta\n" + context);
        }
        assertFalse(methods.contains("initialize"), "no initialize handshake: " + methods + "\n" + context);
        assertFalse(methods.isEmpty(), "the client sent requests\n" + context);
        assertEquals("server/discover", methods.get(0), "the client began by discovering: " + methods + "\n" + context);
        return methods;
    }
}
