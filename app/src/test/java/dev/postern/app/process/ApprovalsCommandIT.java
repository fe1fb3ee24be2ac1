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
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code postern approvals} against two real gateway processes on one journal directory, each holding
 * one call of a client that declares no elicitation (one per era): both are listed with their actions;
 * one approved by id runs once, the other denied by id runs nothing; a stale file of a gone gateway is
 * neither listed nor answerable; an unknown id fails.
 */
class ApprovalsCommandIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern ENTRY = Pattern.compile("^([0-9a-f]{10})  pid (\\d+) ");

    @TempDir
    Path dir;
    FakeHttpService http;
    Path config;

    @BeforeEach
    void start() throws Exception {
        http = FakeHttpService.start();
        config = dir.resolve("postern.json");
        Files.writeString(config, """
                { "session": { "approval": "local" },
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

    private LauncherProcess approvals(String... words) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("approvals", "--config", config.toString()));
        args.addAll(List.of(words));
        return LauncherProcess.run(args, new byte[0], dir, Map.of());
    }

    /** The listed approvals, id to the listing's text, once {@code count} are listed. */
    private Map<String, String> listed(int count) throws Exception {
        for (int attempt = 0; ; attempt++) {
            LauncherProcess list = approvals("list");
            assertEquals(0, list.exitStatus, list.describe());
            Map<String, String> out = new LinkedHashMap<>();
            String id = null;
            for (String line : new String(list.stdout, StandardCharsets.UTF_8).split("\n")) {
                Matcher m = ENTRY.matcher(line);
                if (m.find()) {
                    id = m.group(1);
                    out.put(id, line);
                } else if (id != null) {
                    out.put(id, out.get(id) + "\n" + line);
                }
            }
            if (out.size() >= count || attempt == 100) {
                return out;
            }
            Thread.sleep(100);
        }
    }

    private static String idOf(Map<String, String> listed, String marker) {
        return listed.entrySet().stream().filter(e -> e.getValue().contains("/v1/" + marker)).map(Map.Entry::getKey).findFirst()
                .orElseThrow(() -> new AssertionError("no approval shows " + marker + ": " + listed));
    }

    private static String rule(JsonNode response) throws Exception {
        assertTrue(response.path("result").path("isError").asBoolean(false), response.toString());
        return JSON.readTree(response.path("result").path("content").path(0).path("text").asText()).path("error").path("rule").asText();
    }

    @Test
    void twoGatewaysOnOneJournalAreEachAnsweredByIdAndOnlyTheApprovedCallRuns() throws Exception {
        try (LauncherProcess.Running a = LauncherProcess.start(List.of("mcp-stdio", "--config", config.toString()), dir, Map.of());
             LauncherProcess.Running b = LauncherProcess.start(List.of("mcp-stdio", "--config", config.toString()), dir, Map.of())) {
            a.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                    + "\"capabilities\":{},\"clientInfo\":{\"name\":\"terminal-it\",\"version\":\"1\"}}}\n");
            a.readLine();
            a.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
            a.send(post(2, "first", ""));
            b.send(post(1, "second", ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                    + "\"io.modelcontextprotocol/clientCapabilities\":{}}"));

            Map<String, String> listed = listed(2);
            assertEquals(2, listed.size(), listed.toString());
            String first = idOf(listed, "first");
            String second = idOf(listed, "second");
            assertTrue(listed.get(first).contains("client terminal-it 1") && listed.get(first).contains("rule http.target:loopback"),
                    listed.get(first));
            Path files = dir.resolve("journal").resolve("approvals");
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(files)));

            LauncherProcess approved = approvals("approve", first);
            assertEquals(0, approved.exitStatus, approved.describe());
            JsonNode done = JSON.readTree(a.readLine());
            assertEquals(2, done.path("id").asInt());
            assertFalse(done.path("result").path("isError").asBoolean(true), done.toString());

            LauncherProcess denied = approvals("deny", second);
            assertEquals(0, denied.exitStatus, denied.describe());
            assertEquals("approval.declined", rule(JSON.readTree(b.readLine())));

            assertEquals(6, approvals("approve", first).exitStatus, "an answered approval cannot be answered again");
            assertEquals(6, approvals("deny", "0123456789").exitStatus, "an unknown id");
            a.closeStdin();
            b.closeStdin();
            assertEquals(0, a.waitFor(30), a.describe());
            assertEquals(0, b.waitFor(30), b.describe());
            StdoutTranscript.assertProtocolOnly(a.transcript(), "gateway a", a.stderr());
            StdoutTranscript.assertProtocolOnly(b.transcript(), "gateway b", b.stderr());
        }
        assertEquals(List.of("POST /v1/first"), http.requests().stream().map(r -> r.method() + " " + r.path()).toList());
        String decisions = Files.readString(dir.resolve("journal").resolve("decisions.jsonl"), StandardCharsets.UTF_8);
        assertTrue(decisions.contains("\"channel\":\"terminal\""), decisions);
    }

    @Test
    void aStaleFileOfAGoneGatewayIsNeitherListedNorAnswerable() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path files = Files.createDirectories(dir.resolve("journal").resolve("approvals"));
        Files.writeString(files.resolve("abcdef0123.pending"), JSON.createObjectNode().put("id", "abcdef0123").put("pid", gone.pid())
                .put("expiry", Instant.now().plusSeconds(600).toString()).put("tool", "http_request").put("rule", "http.target:loopback")
                .put("client", "c").put("action", "stale action").put("digest", "sha256:" + "ab".repeat(32)).toString());
        LauncherProcess list = approvals();
        assertEquals(0, list.exitStatus, list.describe());
        assertFalse(new String(list.stdout, StandardCharsets.UTF_8).contains("abcdef0123"), list.describe());
        assertEquals(6, approvals("approve", "abcdef0123").exitStatus);
        assertFalse(Files.exists(files.resolve("abcdef0123.answer")), "no answer is written for a gone gateway");
    }
}
