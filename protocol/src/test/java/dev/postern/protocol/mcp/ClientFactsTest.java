package dev.postern.protocol.mcp;

import static dev.postern.protocol.mcp.McpServerTest.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.postern.protocol.tools.TestKinds;
import dev.postern.protocol.tools.ToolCatalog;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Who the client is, as the server records it once the era is fixed: from {@code clientInfo} at
 * initialize, or from the first stateless request's {@code _meta} ({@code unknown} for what it does
 * not give), never changed by a later request; every string cut at 256 characters.
 */
class ClientFactsTest {
    private final McpServer server = McpServer.over(new ToolCatalog(TestKinds.ALL, McpServerTest.policy()), new ServerInfo("postern", "test"), McpServer.Limits.frames(1 << 20));

    private static String statelessList(int id, String clientInfo) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/list\",\"params\":{\"_meta\":{"
                + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}"
                + clientInfo + "}}}";
    }

    @Test
    void noClientIsKnownBeforeTheEraIsFixed() {
        assertEquals(Optional.empty(), server.client());
    }

    @Test
    void initializeRecordsTheClientInfoAndTheNegotiatedVersion() {
        server.receive(frame(McpServerTest.INIT));
        assertEquals(new ClientFacts("t", "1", Era.HANDSHAKE, "2025-06-18"), server.client().orElseThrow());
    }

    @Test
    void theFirstStatelessRequestRecordsTheClientItsMetaNamesAndLaterOnesChangeNothing() {
        assertInstanceOf(Inbound.Respond.class, server.receive(frame(statelessList(1,
                ",\"io.modelcontextprotocol/clientInfo\":{\"name\":\"agent\",\"version\":\"2.1\"}"))));
        assertEquals(new ClientFacts("agent", "2.1", Era.STATELESS, "2026-07-28"), server.client().orElseThrow());
        server.receive(frame(statelessList(2, ",\"io.modelcontextprotocol/clientInfo\":{\"name\":\"other\",\"version\":\"9\"}")));
        assertEquals("agent", server.client().orElseThrow().name());
    }

    @Test
    void aStatelessClientThatNamesNothingIsUnknown() {
        server.receive(frame(statelessList(1, ",\"io.modelcontextprotocol/clientInfo\":{\"name\":7}")));
        assertEquals(new ClientFacts("unknown", "unknown", Era.STATELESS, "2026-07-28"), server.client().orElseThrow());
    }

    @Test
    void stringsFromTheClientAreCutAt256Characters() {
        String exact = "n".repeat(ClientFacts.MAX_CHARS);
        ClientFacts facts = new ClientFacts(exact, exact + "v", Era.HANDSHAKE, "");
        assertEquals(exact, facts.name());
        assertEquals(exact, facts.version());
        assertEquals("", facts.protocolVersion());
    }
}
