package dev.postern.protocol.mcp;

import static dev.postern.protocol.mcp.McpServerTest.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.protocol.approval.ApprovalRoute;
import dev.postern.protocol.jsonrpc.RequestId;
import dev.postern.protocol.tools.TestKinds;
import dev.postern.protocol.tools.ToolCatalog;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * How a tool call learns whether a human can be asked, on the wire: the handshake era's route from
 * the negotiated version and the capabilities declared at initialize; the stateless era's from each
 * request's own {@code _meta} and the {@code inputResponses}/{@code requestState} it carries back
 * (members only that era accepts); the exact lines Postern writes to ask, to give up asking, to say
 * input is required or a capability is missing; and what a client's response to Postern's own
 * request does.
 */
class ApprovalWireTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CALL_ARGS = "\"name\":\"http_request\",\"arguments\":{\"method\":\"GET\",\"url\":\"http://127.0.0.1:8080/v1/x\"}";

    private final McpServer server = McpServer.over(new ToolCatalog(TestKinds.ALL, McpServerTest.policy()), new ServerInfo("postern", "test"), McpServer.Limits.frames(1 << 20));

    private Inbound send(String text) {
        return server.receive(frame(text));
    }

    private static JsonNode line(Inbound in) throws Exception {
        return JSON.readTree(assertInstanceOf(Inbound.Respond.class, in).line());
    }

    private static String init(String version, String capabilities) {
        return "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"" + version + "\","
                + "\"capabilities\":" + capabilities + ",\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";
    }

    /** The route a handshake session's tool call gets after initialize with this version and these capabilities. */
    private ApprovalRoute handshakeRoute(String version, String capabilities) {
        assertInstanceOf(Inbound.Respond.class, send(init(version, capabilities)));
        send(McpServerTest.INITIALIZED);
        Inbound in = send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{" + CALL_ARGS + "}}");
        return assertInstanceOf(Inbound.Execute.class, in).approval();
    }

    private static String statelessCall(String capabilities, String extra) {
        return "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{" + CALL_ARGS + extra
                + ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":" + capabilities + "}}}";
    }

    @Test
    void aHandshakeClientThatDeclaredFormElicitationIsAskedWithModeFrom2025_11_25() {
        assertEquals(new ApprovalRoute.Elicit(true), handshakeRoute("2025-11-25", "{\"elicitation\":{\"form\":{}}}"));
    }

    @Test
    void a2025_11_25ClientThatDeclaredUrlModeTooIsMarkedSo() {
        assertEquals(new ApprovalRoute.Elicit(true, true), handshakeRoute("2025-11-25", "{\"elicitation\":{\"form\":{},\"url\":{}}}"));
    }

    @Test
    void a2025_11_25ClientWithUrlModeOnlyHasItsOwnRoute() {
        assertEquals(new ApprovalRoute.UrlOnly(), handshakeRoute("2025-11-25", "{\"elicitation\":{\"url\":{}}}"));
    }

    @Test
    void a2025_06_18ClientHasNoUrlMode() {
        assertEquals(new ApprovalRoute.Elicit(false), handshakeRoute("2025-06-18", "{\"elicitation\":{\"url\":{},\"form\":{}}}"));
    }

    @Test
    void aStatelessRequestThatDeclaresUrlModeOnlyCanBeSentToAUrlButNotAskedByForm() {
        ApprovalRoute.Stateless url = assertInstanceOf(ApprovalRoute.Stateless.class,
                assertInstanceOf(Inbound.Execute.class, send(statelessCall("{\"elicitation\":{\"url\":{}}}", ""))).approval());
        assertTrue(url.canUrl());
        assertFalse(url.canElicit());
    }

    @Test
    void a2025_06_18ClientWithTheBareElicitationCapabilityIsAskedWithoutMode() {
        assertEquals(new ApprovalRoute.Elicit(false), handshakeRoute("2025-06-18", "{\"elicitation\":{}}"));
    }

    @Test
    void aHandshakeClientWithoutTheCapabilityOrOnAVersionWithoutElicitationCannotBeAsked() {
        ApprovalRoute.Unable none = assertInstanceOf(ApprovalRoute.Unable.class, handshakeRoute("2025-11-25", "{}"));
        assertEquals("the client did not declare the elicitation capability (form) at initialize, so Postern cannot ask a human", none.why());

        McpServer old = McpServer.over(new ToolCatalog(TestKinds.ALL, McpServerTest.policy()), new ServerInfo("postern", "test"), McpServer.Limits.frames(1 << 20));
        old.receive(frame(init("2025-03-26", "{\"elicitation\":{\"form\":{}}}")));
        old.receive(frame(McpServerTest.INITIALIZED));
        Inbound in = old.receive(frame("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{" + CALL_ARGS + "}}"));
        assertEquals(new ApprovalRoute.Unable("MCP 2025-03-26 has no elicitation, so Postern cannot ask a human on this connection"),
                assertInstanceOf(Inbound.Execute.class, in).approval());
    }

    @Test
    void aStatelessFirstCallCarriesWhatItsOwnMetaDeclares() {
        ApprovalRoute.Stateless route = assertInstanceOf(ApprovalRoute.Stateless.class,
                assertInstanceOf(Inbound.Execute.class, send(statelessCall("{\"elicitation\":{\"form\":{}}}", ""))).approval());
        assertTrue(route.canElicit());
        assertTrue(route.first());
        assertEquals(Optional.empty(), route.inputResponses());
        assertEquals(Optional.empty(), route.requestState());
    }

    @Test
    void aStatelessRetryCarriesItsInputResponsesAndRequestStateBack() {
        ApprovalRoute.Stateless route = assertInstanceOf(ApprovalRoute.Stateless.class, assertInstanceOf(Inbound.Execute.class,
                send(statelessCall("{}", ",\"inputResponses\":{\"approval\":{\"action\":\"accept\"}},\"requestState\":\"abc.def\""))).approval());
        assertFalse(route.canElicit(), "this request declared no elicitation");
        assertFalse(route.first());
        assertEquals("{\"approval\":{\"action\":\"accept\"}}", route.inputResponses().orElseThrow().toString());
        assertEquals(Optional.of("abc.def"), route.requestState());
        assertFalse(new ApprovalRoute.Stateless(false, Optional.empty(), Optional.of("s")).first(), "a state alone is a retry");
        assertFalse(new ApprovalRoute.Stateless(false, Optional.of(JSON.createObjectNode()), Optional.empty()).first(),
                "responses alone are a retry");
    }

    @Test
    void retryMembersOfTheWrongTypeAreInvalidParams() throws Exception {
        JsonNode responses = line(send(statelessCall("{}", ",\"inputResponses\":[]"))).get("error");
        assertEquals(-32602, responses.get("code").asInt());
        assertEquals("params.inputResponses must be an object", responses.get("message").textValue());
        JsonNode state = line(send(statelessCall("{}", ",\"requestState\":7"))).get("error");
        assertEquals("params.requestState must be a string", state.get("message").textValue());
    }

    @Test
    void retryMembersAreUnknownInTheHandshakeEra() throws Exception {
        send(init("2025-11-25", "{}"));
        send(McpServerTest.INITIALIZED);
        JsonNode error = line(send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{" + CALL_ARGS
                + ",\"requestState\":\"abc.def\"}}")).get("error");
        assertEquals(-32602, error.get("code").asInt());
        assertEquals("unknown params member requestState", error.get("message").textValue());
    }

    @Test
    void theLinesThatAskAndStopAskingAreARequestAndACancelNotification() {
        ObjectNode params = JsonNodeFactory.instance.objectNode().put("message", "approve?");
        assertEquals("{\"jsonrpc\":\"2.0\",\"id\":\"postern-approval-1\",\"method\":\"elicitation/create\",\"params\":{\"message\":\"approve?\"}}",
                server.renderServerRequest(new RequestId.Text("postern-approval-1"), "elicitation/create", params));
        assertEquals("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"postern-approval-1\","
                + "\"reason\":\"no answer in time\"}}",
                server.renderCancelServerRequest(new RequestId.Text("postern-approval-1"), "no answer in time"));
    }

    @Test
    void inputRequiredCarriesTheQuestionAndTheStateToSendBack() throws Exception {
        send(statelessCall("{\"elicitation\":{\"form\":{}}}", ""));
        ObjectNode questions = JsonNodeFactory.instance.objectNode();
        questions.putObject("approval").put("method", "elicitation/create");
        JsonNode r = JSON.readTree(server.renderInputRequired(new RequestId.Number(3), questions, "abc.def"));
        assertEquals(3, r.get("id").asInt());
        assertEquals("input_required", r.get("result").get("resultType").textValue(), "not overwritten by complete");
        assertEquals("{\"approval\":{\"method\":\"elicitation/create\"}}", r.get("result").get("inputRequests").toString());
        assertEquals("abc.def", r.get("result").get("requestState").textValue());
    }

    @Test
    void aMissingCapabilityIsError32021NamingWhatToDeclare() throws Exception {
        ObjectNode required = JsonNodeFactory.instance.objectNode();
        required.putObject("elicitation").putObject("form");
        JsonNode e = JSON.readTree(server.renderMissingCapability(new RequestId.Number(4), required)).get("error");
        assertEquals(-32021, e.get("code").asInt());
        assertEquals("this call needs a human's approval: declare the elicitation capability (form) in _meta"
                + " \"io.modelcontextprotocol/clientCapabilities\" to be asked", e.get("message").textValue());
        assertEquals("{\"requiredCapabilities\":{\"elicitation\":{\"form\":{}}}}", e.get("data").toString());
    }

    @Test
    void aClientsAnswerIsDeliveredOnceThenLateAndOneToAnIdNeverSentEndsTheSession() throws Exception {
        send(init("2025-11-25", "{\"elicitation\":{\"form\":{}}}"));
        send(McpServerTest.INITIALIZED);
        ServerRequests.Pending pending = server.serverRequests().open();
        assertEquals(1, server.serverRequests().waiting());
        String answer = "{\"jsonrpc\":\"2.0\",\"id\":\"" + ((RequestId.Text) pending.id()).value() + "\",\"result\":{\"action\":\"accept\"}}";

        Inbound.Ignore delivered = assertInstanceOf(Inbound.Ignore.class, send(answer));
        assertFalse(delivered.unexpected());
        assertEquals("{\"action\":\"accept\"}", pending.reply().get().result().orElseThrow().toString());
        assertEquals(0, server.serverRequests().waiting());

        Inbound.Ignore late = assertInstanceOf(Inbound.Ignore.class, send(answer));
        assertTrue(late.unexpected(), late.why());

        Inbound.Close forged = assertInstanceOf(Inbound.Close.class,
                send("{\"jsonrpc\":\"2.0\",\"id\":\"postern-approval-99\",\"result\":{}}"));
        assertTrue(forged.line().contains("a response to a request Postern never sent"), forged.line());
    }

    @Test
    void aMalformedResponseFromTheClientEndsTheSessionAsAnInvalidRequest() throws Exception {
        send(init("2025-11-25", "{\"elicitation\":{\"form\":{}}}"));
        send(McpServerTest.INITIALIZED);
        ServerRequests.Pending pending = server.serverRequests().open();
        Inbound.Close both = assertInstanceOf(Inbound.Close.class, send("{\"jsonrpc\":\"2.0\",\"id\":\""
                + ((RequestId.Text) pending.id()).value() + "\",\"result\":{},\"error\":{\"code\":1,\"message\":\"m\"}}"));
        JsonNode error = JSON.readTree(both.line()).get("error");
        assertEquals(-32600, error.get("code").asInt());
        assertEquals("invalid request: a response carries \"result\" or \"error\", not both", error.get("message").textValue());
        assertFalse(pending.reply().isDone(), "nothing is delivered");
    }
}
