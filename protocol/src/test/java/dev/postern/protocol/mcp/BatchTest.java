package dev.postern.protocol.mcp;

import static dev.postern.protocol.mcp.McpServerTest.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.protocol.tools.TestKinds;
import dev.postern.protocol.tools.ToolCatalog;
import org.junit.jupiter.api.Test;

/** JSON-RPC batches exist only in a 2025-03-26 session, and every element is checked before any runs. */
class BatchTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CALL = "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
            + "\"arguments\":{\"method\":\"GET\",\"url\":\"http://127.0.0.1:8080/v1/x\"}}}";

    private final McpServer server = McpServer.over(new ToolCatalog(TestKinds.ALL, McpServerTest.policy()), new ServerInfo("postern", "test"), McpServer.Limits.frames(1 << 20));

    private void handshake(String version) {
        server.receive(frame(McpServerTest.INIT.replace("2025-06-18", version)));
        server.receive(frame(McpServerTest.INITIALIZED));
    }

    @Test
    void aBatchInA20250326SessionBecomesItsParts() {
        handshake("2025-03-26");
        Inbound in = server.receive(frame("[" + CALL.formatted(2) + ",{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}]"));
        Inbound.Batch batch = assertInstanceOf(Inbound.Batch.class, in);
        assertInstanceOf(Inbound.Execute.class, batch.parts().get(0));
        assertInstanceOf(Inbound.Respond.class, batch.parts().get(1));
    }

    @Test
    void oneInvalidElementRejectsTheWholeBatchBeforeAnyRuns() throws Exception {
        handshake("2025-03-26");
        Inbound in = server.receive(frame("[" + CALL.formatted(2) + ",{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"ping\"}]"));
        Inbound.Close close = assertInstanceOf(Inbound.Close.class, in);
        assertEquals(-32600, JSON.readTree(close.line()).get("error").get("code").asInt());
    }

    @Test
    void initializeInsideABatchRejectsIt() {
        handshake("2025-03-26");
        assertInstanceOf(Inbound.Close.class, server.receive(frame("[" + CALL.formatted(2) + "," + McpServerTest.INIT + "]")));
    }

    @Test
    void anEmptyBatchIsInvalid() {
        handshake("2025-03-26");
        assertInstanceOf(Inbound.Close.class, server.receive(frame("[]")));
    }

    @Test
    void batchesAreRefusedInNewerSessions() {
        handshake("2025-06-18");
        assertInstanceOf(Inbound.Close.class, server.receive(frame("[" + CALL.formatted(2) + "]")));
    }
}
