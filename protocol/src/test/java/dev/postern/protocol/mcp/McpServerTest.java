package dev.postern.protocol.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.action.Argument;
import dev.postern.policy.action.SshCommandAction;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Origin;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SshAuth;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import dev.postern.policy.port.Stage;
import dev.postern.protocol.tools.TestKinds;
import dev.postern.protocol.tools.ToolCatalog;
import dev.postern.transport.Frame;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class McpServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
            + "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";
    static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";

    private final McpServer server = McpServer.over(new ToolCatalog(TestKinds.ALL, policy()), new ServerInfo("postern", "test"), McpServer.Limits.frames(1 << 20));

    static Policy policy() {
        HttpTarget api = new HttpTarget("api", Origin.parseBaseUrl("http://127.0.0.1:8080"), Set.of("GET"), List.of("/v1"),
                Set.of("Accept"), Optional.empty(), Duration.ofSeconds(5), 1024, true);
        SshHost web = new SshHost("web", "127.0.0.1", 2222, "deploy",
                new SshAuth.Key(new CredentialRef("secret-deploy-credential"), Optional.empty()), Optional.empty(),
                Optional.of("SHA256:" + "A".repeat(43)), Duration.ofSeconds(5), 1024,
                List.of(new SshCommandSpec("tail", List.of("tail", "-n", "{lines}", "/var/log/app.log"),
                        Map.of("lines", new ParamSpec.IntegerParam(1, 500)))));
        return Policy.of(List.of(api), List.of(web));
    }

    static Frame frame(String text) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return new Frame(text, HexFormat.of().formatHex(d));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    private Inbound send(String text) {
        return server.receive(frame(text));
    }

    private static JsonNode line(Inbound in) throws Exception {
        String l = in instanceof Inbound.Respond r ? r.line() : ((Inbound.Close) in).line();
        return JSON.readTree(l);
    }

    private void ready() {
        assertInstanceOf(Inbound.Respond.class, send(INIT));
        assertInstanceOf(Inbound.Ignore.class, send(INITIALIZED));
    }

    private static String call(String tool, String arguments) {
        return "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool + "\",\"arguments\":" + arguments + "}}";
    }

    static Stream<String> seedLinesThatCloseTheSession() {
        return Stream.of(
                "debug: entering tool handler",
                "<html>gateway unavailable</html>",
                "{not json}",
                "null",
                "{\"jsonrpc\":\"1.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{}}",
                "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":\"run\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} banner",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"result\":{}}",
                "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"method\":\"ping\"}");
    }

    @ParameterizedTest
    @MethodSource("seedLinesThatCloseTheSession")
    void malformedOrInvalidLinesCloseTheSessionWithOneError(String text) throws Exception {
        Inbound in = send(text);
        Inbound.Close close = assertInstanceOf(Inbound.Close.class, in);
        JsonNode error = line(close).get("error");
        int code = error.get("code").asInt();
        assertTrue(code == -32700 || code == -32600, "code " + code);
        assertEquals(code == -32700 ? Stage.JSON : Stage.JSONRPC, close.rejection().stage());
        assertEquals(frame(text).sha256(), close.rejection().frameSha256());
    }

    @Test
    void pingIsServedBeforeInitialize() throws Exception {
        JsonNode r = line(send("{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}"));
        assertEquals("p", r.get("id").textValue());
        assertTrue(r.get("result").isObject());
    }

    @ParameterizedTest
    @ValueSource(strings = {"tools/list", "tools/call"})
    void knownMethodsBeforeInitializeAreRefusedAndTheSessionContinues(String method) throws Exception {
        Inbound in = send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"" + method + "\",\"params\":{\"name\":\"http_request\"}}");
        Inbound.Respond r = assertInstanceOf(Inbound.Respond.class, in);
        assertEquals(-1001, line(r).get("error").get("code").asInt());
        assertEquals(Stage.MCP, r.rejection().orElseThrow().stage());
        assertInstanceOf(Inbound.Respond.class, send(INIT));
    }

    @Test
    void unknownMethodBeforeInitializeIsMethodNotFoundAndTheSessionContinues() throws Exception {
        Inbound in = send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/list\"}");
        assertEquals(-32601, line(in).get("error").get("code").asInt());
        assertEquals("2025-06-18", line(send(INIT)).get("result").get("protocolVersion").textValue());
    }

    @Test
    void initializeAnswersTheClientsVersionWhenSupportedElseTheNewest() throws Exception {
        JsonNode r = line(send(INIT.replace("2025-06-18", "1999-01-01")));
        assertEquals("2025-11-25", r.get("result").get("protocolVersion").textValue());
        assertEquals("postern", r.get("result").get("serverInfo").get("name").textValue());
    }

    @Test
    void aSecondInitializeIsRefused() throws Exception {
        ready();
        assertEquals(-1003, line(send(INIT)).get("error").get("code").asInt());
    }

    @Test
    void noToolRunsBeforeTheInitializedNotification() throws Exception {
        send(INIT);
        Inbound in = send(call("http_request", "{\"method\":\"GET\",\"url\":\"http://127.0.0.1:8080/v1\"}"));
        assertEquals(-1002, line(in).get("error").get("code").asInt());
    }

    @Test
    void aValidCallBecomesATypedActionAndNothingElse() {
        ready();
        Inbound in = send(call("http_request", "{\"method\":\"GET\",\"url\":\"http://127.0.0.1:8080/v1/x\",\"headers\":{\"Accept\":\"text/plain\"}}"));
        Inbound.Execute e = assertInstanceOf(Inbound.Execute.class, in);
        HttpRequestAction a = assertInstanceOf(HttpRequestAction.class, e.action());
        assertEquals("http://127.0.0.1:8080/v1/x", a.url());
        assertEquals("text/plain", a.headers().get(0).value());
    }

    @Test
    void sshArgumentsBindAsIntegersOrText() {
        ready();
        Inbound in = send(call("ssh_exec", "{\"host\":\"web\",\"command\":\"tail\",\"args\":{\"lines\":20}}"));
        SshCommandAction a = assertInstanceOf(SshCommandAction.class, assertInstanceOf(Inbound.Execute.class, in).action());
        assertEquals(new Argument.Whole(20), a.args().get("lines"));
    }

    @Test
    void argumentsThatFailTheSchemaGiveAToolErrorNamingThePointer() throws Exception {
        ready();
        Inbound in = send(call("http_request", "{\"method\":\"GET\",\"url\":\"http://x\",\"extra\":1}"));
        Inbound.Respond r = assertInstanceOf(Inbound.Respond.class, in);
        JsonNode result = line(r).get("result");
        assertTrue(result.get("isError").asBoolean());
        assertEquals("/extra", JSON.readTree(result.get("content").get(0).get("text").textValue()).get("error").get("pointer").textValue());
        assertTrue(!result.has("structuredContent"), "an error result carries no structured content");
        assertEquals(Stage.SCHEMA, r.rejection().orElseThrow().stage());
    }

    @Test
    void anUnknownToolIsInvalidParamsAndTheNextCallInheritsNothing() throws Exception {
        ready();
        assertEquals(-32602, line(send(call("shell", "{\"cmd\":\"rm -rf /\"}"))).get("error").get("code").asInt());
        Inbound next = send(call("http_request", "{\"method\":\"GET\",\"url\":\"http://127.0.0.1:8080/v1\"}"));
        HttpRequestAction a = assertInstanceOf(HttpRequestAction.class, assertInstanceOf(Inbound.Execute.class, next).action());
        assertEquals(List.of(), a.headers());
        assertEquals(Optional.empty(), a.body());
    }

    @Test
    void toolsListIsDeterministicAndCarriesSchemas() throws Exception {
        ready();
        JsonNode tools = line(send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}")).get("result").get("tools");
        assertEquals(List.of("http_request", "ssh_exec", "postern_targets"),
                List.of(tools.get(0).get("name").textValue(), tools.get(1).get("name").textValue(), tools.get(2).get("name").textValue()));
        for (JsonNode t : tools) {
            assertTrue(t.get("inputSchema").isObject() && t.get("outputSchema").isObject() && t.get("annotations").isObject());
        }
    }

    @Test
    void posternTargetsAnswersLocallyWithoutSecrets() throws Exception {
        ready();
        JsonNode result = line(send(call("postern_targets", "{}"))).get("result");
        assertEquals("api", result.get("structuredContent").get("http").get(0).get("name").textValue());
        assertEquals("truncate", result.get("structuredContent").get("http").get(0).get("onOversizeResponse").textValue());
        assertTrue(!result.toString().contains("secret-deploy-credential"), "credential names stay out");
    }

    @Test
    void cancellationNotificationNamesTheRequest() {
        Inbound in = send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":7}}");
        assertEquals(new dev.postern.protocol.jsonrpc.RequestId.Number(7), assertInstanceOf(Inbound.Cancel.class, in).id());
    }
}
