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
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DESIGN §6: any number of gateway processes may share one journal directory. Several packaged
 * gateways on one config run pipelined allowed and denied calls at the same time, with a rotation
 * size small enough that the files rotate under them; afterwards {@code audit verify} passes and
 * the rows add up to exactly what the sessions did.
 */
class SharedJournalIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int GATEWAYS = 4;
    private static final int ALLOWED = 120;
    private static final int DENIED = 30;

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

    private String call(int id, String path) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
                + "\"arguments\":{\"method\":\"GET\",\"url\":\"" + http.baseUri() + path + "\"}}}\n";
    }

    private byte[] session() {
        StringBuilder in = new StringBuilder(SessionBehaviourIT.HANDSHAKE);
        int id = 2;
        for (int i = 0; i < ALLOWED + DENIED; i++) {
            in.append(call(id++, i % 5 == 4 ? "/admin/" + i : "/v1/item"));
        }
        return in.toString().getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void concurrentGatewaysOnOneJournalDirectoryLoseInterleaveAndOrphanNoRow() throws Exception {
        Path config = dir.resolve("postern.json");
        Files.writeString(config, """
                {
                  "session": { "maxInFlight": 8 },
                  "journal": { "directory": "journal", "rotateBytes": 16384 },
                  "http": { "targets": [
                    { "name": "loopback", "baseUrl": "%s", "methods": ["GET"], "pathPrefixes": ["/v1"],
                      "allowPrivateAddresses": true, "timeoutMs": 10000 } ] }
                }
                """.formatted(http.baseUri()));
        byte[] input = session();
        List<CompletableFuture<LauncherProcess>> runs = new ArrayList<>();
        for (int g = 0; g < GATEWAYS; g++) {
            runs.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return LauncherProcess.run(List.of("mcp-stdio", "--config", config.toString()), input, dir, Map.of());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        for (CompletableFuture<LauncherProcess> run : runs) {
            LauncherProcess p = run.get();
            assertEquals(0, p.exitStatus, p.describe());
            String stderr = new String(p.stderr, StandardCharsets.UTF_8);
            assertTrue(!stderr.contains("could not write"), "every row was written: " + stderr);
            List<JsonNode> answers = StdoutTranscript.assertProtocolOnly(p.stdout, String.join(" ", p.command), p.stderr);
            assertEquals(1 + ALLOWED + DENIED, answers.size(), "every call answered once");
            long ok = answers.stream().filter(a -> a.path("result").has("structuredContent")).count();
            assertEquals(ALLOWED, ok, "every allowed call ran: " + new String(p.stderr, StandardCharsets.UTF_8));
        }
        assertEquals(GATEWAYS * ALLOWED, http.requestCount(), "one effect per allowed call");

        Path journal = dir.resolve("journal");
        LauncherProcess verify = LauncherProcess.run(List.of("audit", "verify", journal.toString()), new byte[0], dir, Map.of());
        String report = new String(verify.stdout, StandardCharsets.UTF_8);
        assertEquals(0, verify.exitStatus, verify.describe());
        assertTrue(report.contains("both chains intact"), report);
        assertTrue(!report.contains("interrupted"), "every intent has its outcome: " + report);

        List<JsonNode> actions = rows(journal, "actions");
        List<JsonNode> decisions = rows(journal, "decisions");
        assertEquals(GATEWAYS * ALLOWED * 2, actions.size(), "an intent and an outcome per allowed call, none lost");
        assertEquals(GATEWAYS * DENIED, decisions.size(), "one decision row per denial");
        assertTrue(segments(journal, "actions") > 1, "the files rotated while the gateways wrote: " + report);
        Set<Long> intents = new HashSet<>();
        Set<Long> outcomes = new HashSet<>();
        for (JsonNode row : actions) {
            if (row.get("kind").textValue().equals("intent")) {
                intents.add(row.get("seq").asLong());
            } else {
                outcomes.add(row.get("intent").asLong());
            }
        }
        assertEquals(intents, outcomes, "every outcome names an intent, and every intent has one");
    }

    @Test
    void startUpRepairsARowCutOffByACrashButRefusesALastRowThatNoLongerChains() throws Exception {
        Path config = SessionBehaviourIT.httpConfig(dir, http.baseUri(), "");
        byte[] oneCall = (SessionBehaviourIT.HANDSHAKE + call(2, "/v1/item")).getBytes(StandardCharsets.UTF_8);
        List<String> serve = List.of("mcp-stdio", "--config", config.toString());
        assertEquals(0, LauncherProcess.run(serve, oneCall, dir, Map.of()).exitStatus);
        Path actions = dir.resolve("journal/actions.jsonl");

        // A crash mid-write: the row's first bytes are there, its line end is not.
        Files.writeString(actions, "{\"seq\":3,\"time\":\"2026-", java.nio.file.StandardOpenOption.APPEND);
        LauncherProcess repaired = LauncherProcess.run(serve, oneCall, dir, Map.of());
        assertEquals(0, repaired.exitStatus, repaired.describe());
        LauncherProcess verify = LauncherProcess.run(List.of("audit", "verify", dir.resolve("journal").toString()), new byte[0], dir, Map.of());
        assertEquals(0, verify.exitStatus, verify.describe());
        List<JsonNode> rows = rows(dir.resolve("journal"), "actions");
        assertEquals(List.of("intent", "outcome", "repair", "intent", "outcome"), rows.stream().map(r -> r.get("kind").textValue()).toList());

        // A last row changed by hand no longer chains to the row before it: the gateway will not start on it.
        List<String> lines = Files.readAllLines(actions, StandardCharsets.UTF_8);
        lines.set(lines.size() - 2, lines.get(lines.size() - 2).replace("\"rule\":\"", "\"rule\":\"x"));
        Files.write(actions, (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
        LauncherProcess refused = LauncherProcess.run(serve, oneCall, dir, Map.of());
        String stderr = new String(refused.stderr, StandardCharsets.UTF_8);
        assertEquals(5, refused.exitStatus, refused.describe());
        assertTrue(stderr.contains(actions.toString()) && stderr.contains("the row with seq 5 does not chain to the row before it"), stderr);
        assertEquals(0, refused.stdout.length, "nothing was answered");
    }

    /** The rows of journal {@code name}, oldest file first. */
    private static List<JsonNode> rows(Path journal, String name) throws Exception {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> all = Files.list(journal)) {
            all.filter(p -> p.getFileName().toString().matches(name + "\\.[0-9]{6}\\.jsonl")).sorted().forEach(files::add);
        }
        files.add(journal.resolve(name + ".jsonl"));
        List<JsonNode> rows = new ArrayList<>();
        for (Path f : files) {
            for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                rows.add(JSON.readTree(line));
            }
        }
        return rows;
    }

    private static long segments(Path journal, String name) throws Exception {
        try (Stream<Path> all = Files.list(journal)) {
            return all.filter(p -> p.getFileName().toString().matches(name + "\\.[0-9]{6}\\.jsonl")).count();
        }
    }
}
