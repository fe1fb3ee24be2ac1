package dev.postern.app.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.fixtures.FakeHttpService;
import dev.postern.fixtures.StdoutTranscript;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rate limit holds across every gateway on one journal directory: several packaged gateways
 * calling one limited target at once get exactly {@code calls} through between them; a gateway
 * started later in the window still sees those calls; one killed with SIGKILL mid-window leaks no
 * capacity and leaves the counts and the journal whole.
 */
class SharedRateLimitIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int CALLS = 10;
    private static final int GATEWAYS = 4;
    private static final int EACH = 8;

    @TempDir
    Path dir;

    FakeHttpService http;

    @BeforeEach
    void start() {
        http = FakeHttpService.start();
        http.respond("/v1/item", 200, Map.of(), "item".getBytes(StandardCharsets.UTF_8));
        http.stall("/v1/slow", Duration.ofSeconds(30));
    }

    @AfterEach
    void stop() {
        http.close();
    }

    private Path config() throws Exception {
        // An hour's window: the refill (one call every 360 s) cannot let an extra call in while the test runs.
        return Files.writeString(dir.resolve("postern.json"), """
                {
                  "session": { "maxInFlight": 8 },
                  "journal": { "directory": "journal" },
                  "http": { "targets": [
                    { "name": "loopback", "baseUrl": "%s", "methods": ["GET"], "pathPrefixes": ["/v1"],
                      "allowPrivateAddresses": true, "timeoutMs": 60000, "rateLimit": { "calls": %d, "perSeconds": 3600 } } ] }
                }
                """.formatted(http.baseUri(), CALLS));
    }

    private String call(int id, String path) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
                + "\"arguments\":{\"method\":\"GET\",\"url\":\"" + http.baseUri() + path + "\"}}}\n";
    }

    private byte[] session(int calls) {
        StringBuilder in = new StringBuilder(SessionBehaviourIT.HANDSHAKE);
        for (int i = 0; i < calls; i++) {
            in.append(call(i + 2, "/v1/item"));
        }
        return in.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The answers of one finished gateway: how many calls ran and how many were refused RATE_LIMITED. */
    private record Tally(long ran, long limited) {
    }

    private Tally tally(LauncherProcess p, int calls) throws Exception {
        assertEquals(0, p.exitStatus, p.describe());
        List<JsonNode> answers = StdoutTranscript.assertProtocolOnly(p.stdout, String.join(" ", p.command), p.stderr);
        assertEquals(1 + calls, answers.size(), "every call answered once");
        long ran = 0;
        long limited = 0;
        for (JsonNode a : answers) {
            JsonNode result = a.path("result");
            if (result.path("structuredContent").has("status")) {
                ran++;
            } else if (result.path("isError").asBoolean()) {
                String text = result.path("content").path(0).path("text").asText();
                assertTrue(text.contains("RATE_LIMITED") && text.contains("allows 10 calls") && text.contains("try again in"), text);
                limited++;
            }
        }
        assertEquals(calls, ran + limited, "each call ran or was rate-limited: " + answers);
        return new Tally(ran, limited);
    }

    private LauncherProcess serve(int calls) throws Exception {
        return LauncherProcess.run(List.of("mcp-stdio", "--config", config().toString()), session(calls), dir, Map.of());
    }

    private long rateLimitedRows() throws Exception {
        return Files.readAllLines(dir.resolve("journal/decisions.jsonl"), StandardCharsets.UTF_8).stream()
                .map(l -> {
                    try {
                        return JSON.readTree(l);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                })
                .filter(r -> "RATE_LIMITED".equals(r.path("reason").asText()) && "rate-limit:loopback".equals(r.path("rule").asText()))
                .count();
    }

    @Test
    void concurrentGatewaysGetExactlyTheLimitBetweenThemAndARestartInTheWindowStillSeesIt() throws Exception {
        config();
        List<CompletableFuture<LauncherProcess>> runs = new ArrayList<>();
        for (int g = 0; g < GATEWAYS; g++) {
            runs.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return serve(EACH);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        long ran = 0;
        long limited = 0;
        for (CompletableFuture<LauncherProcess> run : runs) {
            Tally t = tally(run.get(), EACH);
            ran += t.ran();
            limited += t.limited();
        }
        assertEquals(CALLS, ran, "exactly the limit ran across " + GATEWAYS + " gateways");
        assertEquals(CALLS, http.requestCount(), "the target saw exactly the limit");
        assertEquals(GATEWAYS * EACH - CALLS, limited);
        assertEquals(limited, rateLimitedRows(), "one decisions row per refusal");

        Tally later = tally(serve(3), 3);
        assertEquals(new Tally(0, 3), later, "a gateway started within the window sees the earlier calls");
        assertEquals(CALLS, http.requestCount());
    }

    @Test
    void aGatewayKilledMidWindowLeaksNoCapacityAndCorruptsNothing() throws Exception {
        Path config = config();
        try (LauncherProcess.Running a = LauncherProcess.start(List.of("mcp-stdio", "--config", config.toString()), dir, Map.of())) {
            a.send(SessionBehaviourIT.HANDSHAKE);
            a.readLine();
            for (int i = 0; i < 3; i++) {
                a.send(call(10 + i, "/v1/item"));
                assertTrue(a.readLine().contains("\"status\":200"), a.describe());
            }
            // Two calls in flight (admitted, at the target) when the gateway dies.
            a.send(call(20, "/v1/slow"));
            a.send(call(21, "/v1/slow"));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (http.requestCount() < 5 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(5, http.requestCount(), "both slow calls reached the target");
            Process kill = new ProcessBuilder("kill", "-KILL", Long.toString(a.pid())).redirectErrorStream(true).start();
            assertEquals(0, kill.waitFor(), "kill -KILL ran");
            assertEquals(137, a.waitFor(30), "killed by SIGKILL");
        }
        Path counts = dir.resolve("journal/rate-limits.counts");
        assertEquals(0, Files.size(counts) % (2 * 93), "the counts file holds whole records");

        Tally after = tally(serve(EACH), EACH);
        assertEquals(CALLS - 5, after.ran(), "the killed gateway's five calls count, and it holds nothing more");
        assertEquals(CALLS, http.requestCount(), "the target saw exactly the limit");

        LauncherProcess verify = LauncherProcess.run(List.of("audit", "verify", dir.resolve("journal").toString()), new byte[0], dir,
                Map.of());
        String report = new String(verify.stdout, StandardCharsets.UTF_8);
        assertEquals(0, verify.exitStatus, verify.describe() + report);
        assertTrue(report.contains("both chains intact"), report);
    }
}
