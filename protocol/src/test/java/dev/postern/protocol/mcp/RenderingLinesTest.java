package dev.postern.protocol.mcp;

import dev.postern.protocol.tools.TestKinds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.policy.Decision;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.protocol.jsonrpc.RequestId;
import dev.postern.protocol.tools.ToolCatalog;
import org.junit.jupiter.api.Test;

/** The response lines rendered for outcomes and denials, and the instructions an agent is given. */
class RenderingLinesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final McpServer server = McpServer.over(new ToolCatalog(TestKinds.ALL, McpServerTest.policy()), new ServerInfo("postern", "test"), McpServer.Limits.frames(1 << 20));

    @Test
    void aDenialIsAToolErrorAnsweredToItsRequest() throws Exception {
        JsonNode line = JSON.readTree(server.renderDenial(new RequestId.Number(9), new Decision.Deny("http.path", "not under /v1")));
        assertEquals(9, line.get("id").asInt());
        JsonNode result = line.get("result");
        assertTrue(result.get("isError").asBoolean());
        JsonNode error = JSON.readTree(result.get("content").get(0).get("text").textValue()).get("error");
        assertEquals("POLICY_DENIED", error.get("code").textValue());
        assertEquals("http.path", error.get("rule").textValue());
    }

    @Test
    void anOutcomeIsAnsweredToItsRequest() throws Exception {
        JsonNode line = JSON.readTree(server.renderOutcome(new RequestId.Text("r"),
                new ExecutionFailure(FailureCode.CONNECT_FAILED, "refused")));
        assertEquals("r", line.get("id").textValue());
        assertEquals("CONNECT_FAILED", JSON.readTree(line.get("result").get("content").get(0).get("text").textValue())
                .get("error").get("code").textValue());
    }

    @Test
    void initializeAndDiscoverTellTheAgentWhereToLookForWhatIsAllowed() throws Exception {
        JsonNode init = JSON.readTree(((Inbound.Respond) server.receive(McpServerTest.frame(McpServerTest.INIT))).line());
        String given = init.get("result").get("instructions").textValue();
        assertTrue(given.startsWith("Postern performs only what its operator's policy allows. Call postern_targets"), given);
        JsonNode discover = JSON.readTree(((Inbound.Respond) server.receive(McpServerTest.frame(
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"server/discover\"}"))).line());
        assertEquals(given, discover.get("result").get("instructions").textValue());
    }
}
