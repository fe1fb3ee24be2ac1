package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.AuthorizedHttpRequest;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Origin;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.TypedTool;
import dev.postern.protocol.approval.RequestStateCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A typed tool under a {@code confirm} rule, through the real session loop: the human is asked the
 * generic call's question about the same action (naming the tool called), only an accept runs it, and a
 * stateless {@code requestState} issued for the typed tool is not redeemed by the generic one.
 */
class TypedToolApprovalTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BASE = "http://127.0.0.1:9";
    private static final String STATELESS_META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{\"form\":{}}}}";
    private static final String ACCEPT = "{\"action\":\"accept\",\"content\":{\"approve\":true}}";

    @TempDir
    Path dir;

    private static Policy policy() {
        return Policy.of(new HttpTarget("api", Origin.parseBaseUrl(BASE), Set.of("GET", "POST"), List.of("/v1"), Set.of(),
                Optional.empty(), Duration.ofSeconds(5), 1024, true).withConfirm(Set.of("POST")).withTool(new TypedTool("api__call")));
    }

    private ApprovalLiveSession start() throws Exception {
        return new ApprovalLiveSession(dir, policy(), RequestStateCodec.withFreshKey(Duration.ofSeconds(60)), Duration.ofSeconds(30));
    }

    private static String typed(int id, String path, String extra) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"api__call\","
                + "\"arguments\":{\"method\":\"POST\",\"path\":\"" + path + "\",\"body\":\"{}\"}" + extra + "}}";
    }

    private static String generic(int id, String path, String extra) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
                + "\"arguments\":{\"method\":\"POST\",\"url\":\"" + BASE + path + "\",\"body\":\"{}\"}" + extra + "}}";
    }

    private static String answer(JsonNode question, String result) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + question.get("id") + ",\"result\":" + result + "}";
    }

    @Test
    void theHumanIsAskedTheGenericCallsQuestionAndOnlyAnAcceptRunsIt() throws Exception {
        try (ApprovalLiveSession s = start()) {
            s.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                    + "\"capabilities\":{\"elicitation\":{}},\"clientInfo\":{\"name\":\"scripted\",\"version\":\"1\"}}}");
            s.receive();
            s.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");

            s.send(typed(2, "/v1/orders", ""));
            JsonNode typedQuestion = s.receive();
            assertEquals("elicitation/create", typedQuestion.path("method").asText(), typedQuestion.toString());
            s.send(answer(typedQuestion, "{\"action\":\"decline\"}"));
            assertEquals("approval.declined", rule(s.receive()));
            assertEquals(0, s.http.count(), "a declined typed call runs nothing");

            s.send(generic(3, "/v1/orders", ""));
            JsonNode genericQuestion = s.receive();
            s.send(answer(genericQuestion, "{\"action\":\"decline\"}"));
            s.receive();
            assertEquals(genericQuestion.path("params").path("message").asText().replace("tool: http_request", "tool: api__call"),
                    typedQuestion.path("params").path("message").asText(), "the same action shown, the tool called named");
            ObjectNode typedForm = typedQuestion.path("params").deepCopy();
            ObjectNode genericForm = genericQuestion.path("params").deepCopy();
            typedForm.remove("message");
            genericForm.remove("message");
            assertEquals(genericForm, typedForm);

            s.send(typed(4, "/v1/orders", ""));
            s.send(answer(s.receive(), ACCEPT));
            JsonNode ran = s.receive();
            assertEquals(false, ran.path("result").path("isError").asBoolean(true), ran.toString());
            AuthorizedHttpRequest permit = s.http.take(Duration.ofSeconds(5));
            assertEquals(BASE + "/v1/orders", permit.action().url());
            assertEquals(1, s.http.count(), "only the accepted call ran");
        }
    }

    @Test
    void aStatelessApprovalIssuedForTheTypedToolIsNotRedeemedByTheGenericTool() throws Exception {
        try (ApprovalLiveSession s = start()) {
            s.send(typed(1, "/v1/orders", "," + STATELESS_META));
            JsonNode first = s.receive().path("result");
            assertEquals("input_required", first.path("resultType").asText(), first.toString());
            String state = first.path("requestState").asText();
            String retry = "," + STATELESS_META + ",\"inputResponses\":{\"approval\":" + ACCEPT + "},\"requestState\":"
                    + JSON.valueToTree(state);

            s.send(generic(2, "/v1/orders", retry));
            assertEquals("approval.invalid", rule(s.receive()), "moved to another tool");
            assertEquals(0, s.http.count());

            s.send(typed(3, "/v1/orders", "," + STATELESS_META));
            String fresh = s.receive().path("result").path("requestState").asText();
            s.send(typed(4, "/v1/orders", "," + STATELESS_META + ",\"inputResponses\":{\"approval\":" + ACCEPT + "},\"requestState\":"
                    + JSON.valueToTree(fresh)));
            JsonNode ran = s.receive();
            assertEquals(false, ran.path("result").path("isError").asBoolean(true), ran.toString());
            assertEquals(1, s.http.count(), "the typed tool's own retry runs it once");
        }
    }

    private static String rule(JsonNode response) {
        JsonNode result = response.path("result");
        assertTrue(result.path("isError").asBoolean(false), response.toString());
        try {
            return JSON.readTree(result.path("content").path(0).path("text").asText()).path("error").path("rule").asText();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
