package dev.postern.app.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.fixtures.FakeHttpService;
import dev.postern.fixtures.StdoutTranscript;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Human approval through the packaged launcher, with scripted clients in both eras: the approved
 * POST reaches the service once, every other ending never; stdout stays protocol-only throughout.
 */
class ApprovalIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":%s}";
    private static final String ACCEPT = "{\"action\":\"accept\",\"content\":{\"approve\":true}}";

    @TempDir
    Path dir;
    FakeHttpService http;
    Path config;

    @BeforeEach
    void start() throws Exception {
        http = FakeHttpService.start();
        config = dir.resolve("postern.json");
        Files.writeString(config, """
                { "session": { "approvalTimeoutSeconds": 2, "approval": "client" },
                  "journal": { "directory": "journal" },
                  "http": { "targets": [ { "name": "loopback", "baseUrl": "%s", "methods": ["GET", "POST"],
                    "confirm": ["POST"], "pathPrefixes": ["/v1"], "allowPrivateAddresses": true } ] } }
                """.formatted(http.baseUri()));
    }

    @AfterEach
    void stop() {
        http.close();
    }

    private String post(int id, String marker, String extra) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
                + "\"arguments\":{\"method\":\"POST\",\"url\":\"" + http.baseUri() + "/v1/" + marker + "\",\"body\":\"x\"}"
                + extra + "}}\n";
    }

    private List<String> paths() {
        return http.requests().stream().map(r -> r.method() + " " + r.path()).toList();
    }

    private static String rule(JsonNode response) throws Exception {
        assertTrue(response.path("result").path("isError").asBoolean(false), response.toString());
        return JSON.readTree(response.path("result").path("content").path(0).path("text").asText()).path("error").path("rule").asText();
    }

    @Test
    void handshakeClientApprovesOneDeclinesOneAndLetsOneTimeOut() throws Exception {
        try (LauncherProcess.Running p = LauncherProcess.start(List.of("mcp-stdio", "--config", config.toString()), dir, Map.of())) {
            p.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                    + "\"capabilities\":{\"elicitation\":{\"form\":{}}},\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}\n");
            p.readLine();
            p.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");

            p.send(post(2, "approved", ""));
            JsonNode question = JSON.readTree(p.readLine());
            assertEquals("elicitation/create", question.path("method").asText(), p.describe());
            assertTrue(question.path("params").path("message").asText().contains("/v1/approved"));
            p.send("{\"jsonrpc\":\"2.0\",\"id\":" + question.get("id") + ",\"result\":" + ACCEPT + "}\n");
            JsonNode approved = JSON.readTree(p.readLine());
            assertEquals(2, approved.path("id").asInt());
            assertFalse(approved.path("result").path("isError").asBoolean(true), approved.toString());

            p.send(post(3, "marker-declined", ""));
            question = JSON.readTree(p.readLine());
            p.send("{\"jsonrpc\":\"2.0\",\"id\":" + question.get("id") + ",\"result\":{\"action\":\"decline\"}}\n");
            assertEquals("approval.declined", rule(JSON.readTree(p.readLine())));

            p.send(post(4, "marker-timeout", ""));
            question = JSON.readTree(p.readLine());
            JsonNode a = JSON.readTree(p.readLine());
            JsonNode b = JSON.readTree(p.readLine());
            JsonNode result = a.has("id") ? a : b;
            assertEquals("approval.timeout", rule(result));
            p.send("{\"jsonrpc\":\"2.0\",\"id\":" + question.get("id") + ",\"result\":" + ACCEPT + "}\n");
            p.send("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}\n");
            assertEquals(5, JSON.readTree(p.readLine()).path("id").asInt(), "a late answer runs nothing and ends nothing");
            p.closeStdin();
            assertEquals(0, p.waitFor(30), p.describe());
            StdoutTranscript.assertProtocolOnly(p.transcript(), String.join(" ", p.command), p.stderr());
        }
        assertEquals(List.of("POST /v1/approved"), paths());
    }

    @Test
    void statelessClientRoundTripRunsOnceAndAReplayOrAClientWithoutElicitationRunsNothing() throws Exception {
        try (LauncherProcess.Running p = LauncherProcess.start(List.of("mcp-stdio", "--config", config.toString()), dir, Map.of())) {
            String caps = "{\"elicitation\":{}}";
            p.send(post(1, "approved", "," + META.formatted(caps)));
            JsonNode first = JSON.readTree(p.readLine()).path("result");
            assertEquals("input_required", first.path("resultType").asText(), first.toString());
            String state = first.path("requestState").asText();
            String retry = ",\"inputResponses\":{\"approval\":" + ACCEPT + "},\"requestState\":\"" + state + "\"";
            p.send(post(2, "approved", "," + META.formatted(caps) + retry));
            JsonNode done = JSON.readTree(p.readLine());
            assertFalse(done.path("result").path("isError").asBoolean(true), done.toString());
            p.send(post(3, "approved", "," + META.formatted(caps) + retry));
            assertEquals("approval.invalid", rule(JSON.readTree(p.readLine())), "the same requestState again");
            p.send(post(4, "marker-no-capability", "," + META.formatted("{}")));
            assertEquals(-32021, JSON.readTree(p.readLine()).path("error").path("code").asInt());
            p.closeStdin();
            assertEquals(0, p.waitFor(30), p.describe());
            StdoutTranscript.assertProtocolOnly(p.transcript(), String.join(" ", p.command), p.stderr());
        }
        assertEquals(List.of("POST /v1/approved"), paths());
        String decisions = Files.readString(dir.resolve("journal").resolve("decisions.jsonl"), StandardCharsets.UTF_8);
        assertTrue(decisions.contains("\"result\":\"approval.invalid\""), decisions);
        assertTrue(decisions.contains("\"detail\":\"request-state-replayed\""), decisions);
    }
}
