package dev.postern.protocol.mcp;

import dev.postern.protocol.tools.TestKinds;
import static dev.postern.protocol.mcp.McpServerTest.INIT;
import static dev.postern.protocol.mcp.McpServerTest.INITIALIZED;
import static dev.postern.protocol.mcp.McpServerTest.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.policy.port.Rejection;
import dev.postern.policy.port.Stage;
import dev.postern.protocol.jsonrpc.ErrorCode;
import dev.postern.protocol.jsonrpc.RequestId;
import dev.postern.protocol.tools.ToolCatalog;
import dev.postern.transport.Frame;
import dev.postern.transport.FramingError;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every refusal the MCP layer can give, one row each, with its code, its words and the rejection
 * it journals; and the notifications that need nothing done, with whether they are worth a line
 * on stderr. The happy paths live in {@link McpServerTest} and {@link StatelessEraTest}.
 */
class McpServerRefusalsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SHA = "0".repeat(64);
    private static final String META = StatelessEraTest.META;

    private final McpServer server = McpServer.over(new ToolCatalog(TestKinds.ALL, McpServerTest.policy()), new ServerInfo("postern", "test"), McpServer.Limits.frames(1 << 20));

    private Inbound send(String text) {
        return server.receive(frame(text));
    }

    private void ready() {
        assertInstanceOf(Inbound.Respond.class, send(INIT));
        assertEquals(new Inbound.Ignore("session ready", false), send(INITIALIZED));
    }

    /** Asserts {@code in} is a refusal with {@code code} and {@code message}, journaled at {@code stage}. */
    private static void assertRefused(Inbound in, ErrorCode code, String message, Stage stage, String text) throws Exception {
        Inbound.Respond r = assertInstanceOf(Inbound.Respond.class, in);
        JsonNode error = JSON.readTree(r.line()).get("error");
        assertEquals(code.code(), error.get("code").asInt(), r.line());
        assertEquals(message, error.get("message").textValue());
        Rejection rejection = r.rejection().orElseThrow();
        assertEquals(stage, rejection.stage());
        assertEquals(code.name(), rejection.reasonCode());
        assertEquals(frame(text).sha256(), rejection.frameSha256());
    }

    private static String request(String method, String params) {
        return "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"" + method + "\"" + (params == null ? "" : ",\"params\":" + params) + "}";
    }

    // ---- framing errors ----

    @ParameterizedTest
    @CsvSource({
        "EMPTY_LINE, empty line",
        "TOO_LONG, line exceeds the frame byte limit",
        "INVALID_UTF8, line is not valid UTF-8",
        "BYTE_ORDER_MARK, line starts with a byte order mark",
        "BARE_CR, carriage return not followed by line feed",
        "TRUNCATED, input ended inside a line",
        "IO_ERROR, input could not be read"})
    void aFramingErrorClosesTheSessionWithAParseErrorSayingWhatWasWrong(FramingError.Kind kind, String words) throws Exception {
        Inbound.Close close = assertInstanceOf(Inbound.Close.class,
                server.receive(new FramingError(kind, "line 1: detail not for the peer", SHA)));
        JsonNode line = JSON.readTree(close.line());
        assertTrue(line.get("id").isNull());
        assertEquals(-32700, line.get("error").get("code").asInt());
        assertEquals("parse error: " + words, line.get("error").get("message").textValue());
        assertEquals(new Rejection(Stage.FRAMING, kind.name(), Optional.empty(), SHA), close.rejection());
    }

    @Test
    void aMalformedLineIsRejectedAtTheJsonStageWithNoId() throws Exception {
        Inbound.Close close = assertInstanceOf(Inbound.Close.class, send("{\"a\":"));
        JsonNode line = JSON.readTree(close.line());
        assertTrue(line.get("id").isNull());
        assertTrue(line.get("error").get("message").textValue().startsWith("parse error: "));
        assertEquals(new Rejection(Stage.JSON, "PARSE_ERROR", Optional.empty(), frame("{\"a\":").sha256()), close.rejection());
    }

    @Test
    void anInvalidRequestWithAUsableIdIsAnsweredToThatId() throws Exception {
        String text = "{\"jsonrpc\":\"2.0\",\"id\":\"q\",\"method\":\"ping\",\"extra\":1}";
        Inbound.Close close = assertInstanceOf(Inbound.Close.class, send(text));
        JsonNode line = JSON.readTree(close.line());
        assertEquals("q", line.get("id").textValue());
        assertEquals("invalid request: unknown member \"extra\"", line.get("error").get("message").textValue());
        assertEquals(new Rejection(Stage.JSONRPC, "INVALID_REQUEST", Optional.empty(), frame(text).sha256()), close.rejection());
    }

    // ---- notifications ----

    @Test
    void theInitializedNotificationBeforeInitializeIsUnexpectedAndChangesNothing() throws Exception {
        assertEquals(new Inbound.Ignore("initialized notification out of order", true), send(INITIALIZED));
        send(INIT);
        // Still awaiting notifications/initialized: a tool call is not yet served.
        String call = request("tools/call", "{\"name\":\"postern_targets\"}");
        assertRefused(send(call), ErrorCode.NOT_READY, "send notifications/initialized before calling a tool", Stage.MCP, call);
    }

    @Test
    void aSecondInitializedNotificationIsUnexpected() {
        ready();
        assertEquals(new Inbound.Ignore("initialized notification out of order", true), send(INITIALIZED));
    }

    @Test
    void theInitializedNotificationInAStatelessSessionIsUnexpected() {
        send(request("tools/list", "{" + META + "}"));
        assertEquals(Era.STATELESS, server.era());
        assertEquals(new Inbound.Ignore("initialized notification out of order", true), send(INITIALIZED));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\",\"params\":[]}|notification notifications/initialized with params by position",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}|unknown notification notifications/progress",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\"}|cancel notification without a valid requestId",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{}}|cancel notification without a valid requestId",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":true}}|cancel notification without a valid requestId",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1.5}}|cancel notification without a valid requestId"})
    void notificationsThatNeedNothingDoneAreIgnoredAsUnexpected(String text, String why) {
        assertEquals(new Inbound.Ignore(why, true), send(text));
    }

    @Test
    void aCancellationMayNameATextId() {
        Inbound in = send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"r-1\"}}");
        assertEquals(new Inbound.Cancel(new RequestId.Text("r-1")), in);
    }

    // ---- requests ----

    @ParameterizedTest
    @ValueSource(strings = {"server/discover", "initialize", "ping", "tools/list", "tools/call"})
    void knownMethodsWithParamsByPositionAreInvalidParams(String method) throws Exception {
        String text = request(method, "[]");
        assertRefused(send(text), ErrorCode.INVALID_PARAMS, "params must be an object (by name), not an array", Stage.MCP, text);
    }

    @Test
    void anUnknownMethodWithParamsByPositionIsMethodNotFound() throws Exception {
        String text = request("resources/list", "[1]");
        assertRefused(send(text), ErrorCode.METHOD_NOT_FOUND, "method not found: resources/list", Stage.MCP, text);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "|params are required",
        "{}|params.protocolVersion must be a string",
        "{\"protocolVersion\":1,\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}|params.protocolVersion must be a string",
        "{\"protocolVersion\":\"2025-06-18\",\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}|params.capabilities must be an object",
        "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":[],\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}|params.capabilities must be an object",
        "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}}|params.clientInfo must be an object with string name and version",
        "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":\"t\"}|params.clientInfo must be an object with string name and version",
        "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"version\":\"1\"}}|params.clientInfo must be an object with string name and version",
        "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\"}}|params.clientInfo must be an object with string name and version",
        "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":1}}|params.clientInfo must be an object with string name and version"})
    void anInitializeWithBadParamsIsRefusedAndTheSessionCanStillInitialize(String params, String problem) throws Exception {
        String text = request("initialize", params);
        assertRefused(send(text), ErrorCode.INVALID_PARAMS, problem, Stage.MCP, text);
        assertEquals(Era.UNDECIDED, server.era());
        JsonNode result = JSON.readTree(assertInstanceOf(Inbound.Respond.class, send(INIT)).line()).get("result");
        assertEquals("2025-06-18", result.get("protocolVersion").textValue());
        assertFalse(result.get("capabilities").get("tools").get("listChanged").asBoolean());
        assertEquals(Era.HANDSHAKE, server.era());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"cursor\":1}|params.cursor must be a string",
        "{\"cursor\":null}|params.cursor must be a string",
        "{\"page\":2}|unknown params member page",
        "{\"cursor\":\"c\",\"page\":2}|unknown params member page"})
    void toolsListRefusesParamsItDoesNotKnow(String params, String problem) throws Exception {
        ready();
        String text = request("tools/list", params);
        assertRefused(send(text), ErrorCode.INVALID_PARAMS, problem, Stage.MCP, text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"{}", "{\"cursor\":\"c\"}", "{\"_meta\":{}}", "{\"cursor\":\"c\",\"_meta\":{\"progressToken\":1}}"})
    void toolsListAcceptsACursorAndMetaAndIsNotCacheableInTheHandshakeEra(String params) throws Exception {
        ready();
        Inbound.Respond r = assertInstanceOf(Inbound.Respond.class, send(request("tools/list", params)));
        assertEquals(Optional.empty(), r.rejection());
        JsonNode result = JSON.readTree(r.line()).get("result");
        assertEquals(3, result.get("tools").size());
        assertFalse(result.has("ttlMs"));
        assertFalse(result.has("cacheScope"));
        assertFalse(result.has("resultType"));
    }

    @Test
    void statelessToolsListIsCacheableForAnHourPrivately() throws Exception {
        JsonNode result = JSON.readTree(assertInstanceOf(Inbound.Respond.class,
                send(request("tools/list", "{" + META + "}"))).line()).get("result");
        assertEquals(3_600_000L, result.get("ttlMs").asLong());
        assertEquals("private", result.get("cacheScope").textValue());
        assertEquals("complete", result.get("resultType").textValue());
        assertEquals("postern", result.get("_meta").get("io.modelcontextprotocol/serverInfo").get("name").textValue());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "|params.name must be a string",
        "{}|params.name must be a string",
        "{\"name\":7}|params.name must be a string",
        "{\"name\":\"postern_targets\",\"args\":{}}|unknown params member args",
        "{\"name\":\"postern_targets\",\"arguments\":[]}|params.arguments must be an object",
        "{\"name\":\"postern_targets\",\"arguments\":\"{}\"}|params.arguments must be an object",
        "{\"name\":\"rm\",\"arguments\":{}}|unknown tool: rm"})
    void toolsCallRefusesMalformedParams(String params, String problem) throws Exception {
        ready();
        String text = request("tools/call", params);
        assertRefused(send(text), ErrorCode.INVALID_PARAMS, problem, Stage.MCP, text);
    }

    @Test
    void toolsCallWithoutArgumentsCallsWithAnEmptyObject() throws Exception {
        ready();
        Inbound.Respond r = assertInstanceOf(Inbound.Respond.class,
                send(request("tools/call", "{\"name\":\"postern_targets\",\"_meta\":{\"progressToken\":1}}")));
        assertEquals(Optional.empty(), r.rejection());
        JsonNode result = JSON.readTree(r.line()).get("result");
        assertFalse(result.path("isError").asBoolean());
        assertEquals("api", result.get("structuredContent").get("http").get(0).get("name").textValue());
    }

    @Test
    void methodsOtherThanToolsAreNotFoundAfterTheHandshakeToo() throws Exception {
        ready();
        String text = request("resources/list", "{}");
        assertRefused(send(text), ErrorCode.METHOD_NOT_FOUND, "method not found: resources/list", Stage.MCP, text);
    }

    // ---- the stateless era's own refusals ----

    @Test
    void aStatelessProtocolVersionThatIsNotAStringIsInvalidParams() throws Exception {
        String text = request("tools/list", "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":20260728,"
                + "\"io.modelcontextprotocol/clientCapabilities\":{}}}");
        assertRefused(send(text), ErrorCode.INVALID_PARAMS,
                "_meta \"io.modelcontextprotocol/protocolVersion\" must be a string", Stage.MCP, text);
        assertEquals(Era.UNDECIDED, server.era());
    }

    @Test
    void capabilitiesThatAreNotAnObjectAreInvalidParams() throws Exception {
        String text = request("tools/list", "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":[]}}");
        assertRefused(send(text), ErrorCode.INVALID_PARAMS,
                "_meta \"io.modelcontextprotocol/clientCapabilities\" must be an object", Stage.MCP, text);
    }

    @Test
    void anUnsupportedStatelessVersionIsJournaledAtTheMcpStage() throws Exception {
        String text = request("tools/list", "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2030-01-01\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{}}}");
        assertRefused(send(text), ErrorCode.UNSUPPORTED_PROTOCOL_VERSION, "unsupported protocol version 2030-01-01", Stage.MCP, text);
        assertEquals(Era.UNDECIDED, server.era());
    }

    @Test
    void aStatelessInitializeIsAmbiguousAndFixesNoEra() throws Exception {
        String text = request("initialize", "{" + META + "}");
        assertRefused(send(text), ErrorCode.INVALID_PARAMS, "ambiguous request: initialize belongs to the handshake era,"
                + " but it carries a _meta protocol version", Stage.MCP, text);
        assertEquals(Era.UNDECIDED, server.era());
    }

    @Test
    void aStatelessCallFixesTheStatelessEra() {
        assertEquals(Era.UNDECIDED, server.era());
        send(request("tools/call", "{\"name\":\"postern_targets\",\"arguments\":{}," + META + "}"));
        assertEquals(Era.STATELESS, server.era());
    }

    @Test
    void aPlainRequestInAStatelessSessionSaysWhatEveryRequestMustCarry() throws Exception {
        send(request("tools/list", "{" + META + "}"));
        String text = request("tools/list", "{}");
        assertRefused(send(text), ErrorCode.INVALID_PARAMS, "this connection speaks MCP 2026-07-28: every request carries _meta \""
                + "io.modelcontextprotocol/protocolVersion\" and \"io.modelcontextprotocol/clientCapabilities\"", Stage.MCP, text);
    }

    @Test
    void aPingWithoutMetaIsStillServedBeforeAnyEraIsFixed() throws Exception {
        Inbound.Respond r = assertInstanceOf(Inbound.Respond.class, send(request("ping", null)));
        assertEquals("{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}", r.line());
        assertEquals(Era.UNDECIDED, server.era());
    }

    @Test
    void theErrorLineForNoIdCarriesJsonNull() throws Exception {
        JsonNode line = JSON.readTree(server.errorLine(null, ErrorCode.INTERNAL_ERROR, "boom"));
        assertTrue(line.has("id") && line.get("id").isNull());
        assertEquals(-32603, line.get("error").get("code").asInt());
        assertFalse(line.get("error").has("data"));
        assertEquals("2.0", line.get("jsonrpc").textValue());
    }

    @ParameterizedTest
    @EnumSource(ErrorCode.class)
    void everyErrorCodeIsRenderedWithItsNumber(ErrorCode code) throws Exception {
        JsonNode line = JSON.readTree(server.errorLine(new RequestId.Text("x"), code, "m"));
        assertEquals(code.code(), line.get("error").get("code").asInt());
        assertEquals("x", line.get("id").textValue());
    }

    @Test
    void framesAreJournaledByTheirOwnFingerprint() throws Exception {
        Frame f = frame(request("nope", null));
        Inbound.Respond r = assertInstanceOf(Inbound.Respond.class, server.receive(f));
        assertEquals(f.sha256(), r.rejection().orElseThrow().frameSha256());
    }
}
