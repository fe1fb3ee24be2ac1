package dev.postern.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.postern.app.ExitStatus;
import dev.postern.fixtures.FakeHttpService;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code rateLimit} on an HTTP target through the real gateway wiring: past it, RATE_LIMITED, a decisions row, and no request. */
class RateLimitedSessionTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
            + "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n"
            + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

    @TempDir
    Path dir;

    FakeHttpService http;

    @BeforeEach
    void start() {
        http = FakeHttpService.start();
        http.respond("/v1/item", 200, Map.of(), "item".getBytes(StandardCharsets.UTF_8));
    }

    @AfterEach
    void stop() {
        http.close();
    }

    private String call(int id) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
                + "\"arguments\":{\"method\":\"GET\",\"url\":\"" + http.baseUri() + "/v1/item\"}}}\n";
    }

    @Test
    void callsPastTheLimitAreRefusedWithTheWaitJournaledAsDecisionsAndNeverSent() throws Exception {
        Path config = Files.writeString(dir.resolve("postern.json"), """
                {
                  "session": { "maxInFlight": 1 },
                  "journal": { "directory": "journal" },
                  "http": { "targets": [
                    { "name": "loopback", "baseUrl": "%s", "methods": ["GET"], "pathPrefixes": ["/v1"], "allowPrivateAddresses": true,
                      "rateLimit": { "calls": 2, "perSeconds": 3600 } } ] }
                }
                """.formatted(http.baseUri()));

        CliRun run = CliRun.withStdin(INIT + call(2) + call(3) + call(4) + call(5), "mcp-stdio", "--config", config.toString());

        assertEquals(ExitStatus.OK, run.exit, run.toString());
        List<JsonNode> answers = new ArrayList<>();
        for (String line : run.out().lines().toList()) {
            answers.add(JSON.readTree(line));
        }
        List<JsonNode> limited = answers.stream().filter(a -> a.path("result").path("isError").asBoolean()).toList();
        assertEquals(2, limited.size(), run.out());
        for (JsonNode a : limited) {
            JsonNode error = JSON.readTree(a.get("result").get("content").get(0).get("text").asText()).get("error");
            assertEquals("RATE_LIMITED", error.get("code").asText());
            assertTrue(error.get("message").asText().matches("http target loopback allows 2 calls per 3600 s; this call was not made; "
                    + "try again in 1[0-9]{3} s"), error.toString());
        }
        assertEquals(2, http.requestCount(), "the refused calls never reached the target");
        List<String> decisions = Files.readAllLines(dir.resolve("journal/decisions.jsonl"));
        assertEquals(2, decisions.size());
        for (String d : decisions) {
            JsonNode row = JSON.readTree(d);
            assertEquals("policy", row.get("stage").asText());
            assertEquals("RATE_LIMITED", row.get("reason").asText());
            assertEquals("rate-limit:loopback", row.get("rule").asText());
        }
        List<String> kinds = new ArrayList<>();
        for (String a : Files.readAllLines(dir.resolve("journal/actions.jsonl"))) {
            kinds.add(JSON.readTree(a).get("kind").asText());
        }
        assertEquals(List.of("session", "session", "intent", "outcome", "intent", "outcome", "session"), kinds,
                "an intent and an outcome for each call that ran, none for the others");
    }

    @Test
    void aRateLimitOutOfBoundsIsAConfigErrorAtItsPointer() throws Exception {
        Path config = Files.writeString(dir.resolve("postern.json"), """
                { "journal": { "directory": "journal" },
                  "http": { "targets": [ { "name": "a", "baseUrl": "http://127.0.0.1:9", "methods": ["GET"], "pathPrefixes": ["/"],
                      "rateLimit": { "calls": 0, "perSeconds": 60 } } ] } }
                """);
        CliRun run = CliRun.of("check-config", "--config", config.toString());
        assertEquals(ExitStatus.CONFIG_ERROR, run.exit, run.toString());
        assertTrue(run.err().contains("/http/targets/0/rateLimit/calls"), run.err());
    }

    @Test
    void checkConfigAndPosternTargetsShowEachTargetsRateLimit() throws Exception {
        Path config = Files.writeString(dir.resolve("postern.json"), """
                { "journal": { "directory": "journal" },
                  "http": { "targets": [ { "name": "api", "baseUrl": "http://127.0.0.1:9", "methods": ["GET"], "pathPrefixes": ["/"],
                      "allowPrivateAddresses": true, "rateLimit": { "calls": 30, "perSeconds": 60 } },
                    { "name": "free", "baseUrl": "http://127.0.0.1:8", "methods": ["GET"], "pathPrefixes": ["/"], "allowPrivateAddresses": true } ] } }
                """);
        CliRun check = CliRun.of("check-config", "--config", config.toString());
        assertEquals(ExitStatus.OK, check.exit, check.toString());
        assertTrue(check.out().lines().anyMatch(l -> l.startsWith("http target api:") && l.contains(", rate limit 30 calls per 60 s")), check.out());
        assertTrue(check.out().lines().anyMatch(l -> l.startsWith("http target free:") && !l.contains("rate limit")), check.out());

        CliRun run = CliRun.withStdin(INIT + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"postern_targets\","
                + "\"arguments\":{}}}\n", "mcp-stdio", "--config", config.toString());
        JsonNode answer = run.out().lines().map(l -> {
            try {
                return JSON.readTree(l);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }).filter(a -> a.path("id").asInt() == 2).findFirst().orElseThrow();
        JsonNode http = answer.get("result").get("structuredContent").get("http");
        assertEquals(30, http.get(0).get("rateLimit").get("calls").asInt(), answer.toString());
        assertEquals(60, http.get(0).get("rateLimit").get("perSeconds").asInt());
        assertTrue(http.get(1).get("rateLimit") == null, "no limit, no field: " + http);
    }
}
