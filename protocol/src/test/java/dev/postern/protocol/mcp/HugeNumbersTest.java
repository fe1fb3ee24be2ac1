package dev.postern.protocol.mcp;

import dev.postern.protocol.tools.TestKinds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.protocol.tools.ToolCatalog;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Numbers a double cannot hold (1e309 reads as Infinity) or that are huge exactly (1e999999999) are
 * parsed exactly and reach the schema as ordinary wrong-typed or out-of-range values: an
 * {@code isError} result naming the pointer, no action, and the session continues. In both eras.
 */
class HugeNumbersTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String STATELESS_META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":{}}";

    static Stream<Arguments> hostileNumbers() {
        Stream.Builder<Arguments> b = Stream.builder();
        for (String n : new String[] {"1e309", "-1e309", "1e999", "1E999999999", "-1e-999999999", "123456789012345678901234567890",
                "0.000000000000000000000000000000000001e-400", "1.0", "4e2"}) {
            for (boolean stateless : new boolean[] {false, true}) {
                b.add(Arguments.of(n, stateless, "ssh_exec", "{\"host\":" + n + ",\"command\":\"tail\"}", "/host"));
                b.add(Arguments.of(n, stateless, "ssh_exec", "{\"host\":\"web\",\"command\":" + n + "}", "/command"));
                b.add(Arguments.of(n, stateless, "ssh_exec", "{\"host\":\"web\",\"command\":\"tail\",\"args\":{\"lines\":" + n + "}}", "/args/lines"));
                b.add(Arguments.of(n, stateless, "http_request", "{\"method\":" + n + ",\"url\":\"http://127.0.0.1:8080/v1\"}", "/method"));
                b.add(Arguments.of(n, stateless, "http_request", "{\"method\":\"GET\",\"url\":\"http://127.0.0.1:8080/v1\",\"query\":{\"a\":" + n + "}}", "/query/a"));
                b.add(Arguments.of(n, stateless, "postern_targets", "{\"x\":" + n + "}", ""));
            }
        }
        return b.build();
    }

    @ParameterizedTest(name = "{2} {0} stateless={1}")
    @MethodSource("hostileNumbers")
    void aHugeOrNonFiniteNumberIsAnOrdinarySchemaErrorAndTheSessionContinues(String number, boolean stateless, String tool,
            String arguments, String pointer) throws Exception {
        McpServer server = McpServer.over(new ToolCatalog(TestKinds.ALL, McpServerTest.policy()), new ServerInfo("postern", "test"), McpServer.Limits.frames(1 << 20));
        if (!stateless) {
            server.receive(McpServerTest.frame(McpServerTest.INIT));
            server.receive(McpServerTest.frame(McpServerTest.INITIALIZED));
        }
        String meta = stateless ? "," + STATELESS_META : "";
        Inbound in = server.receive(McpServerTest.frame("{\"jsonrpc\":\"2.0\",\"id\":102,\"method\":\"tools/call\",\"params\":{\"name\":\""
                + tool + "\",\"arguments\":" + arguments + meta + "}}"));

        Inbound.Respond r = assertInstanceOf(Inbound.Respond.class, in, "a schema rejection, never an action or a close");
        JsonNode result = JSON.readTree(r.line()).get("result");
        assertTrue(result.get("isError").asBoolean(), r.line());
        JsonNode error = JSON.readTree(result.get("content").get(0).get("text").textValue()).get("error");
        assertEquals("INVALID_ARGUMENTS", error.get("code").textValue(), r.line());
        assertTrue(error.get("pointer").textValue().startsWith(pointer), r.line());
        String ping = stateless
                ? "{\"jsonrpc\":\"2.0\",\"id\":103,\"method\":\"tools/list\",\"params\":{" + STATELESS_META + "}}"
                : "{\"jsonrpc\":\"2.0\",\"id\":103,\"method\":\"ping\"}";
        assertInstanceOf(Inbound.Respond.class, server.receive(McpServerTest.frame(ping)), "the session continues");
    }

    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.CsvSource({"1e400, false", "1e-400, false", "1e401, true", "1e-401, true"})
    void theExponentLimitIsFourHundredInclusive(String number, boolean refusedForExponent) throws Exception {
        McpServer server = McpServer.over(new ToolCatalog(TestKinds.ALL, McpServerTest.policy()), new ServerInfo("postern", "test"), McpServer.Limits.frames(1 << 20));
        server.receive(McpServerTest.frame(McpServerTest.INIT));
        server.receive(McpServerTest.frame(McpServerTest.INITIALIZED));
        Inbound in = server.receive(McpServerTest.frame("{\"jsonrpc\":\"2.0\",\"id\":102,\"method\":\"tools/call\",\"params\":{"
                + "\"name\":\"ssh_exec\",\"arguments\":{\"host\":\"web\",\"command\":\"tail\",\"args\":{\"lines\":" + number + "}}}}"));

        Inbound.Respond r = assertInstanceOf(Inbound.Respond.class, in);
        JsonNode error = JSON.readTree(JSON.readTree(r.line()).get("result").get("content").get(0).get("text").textValue()).get("error");
        assertEquals("INVALID_ARGUMENTS", error.get("code").textValue(), r.line());
        assertEquals("/args/lines", error.get("pointer").textValue(), r.line());
        assertEquals(refusedForExponent, error.get("message").textValue().contains("exponent beyond 400"), r.line());
    }
}
