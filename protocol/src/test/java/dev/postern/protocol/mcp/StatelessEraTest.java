package dev.postern.protocol.mcp;

import static dev.postern.protocol.mcp.McpServerTest.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.port.Stage;
import dev.postern.protocol.tools.TestKinds;
import dev.postern.protocol.tools.ToolCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** MCP 2026-07-28 beside the handshake era: per-request _meta, server/discover, era fixing. */
class StatelessEraTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":{}}";

    private final McpServer server = McpServer.over(new ToolCatalog(TestKinds.ALL, McpServerTest.policy()), new ServerInfo("postern", "test"), McpServer.Limits.frames(1 << 20));

    private Inbound send(String text) {
        return server.receive(frame(text));
    }

    private static JsonNode line(Inbound in) throws Exception {
        return JSON.readTree(assertInstanceOf(Inbound.Respond.class, in).line());
    }

    private static String statelessCall(int id, String url, String meta) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
                + "\"arguments\":{\"method\":\"GET\",\"url\":\"" + url + "\"}" + meta + "}}";
    }

    @Test
    void discoverAnswersBeforeAnythingAndFixesNothing() throws Exception {
        JsonNode r = line(send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{" + META + "}}")).get("result");
        assertEquals("complete", r.get("resultType").textValue());
        assertEquals("2026-07-28", r.get("supportedVersions").get(0).textValue());
        assertTrue(r.get("capabilities").has("tools"));
        assertEquals("postern", r.get("serverInfo").get("name").textValue());
        assertTrue(r.get("ttlMs").asLong() >= 0);
        assertEquals(Era.UNDECIDED, server.era());
        // A normal handshake session still follows.
        assertEquals("2025-06-18", line(send(McpServerTest.INIT)).get("result").get("protocolVersion").textValue());
        assertEquals(Era.HANDSHAKE, server.era());
    }

    @Test
    void aStatelessCallNeedsNoHandshakeAndEveryResultCarriesResultTypeAndIdentity() throws Exception {
        Inbound in = send(statelessCall(2, "http://127.0.0.1:8080/v1/x", "," + META));
        assertInstanceOf(HttpRequestAction.class, assertInstanceOf(Inbound.Execute.class, in).action());
        assertEquals(Era.STATELESS, server.era());
        JsonNode list = line(send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{" + META + "}}")).get("result");
        assertEquals("complete", list.get("resultType").textValue());
        assertEquals("postern", list.get("_meta").get("io.modelcontextprotocol/serverInfo").get("name").textValue());
        assertTrue(list.has("ttlMs") && list.has("cacheScope"));
        JsonNode rendered = JSON.readTree(server.renderOutcome(new dev.postern.protocol.jsonrpc.RequestId.Number(2),
                new dev.postern.policy.outcome.ExecutionFailure(dev.postern.policy.outcome.FailureCode.TIMEOUT, "t"))).get("result");
        assertEquals("complete", rendered.get("resultType").textValue());
    }

    @Test
    void metaIsCheckedOnEveryRequestNeverRememberedFromAnEarlierOne() throws Exception {
        assertInstanceOf(Inbound.Execute.class, send(statelessCall(1, "http://127.0.0.1:8080/v1/a", "," + META)));
        JsonNode error = line(send(statelessCall(2, "http://127.0.0.1:8080/v1/b", ""))).get("error");
        assertEquals(-32602, error.get("code").asInt());
    }

    @Test
    void anUnsupportedVersionIsRefusedWithTheSupportedList() throws Exception {
        Inbound in = send(statelessCall(4, "http://127.0.0.1:8080/v1/x", "," + META.replace("2026-07-28", "2027-01-01")));
        JsonNode error = line(in).get("error");
        assertEquals(-32022, error.get("code").asInt());
        assertEquals("2026-07-28", error.get("data").get("supported").get(0).textValue());
        assertEquals("2027-01-01", error.get("data").get("requested").textValue());
        assertEquals(Stage.MCP, ((Inbound.Respond) in).rejection().orElseThrow().stage());
    }

    @Test
    void missingCapabilitiesAreInvalidParams() throws Exception {
        String meta = ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}";
        assertEquals(-32602, line(send(statelessCall(5, "http://127.0.0.1:8080/v1/x", meta))).get("error").get("code").asInt());
    }

    @ParameterizedTest
    @ValueSource(strings = {"ping", "logging/setLevel"})
    void methodsRemovedInTheStatelessEraDoNotExistThere(String method) throws Exception {
        JsonNode error = line(send("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"" + method + "\",\"params\":{" + META + "}}")).get("error");
        assertEquals(-32601, error.get("code").asInt());
    }

    @Test
    void aHandshakeRequestAfterAStatelessOneIsAmbiguousAndRunsNothing() throws Exception {
        send(statelessCall(1, "http://127.0.0.1:8080/v1/a", "," + META));
        assertEquals(-32602, line(send(McpServerTest.INIT)).get("error").get("code").asInt());
        assertEquals(Era.STATELESS, server.era());
    }

    @Test
    void aStatelessRequestAfterTheHandshakeIsAmbiguousAndRunsNothing() throws Exception {
        send(McpServerTest.INIT);
        send(McpServerTest.INITIALIZED);
        Inbound in = send(statelessCall(7, "http://127.0.0.1:8080/v1/x", "," + META));
        assertEquals(-32602, line(in).get("error").get("code").asInt());
        assertEquals(Era.HANDSHAKE, server.era());
    }

    @Test
    void handshakeResultsCarryNoStatelessDecoration() throws Exception {
        JsonNode r = line(send(McpServerTest.INIT)).get("result");
        assertFalse(r.has("resultType"));
    }
}
