package dev.postern.protocol.mcp;

import dev.postern.protocol.tools.TestKinds;
import static dev.postern.protocol.mcp.McpServerTest.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.protocol.tools.ToolCatalog;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The JSON-RPC shape rules, each refused line with the rule it broke in the error message. */
class JsonRpcShapeTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final McpServer server = McpServer.over(new ToolCatalog(TestKinds.ALL, McpServerTest.policy()), new ServerInfo("postern", "test"), McpServer.Limits.frames(1 << 20));

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"id\":1,\"method\":\"ping\"}|\"jsonrpc\" must be the string \"2.0\"",
        "{\"jsonrpc\":2.0,\"id\":1,\"method\":\"ping\"}|\"jsonrpc\" must be the string \"2.0\"",
        "{\"jsonrpc\":\"2.0 \",\"id\":1,\"method\":\"ping\"}|\"jsonrpc\" must be the string \"2.0\"",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1,\"message\":\"m\"}}|a response to a request Postern never sent",
        "{\"jsonrpc\":\"2.0\",\"id\":1}|a request needs a \"method\"",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"error\":{}}|a request must not carry \"result\" or \"error\"",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\"}|\"method\" must be a non-empty string",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":5}|\"params\" must be an object or an array",
        "{\"jsonrpc\":\"2.0\",\"id\":false,\"method\":\"ping\"}|\"id\" must be a string or an integer",
        "7|a message must be a JSON object",
        "[]|batch arrays are not accepted in this session"})
    void aLineThatBreaksAShapeRuleClosesTheSessionNamingTheRule(String text, String rule) throws Exception {
        Inbound.Close close = assertInstanceOf(Inbound.Close.class, server.receive(frame(text)));
        assertEquals("invalid request: " + rule, JSON.readTree(close.line()).get("error").get("message").textValue());
    }
}
