package dev.postern.app.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.fixtures.FakeHttpService;
import dev.postern.fixtures.StdoutTranscript;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The session's life on the packaged launcher: end of input with a call in flight, a broken stdout,
 * the in-flight limit, cancellation, and a duplicate id. Timing is only ever used to make a call
 * stay in flight, never asserted.
 */
class SessionBehaviourIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String HANDSHAKE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
            + "\"capabilities\":{},\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}\n"
            + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

    @TempDir
    Path dir;

    FakeHttpService http;

    @BeforeEach
    void start() {
        http = FakeHttpService.start();
        http.respond("/v1/fast", 200, Map.of(), "fast".getBytes(StandardCharsets.UTF_8));
    }

    @AfterEach
    void stop() {
        http.close();
    }

    /** A config with one loopback HTTP target under /v1 and the given {@code session} block. */
    static Path httpConfig(Path dir, URI base, String session) throws Exception {
        Path config = dir.resolve("postern.json");
        Files.writeString(config, """
                {
                  %s
                  "journal": { "directory": "journal" },
                  "http": { "targets": [
                    { "name": "loopback", "baseUrl": "%s", "methods": ["GET"], "pathPrefixes": ["/v1"],
                      "allowPrivateAddresses": true, "timeoutMs": 10000 } ] }
                }
                """.formatted(session.isEmpty() ? "" : "\"session\": " + session + ",", base));
        return config;
    }

    String call(Object id, String path) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
                + "\"arguments\":{\"method\":\"GET\",\"url\":\"" + http.baseUri() + path + "\"}}}\n";
    }

    private List<String> args(String session) throws Exception {
        return List.of("mcp-stdio", "--config", httpConfig(dir, http.baseUri(), session).toString());
    }

    private static JsonNode byId(List<JsonNode> messages, int id) {
        return messages.stream().filter(m -> m.get("id").isIntegralNumber() && m.get("id").asInt() == id)
                .findFirst().orElse(null);
    }

    @Test
    void endOfInputWithACallInFlightAnswersItBeforeExitingZero() throws Exception {
        http.stall("/v1/slow", Duration.ofSeconds(1));
        LauncherProcess p = LauncherProcess.run(args(""), (HANDSHAKE + call(2, "/v1/slow")).getBytes(StandardCharsets.UTF_8),
                dir, Map.of());

        List<JsonNode> messages = StdoutTranscript.assertProtocolOnly(p.stdout, String.join(" ", p.command), p.stderr);
        assertEquals(0, p.exitStatus, p.describe());
        JsonNode answer = byId(messages, 2);
        assertTrue(answer != null && answer.has("result"), "the in-flight call is answered: " + messages);
        assertEquals(200, answer.get("result").get("structuredContent").get("status").asInt(), answer.toString());
        assertEquals(1, http.requestCount());
    }

    @Test
    void brokenStdoutEndsTheProcessPromptlyWithStatusThree() throws Exception {
        try (LauncherProcess.Running p = LauncherProcess.start(args(""), dir, Map.of())) {
            p.send(HANDSHAKE);
            assertTrue(p.readLine().contains("\"id\":1"), p.describe());
            p.closeStdout();
            // stdin stays open: only the failed write can end the process.
            p.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
            assertEquals(3, p.waitFor(30), p.describe());
            assertTrue(new String(p.stderr(), StandardCharsets.UTF_8).contains("broken"), p.describe());
        }
    }

    @Test
    void atMaxInFlightOneTwoStallingCallsNeverOverlapAndBothAreAnswered() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        for (String path : List.of("/v1/slow-a", "/v1/slow-b")) {
            http.respond(path, request -> {
                events.add("start " + path);
                sleep(500);
                events.add("end " + path);
                return new FakeHttpService.Reply(200, Map.of(), new byte[0]);
            });
        }
        LauncherProcess p = LauncherProcess.run(args("{ \"maxInFlight\": 1 }"),
                (HANDSHAKE + call(2, "/v1/slow-a") + call(3, "/v1/slow-b")).getBytes(StandardCharsets.UTF_8), dir, Map.of());

        List<JsonNode> messages = StdoutTranscript.assertProtocolOnly(p.stdout, String.join(" ", p.command), p.stderr);
        assertEquals(0, p.exitStatus, p.describe());
        assertFalse(byId(messages, 2).get("result").get("isError").asBoolean(), messages.toString());
        assertFalse(byId(messages, 3).get("result").get("isError").asBoolean(), messages.toString());
        assertEquals(List.of("start /v1/slow-a", "end /v1/slow-a", "start /v1/slow-b", "end /v1/slow-b"), events);
    }

    @Test
    void atMaxInFlightTwoTheSameCallsDoOverlap() throws Exception {
        // The control for the test above: the same calls with room for two do run at once.
        CountDownLatch bothArrived = new CountDownLatch(2);
        List<String> events = new CopyOnWriteArrayList<>();
        for (String path : List.of("/v1/slow-a", "/v1/slow-b")) {
            http.respond(path, request -> {
                events.add("start " + path);
                bothArrived.countDown();
                await(bothArrived);
                events.add("end " + path);
                return new FakeHttpService.Reply(200, Map.of(), new byte[0]);
            });
        }
        LauncherProcess p = LauncherProcess.run(args("{ \"maxInFlight\": 2 }"),
                (HANDSHAKE + call(2, "/v1/slow-a") + call(3, "/v1/slow-b")).getBytes(StandardCharsets.UTF_8), dir, Map.of());

        StdoutTranscript.assertProtocolOnly(p.stdout, String.join(" ", p.command), p.stderr);
        assertEquals(0, p.exitStatus, p.describe());
        assertTrue(events.get(0).startsWith("start") && events.get(1).startsWith("start"), events.toString());
    }

    @Test
    void cancelledInFlightCallGetsNoResponseAndTheNextRequestIsAnswered() throws Exception {
        http.stall("/v1/slow", Duration.ofSeconds(3));
        try (LauncherProcess.Running p = LauncherProcess.start(args(""), dir, Map.of())) {
            p.send(HANDSHAKE + call(2, "/v1/slow"));
            assertEquals("/v1/slow", http.takeRequest(Duration.ofSeconds(30)).path(), "the call is in flight");
            p.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2,\"reason\":\"it\"}}\n");
            p.send(call(3, "/v1/fast"));
            assertTrue(p.readLine().contains("\"id\":1"), p.describe());
            JsonNode next = JSON.readTree(p.readLine());
            assertEquals(3, next.get("id").asInt(), "the next request is answered, the cancelled one is not: " + next);
            p.closeStdin();
            assertEquals(0, p.waitFor(30), p.describe());
            List<JsonNode> messages = StdoutTranscript.assertProtocolOnly(p.transcript(), String.join(" ", p.command), p.stderr());
            assertEquals(null, byId(messages, 2), "no response for the cancelled call: " + messages);
            assertEquals(2, messages.size(), messages.toString());
        }
    }

    @Test
    void aDuplicateIdWhileTheFirstIsInFlightClosesTheSession() throws Exception {
        http.stall("/v1/slow", Duration.ofSeconds(2));
        LauncherProcess p = LauncherProcess.run(args(""),
                (HANDSHAKE + call(5, "/v1/slow") + call(5, "/v1/mk-duplicate-id-mk") + call(6, "/v1/fast"))
                        .getBytes(StandardCharsets.UTF_8), dir, Map.of());

        List<JsonNode> messages = StdoutTranscript.assertProtocolOnly(p.stdout, String.join(" ", p.command), p.stderr);
        assertEquals(2, p.exitStatus, p.describe());
        JsonNode last = messages.get(messages.size() - 1);
        assertEquals(-32600, last.get("error").get("code").asInt(), messages.toString());
        assertEquals(5, last.get("id").asInt(), last.toString());
        assertEquals(2, messages.size(), "initialize, then only the closing error: " + messages);
        assertTrue(http.requests().stream().noneMatch(r -> r.path().contains("mk-duplicate-id-mk") || r.path().contains("fast")),
                "neither the duplicate nor anything after it ran: " + http.requests());
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "stateless era: {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void nonFiniteNumbersInArgumentsAreSchemaErrorsAndTheSessionGoesOn(boolean stateless) throws Exception {
        String meta = stateless ? ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{}}" : "";
        StringBuilder in = new StringBuilder(stateless ? "" : HANDSHAKE);
        String[] arguments = {
            "{\"method\":1e309,\"url\":\"" + http.baseUri() + "/v1/fast\"}",
            "{\"method\":\"GET\",\"url\":-1e309}",
            "{\"method\":\"GET\",\"url\":\"" + http.baseUri() + "/v1/fast\",\"query\":{\"q\":1e999}}",
            "{\"method\":\"GET\",\"url\":\"" + http.baseUri() + "/v1/fast\",\"headers\":{\"Accept\":1E999999999}}"};
        for (int i = 0; i < arguments.length; i++) {
            in.append("{\"jsonrpc\":\"2.0\",\"id\":").append(102 + i).append(",\"method\":\"tools/call\",\"params\":{")
                    .append("\"name\":\"http_request\",\"arguments\":").append(arguments[i]).append(meta).append("}}\n");
        }
        in.append(stateless
                ? "{\"jsonrpc\":\"2.0\",\"id\":200,\"method\":\"tools/list\",\"params\":{" + meta.substring(1) + "}}\n"
                : "{\"jsonrpc\":\"2.0\",\"id\":200,\"method\":\"ping\"}\n");
        LauncherProcess p = LauncherProcess.run(args(""), in.toString().getBytes(StandardCharsets.UTF_8), dir, Map.of());

        List<JsonNode> messages = StdoutTranscript.assertProtocolOnly(p.stdout, String.join(" ", p.command), p.stderr);
        assertEquals(0, p.exitStatus, p.describe());
        for (int i = 0; i < arguments.length; i++) {
            JsonNode result = byId(messages, 102 + i).get("result");
            assertTrue(result.get("isError").asBoolean(), result.toString());
            assertTrue(result.get("content").get(0).get("text").asText().contains("INVALID_ARGUMENTS"), result.toString());
        }
        assertTrue(byId(messages, 200).has("result"), "the session went on: " + messages);
        assertEquals(0, http.requestCount(), "nothing executed");
        assertFalse(new String(p.stderr, StandardCharsets.UTF_8).contains("Exception"), p.describe());
    }

    @Test
    void pingIsAnsweredAndCancelServedWhileTheOnlyWorkerIsBusy() throws Exception {
        http.stall("/v1/slow", Duration.ofSeconds(60));
        try (LauncherProcess.Running p = LauncherProcess.start(args("{ \"maxInFlight\": 1 }"), dir, Map.of())) {
            p.send(HANDSHAKE + call(2, "/v1/slow"));
            assertTrue(p.readLine().contains("\"id\":1"), p.describe());
            assertEquals("/v1/slow", http.takeRequest(Duration.ofSeconds(30)).path(), "the only worker is busy");
            p.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n");
            assertEquals(3, JSON.readTree(p.readLine()).get("id").asInt(), "ping answered while busy");
            p.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2}}\n" + call(4, "/v1/fast"));
            // The fast call can run only once the stalled one was cancelled and freed the worker.
            assertEquals(4, JSON.readTree(p.readLine()).get("id").asInt(), p.describe());
            p.closeStdin();
            assertEquals(0, p.waitFor(30), p.describe());
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
