package dev.postern.protocol.mcp;

import dev.postern.protocol.tools.TestKinds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.HttpResponseOutcome;
import dev.postern.policy.outcome.Outcome;
import dev.postern.protocol.jsonrpc.RequestId;
import dev.postern.protocol.tools.ToolCatalog;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rendered-result cap is inclusive: a result of exactly the cap is returned as rendered; one byte
 * less room and its kind cuts it to fit, flagged truncated, and only what cannot be cut (an error's
 * message) becomes RESPONSE_TOO_LARGE; success counts its text twice (the text item and
 * structuredContent), an error once. The cap itself is at least 1024 bytes.
 */
class ResultCapBoundaryTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static McpServer server(long cap) {
        return McpServer.over(new ToolCatalog(TestKinds.ALL, McpServerTest.policy()), new ServerInfo("postern", "test"), new McpServer.Limits(1 << 20, cap));
    }

    private static JsonNode render(long cap, Outcome outcome) throws Exception {
        return JSON.readTree(server(cap).renderOutcome(new RequestId.Number(1), outcome)).get("result");
    }

    private static long jsonStringBytes(String text) throws Exception {
        return JSON.writeValueAsString(text).getBytes(StandardCharsets.UTF_8).length;
    }

    private static boolean tooLarge(JsonNode result) {
        return result.get("content").get(0).get("text").textValue().contains("RESPONSE_TOO_LARGE");
    }

    @Test
    void aSuccessOfExactlyTheCapIsReturnedWholeAndOneByteMoreIsCutToFitAndFlaggedTruncated() throws Exception {
        Outcome outcome = new HttpResponseOutcome("api", 200, List.of(), "é\n".repeat(400).getBytes(StandardCharsets.UTF_8), false);
        String text = render(1 << 20, outcome).get("content").get(0).get("text").textValue();
        long rendered = text.getBytes(StandardCharsets.UTF_8).length + jsonStringBytes(text);

        JsonNode atCap = render(rendered, outcome);
        assertEquals(false, atCap.get("isError").asBoolean(), atCap.toString());
        assertEquals(text, atCap.get("content").get(0).get("text").textValue());
        assertEquals(false, atCap.get("structuredContent").get("truncated").asBoolean());
        JsonNode overCap = render(rendered - 1, outcome);
        assertEquals(false, overCap.get("isError").asBoolean(), overCap.toString());
        String cut = overCap.get("content").get(0).get("text").textValue();
        assertTrue(cut.getBytes(StandardCharsets.UTF_8).length + jsonStringBytes(cut) <= rendered - 1, cut);
        assertEquals(true, overCap.get("structuredContent").get("truncated").asBoolean());
        assertTrue(text.contains(overCap.get("structuredContent").get("body").textValue()), "a prefix of the body's base64");
    }

    @Test
    void anErrorOfExactlyTheCapIsReturnedAndOneByteMoreIsTooLarge() throws Exception {
        Outcome outcome = new ExecutionFailure(FailureCode.EXECUTOR_FAILED, "\"quoted\" ".repeat(200));
        String text = render(1 << 20, outcome).get("content").get(0).get("text").textValue();
        long rendered = jsonStringBytes(text);
        assertTrue(rendered > 1024, "the error is long enough to sit at a cap the server accepts");

        JsonNode atCap = render(rendered, outcome);
        assertEquals(text, atCap.get("content").get(0).get("text").textValue());
        JsonNode overCap = render(rendered - 1, outcome);
        assertTrue(tooLarge(overCap), overCap.toString());
    }

    @Test
    void theCapIsAtLeast1024Bytes() {
        server(1024);
        assertThrows(IllegalArgumentException.class, () -> server(1023));
    }
}
