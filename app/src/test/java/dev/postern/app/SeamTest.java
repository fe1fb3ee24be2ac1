package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.fixtures.StdoutTranscript;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The seed's two seam tests, on the real classes: bad lines never execute; one valid call executes once. */
class SeamTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    static Stream<String> badLines() {
        return Stream.of(
                "debug: entering tool handler\n",
                "<html>gateway unavailable</html>\n",
                "{not json}\n",
                "null\n",
                "{\"jsonrpc\":\"1.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\",\"arguments\":{\"method\":\"GET\",\"url\":\"http://127.0.0.1:9/v1/marker-rpc10\"}}}\n",
                "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":\"run\"}\n");
    }

    @ParameterizedTest
    @MethodSource("badLines")
    void badLinesGetOneErrorCloseTheSessionAndNeverExecute(String bad) throws Exception {
        // The valid call after the bad line proves the session is closed: it must not run either.
        SessionHarness h = new SessionHarness(dir).run(SessionHarness.INIT + SessionHarness.INITIALIZED + bad
                + SessionHarness.httpCall(9, "marker-after-bad-line"));

        h.http.assertNoAttempts();
        h.ssh.assertNoAttempts();
        assertEquals(ExitStatus.PROTOCOL_ERROR, h.exit);
        List<JsonNode> messages = StdoutTranscript.assertProtocolOnly(h.stdout.toByteArray(), "in-memory session", h.stderr.toByteArray());
        assertEquals(2, messages.size(), "initialize response, then exactly one error");
        assertTrue(messages.get(1).has("error"), messages.get(1).toString());
        List<String> rows = Files.readAllLines(dir.resolve("decisions.jsonl"));
        assertEquals(1, rows.size(), "exactly the one rejection is journaled: " + rows);
        JsonNode row = JSON.readTree(rows.get(0));
        assertTrue(List.of("json", "jsonrpc").contains(row.get("stage").textValue()), row.toString());
        assertEquals(dev.postern.transport.Frame.of(bad.strip()).sha256(), row.get("frame").textValue(), "the row fingerprints the bad line");
    }

    @Test
    void oneCompleteValidCallExecutesExactlyOnce() throws Exception {
        SessionHarness h = new SessionHarness(dir).run(SessionHarness.INIT + SessionHarness.INITIALIZED
                + SessionHarness.httpCall(9, "marker-valid"));

        assertEquals("http://127.0.0.1:9/v1/marker-valid", h.http.take(Duration.ofSeconds(5)).uri().toString());
        assertEquals(1, h.http.count());
        h.ssh.assertNoAttempts();
        assertEquals(ExitStatus.OK, h.exit);
        List<JsonNode> messages = StdoutTranscript.assertProtocolOnly(h.stdout.toByteArray(), "in-memory session", h.stderr.toByteArray());
        JsonNode result = messages.get(1).get("result");
        assertEquals(false, result.get("isError").asBoolean());
        assertEquals(200, result.get("structuredContent").get("status").asInt());
        String actions = Files.readString(dir.resolve("actions.jsonl"));
        assertTrue(actions.contains("\"kind\":\"intent\"") && actions.contains("\"kind\":\"outcome\""), actions);
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"0", "99999"})
    void aUrlPortOutOfRangeIsAnOrdinaryDenialWithADecisionRow(String port) throws Exception {
        SessionHarness h = new SessionHarness(dir).run(SessionHarness.INIT + SessionHarness.INITIALIZED
                + "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\",\"arguments\":"
                + "{\"method\":\"GET\",\"url\":\"http://127.0.0.1:" + port + "/v1/x\"}}}\n");

        h.http.assertNoAttempts();
        JsonNode result = JSON.readTree(h.lines().get(1)).get("result");
        assertTrue(result.get("isError").asBoolean(), result.toString());
        JsonNode error = JSON.readTree(result.get("content").get(0).get("text").asText()).get("error");
        assertEquals("POLICY_DENIED", error.get("code").asText());
        assertEquals("http.url.port", error.get("rule").asText());
        List<String> rows = Files.readAllLines(dir.resolve("decisions.jsonl"));
        assertEquals(1, rows.size(), rows.toString());
        assertEquals("http.url.port", JSON.readTree(rows.get(0)).get("rule").asText());
    }

    @Test
    void aDeniedCallIsAnsweredWithTheRuleAndNeverExecutes() throws Exception {
        SessionHarness h = new SessionHarness(dir).run(SessionHarness.INIT + SessionHarness.INITIALIZED
                + "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\",\"arguments\":"
                + "{\"method\":\"GET\",\"url\":\"http://127.0.0.1:9/admin/marker-denied\"}}}\n");

        h.http.assertNoAttempts();
        JsonNode result = JSON.readTree(h.lines().get(1)).get("result");
        assertTrue(result.get("isError").asBoolean());
        assertEquals("http.path", dev.postern.fixtures.ToolErrors.error(result).get("rule").textValue());
        assertTrue(Files.readString(dir.resolve("decisions.jsonl")).contains("\"rule\":\"http.path\""));
        assertEquals(ExitStatus.OK, h.exit);
    }

    @Test
    void aBatchInA20250326SessionRunsEveryPartOnceAndAnswersInOneArray() throws Exception {
        String call1 = SessionHarness.httpCall(21, "marker-batch-a").strip();
        String call2 = SessionHarness.httpCall(22, "marker-batch-b").strip();
        SessionHarness h = new SessionHarness(dir).run(SessionHarness.INIT.replace("2025-06-18", "2025-03-26")
                + SessionHarness.INITIALIZED + "[" + call1 + "," + call2 + "]\n");

        assertEquals(2, h.http.count());
        assertEquals(ExitStatus.OK, h.exit);
        List<String> lines = h.lines();
        assertEquals(2, lines.size(), String.join("\n", lines));
        JsonNode array = JSON.readTree(lines.get(1));
        assertTrue(array.isArray() && array.size() == 2, array.toString());
    }

    @Test
    void aBatchWithOneInvalidElementRunsNothing() throws Exception {
        String call1 = SessionHarness.httpCall(21, "marker-batch-bad").strip();
        SessionHarness h = new SessionHarness(dir).run(SessionHarness.INIT.replace("2025-06-18", "2025-03-26")
                + SessionHarness.INITIALIZED + "[" + call1 + ",{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}]\n");

        h.http.assertNoAttempts();
        assertEquals(ExitStatus.PROTOCOL_ERROR, h.exit);
    }
}
