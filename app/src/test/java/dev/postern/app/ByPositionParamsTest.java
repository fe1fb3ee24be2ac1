package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** JSON-RPC allows params by position; no MCP method takes them, so such a call is -32602 and the session goes on. */
class ByPositionParamsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
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
