package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Protocol rules the corpus work found broken in code this branch must not touch
 * ({@code jsonrpc/*}, {@code McpServer}); each test fails today and is disabled with what is wrong.
 */
class ProtocolRulesForLeadTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    @Disabled("lead: JsonRpcMessage.classify refuses by-position params ([...]) with -32600 and closes the session; "
            + "JSON-RPC 2.0 allows an array, so this is a known method with malformed params: -32602, session continues")
    void arrayParamsForAKnownMethodAreInvalidParamsAndTheSessionContinues() throws Exception {
        SessionHarness h = new SessionHarness(dir).run(SessionHarness.INIT + SessionHarness.INITIALIZED
                + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":[\"http_request\","
                + "{\"method\":\"GET\",\"url\":\"http://127.0.0.1:9/v1/mk-array-params-mk\"}]}\n"
                + SessionHarness.httpCall(3, "after-array-params"));

        List<String> lines = h.lines();
        JsonNode answer = JSON.readTree(lines.get(1));
        assertEquals(-32602, answer.get("error").get("code").asInt(), lines.toString());
        assertEquals(ExitStatus.OK, h.exit, lines.toString());
        assertEquals("http://127.0.0.1:9/v1/after-array-params", h.http.take(Duration.ofSeconds(5)).uri().toString());
        assertEquals(1, h.http.count(), "only the next call ran");
    }
}
