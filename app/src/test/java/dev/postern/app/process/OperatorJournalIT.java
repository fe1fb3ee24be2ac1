package dev.postern.app.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.journal.Ed25519Keys;
import dev.postern.journal.HashChain;
import dev.postern.fixtures.FakeHttpService;
import dev.postern.fixtures.StdoutTranscript;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an operator does with the journals, through the packaged launcher: {@code audit show} over
 * the rotated files of several concurrent gateways (and {@code --follow} while they write); signed
 * checkpoints that catch a rewritten chain only with the public key; a rate limit that refuses calls
 * with {@code RATE_LIMITED}, a decisions row and no request; a journal directory that does not exist.
 */
class OperatorJournalIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int GATEWAYS = 3;
    private static final int ALLOWED = 40;
    private static final int DENIED = 10;

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

    private Path config(String journalExtra, String targetExtra) throws Exception {
        return Files.writeString(dir.resolve("postern.json"), """
                {
                  "session": { "maxInFlight": 4 },
                  "journal": { "directory": "journal"%s },
                  "credentials": { "journal-key": { "file": "journal-key.pem" } },
                  "http": { "targets": [
                    { "name": "loopback", "baseUrl": "%s", "methods": ["GET"], "pathPrefixes": ["/v1"],
                      "allowPrivateAddresses": true%s } ] }
                }
                """.formatted(journalExtra, http.baseUri(), targetExtra));
    }

    private Path journal() {
        return dir.resolve("journal");
    }

    private LauncherProcess postern(String... args) throws Exception {
        return LauncherProcess.run(List.of(args), new byte[0], dir, Map.of());
    }

    private static List<JsonNode> jsonLines(byte[] out) throws Exception {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : new String(out, StandardCharsets.UTF_8).lines().toList()) {
            lines.add(JSON.readTree(line));
        }
        return lines;
    }

    @Test
    void auditShowJoinsTheRowsOfConcurrentGatewaysAcrossRotatedFilesAndFollowsThemLive() throws Exception {
        Path config = config(", \"rotateBytes\": 8192", "");
        Files.createDirectories(journal());
        StringBuilder session = new StringBuilder(SessionBehaviourIT.HANDSHAKE);
        for (int i = 0; i < ALLOWED + DENIED; i++) {
            session.append(call(2 + i, i % 5 == 4 ? "/admin/" + i : "/v1/item"));
        }
        byte[] input = session.toString().getBytes(StandardCharsets.UTF_8);

        try (LauncherProcess.Running follow = LauncherProcess.start(List.of("audit", "show", journal().toString(), "--follow", "--json"),
                dir, Map.of())) {
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
                StdoutTranscript.assertProtocolOnly(p.stdout, String.join(" ", p.command), p.stderr);
            }
            // Everything the gateways did reaches the follower: each action twice at most (running, then done), each denial once.
            CompletableFuture<int[]> seen = CompletableFuture.supplyAsync(() -> {
                int done = 0;
                int denied = 0;
                try {
                    while (done < GATEWAYS * ALLOWED || denied < GATEWAYS * DENIED) {
                        JsonNode line = JSON.readTree(follow.readLine());
                        if (line.get("type").asText().equals("action") && line.get("status").asText().equals("done")) {
                            done++;
                        } else if (line.get("type").asText().equals("decision")) {
                            denied++;
                        }
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                return new int[] {done, denied};
            });
            int[] counts = seen.get(60, TimeUnit.SECONDS);
            assertEquals(GATEWAYS * ALLOWED, counts[0]);
            assertEquals(GATEWAYS * DENIED, counts[1]);
        }
        try (var files = Files.list(journal())) {
            assertTrue(files.filter(p -> p.getFileName().toString().matches("actions\\.[0-9]{6}\\.jsonl")).count() > 1, "the files rotated");
        }

        LauncherProcess json = postern("audit", "show", journal().toString(), "--json");
        assertEquals(0, json.exitStatus, json.describe());
        List<JsonNode> events = jsonLines(json.stdout);
        assertEquals(GATEWAYS * ALLOWED, events.stream().filter(e -> e.get("type").asText().equals("action")).count());
        assertTrue(events.stream().filter(e -> e.get("type").asText().equals("action"))
                .allMatch(e -> e.get("status").asText().equals("done") && e.get("outcome").get("status").asInt() == 200
                        && e.get("outcome").get("intent").asLong() == e.get("seq").asLong()), "every intent joined with its own outcome");
        assertEquals(GATEWAYS * DENIED, events.stream().filter(e -> e.get("type").asText().equals("decision")).count());

        LauncherProcess table = postern("audit", "show", journal().toString(), "--denied");
        assertEquals(0, table.exitStatus, table.describe());
        List<String> rows = new String(table.stdout, StandardCharsets.UTF_8).lines().toList();
        assertTrue(rows.get(0).startsWith("TIME (UTC)"), rows.get(0));
        assertEquals(1 + GATEWAYS * DENIED, rows.size());
        assertTrue(rows.subList(1, rows.size()).stream().allMatch(r -> r.contains("denied") && r.contains("rule http.path")), rows.toString());
    }

    @Test
    void aJournalDirectoryThatDoesNotExistIsNoJournalHereForVerifyAndShow() throws Exception {
        Path absent = dir.resolve("no-such-journal");
        LauncherProcess verify = postern("audit", "verify", absent.toString());
        assertEquals(6, verify.exitStatus, verify.describe());
        assertEquals("no journal here: " + absent + " does not exist\n", new String(verify.stdout, StandardCharsets.UTF_8),
                verify.describe());
        assertTrue(new String(verify.stderr, StandardCharsets.UTF_8).contains("postern audit verify: no journal here: " + absent
                + " does not exist"), verify.describe());
        LauncherProcess show = postern("audit", "show", absent.toString());
        assertEquals(6, show.exitStatus, show.describe());
        assertEquals(0, show.stdout.length, show.describe());
        assertTrue(new String(show.stderr, StandardCharsets.UTF_8).contains("postern audit show: no journal here: " + absent
                + " does not exist"), show.describe());
    }

    @Test
    void aTamperedRowIsCaughtWithoutTheKeyAndARewrittenChainOnlyWithIt() throws Exception {
        Path keyDir = Files.createDirectories(dir.resolve("keys"));
        Optional<Ed25519Keys> keys = Ed25519Keys.fromOpenssl(keyDir);
        Assumptions.assumeTrue(keys.isPresent(), "openssl is not installed");
        Path key = Files.writeString(dir.resolve("journal-key.pem"), keys.get().privatePem());
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        Path publicKey = Files.writeString(dir.resolve("journal.pub.pem"), keys.get().publicPem());
        Path config = config(", \"signingKey\": \"journal-key\"", "");
        String input = SessionBehaviourIT.HANDSHAKE + call(2, "/v1/item") + call(3, "/admin") + call(4, "/v1/item");
        LauncherProcess gateway = LauncherProcess.run(List.of("mcp-stdio", "--config", config.toString()),
                input.getBytes(StandardCharsets.UTF_8), dir, Map.of());
        assertEquals(0, gateway.exitStatus, gateway.describe());

        LauncherProcess signed = postern("audit", "verify", journal().toString(), "--public-key", publicKey.toString());
        assertEquals(0, signed.exitStatus, signed.describe());
        assertTrue(new String(signed.stdout, StandardCharsets.UTF_8).contains("every checkpoint's signature verified"), signed.describe());

        Path actions = journal().resolve("actions.jsonl");
        List<String> original = Files.readAllLines(actions, StandardCharsets.UTF_8);
        List<ObjectNode> rows = new ArrayList<>();
        for (String line : original) {
            rows.add((ObjectNode) JSON.readTree(line));
        }
        // Tampered: one row's preview changed, nothing else (rows 1 and 2 are the session's start and its client).
        assertEquals("intent", rows.get(2).get("kind").asText());
        List<String> tampered = new ArrayList<>(original);
        tampered.set(2, tampered.get(2).replace("/v1/item", "/v1/ITEM"));
        Files.write(actions, (String.join("\n", tampered) + "\n").getBytes(StandardCharsets.UTF_8));
        LauncherProcess caught = postern("audit", "verify", journal().toString());
        assertEquals(6, caught.exitStatus, caught.describe());
        assertTrue(new String(caught.stdout, StandardCharsets.UTF_8).contains("actions.jsonl: BROKEN: row 3 was changed"), caught.describe());

        // Rewritten: the same change, and every later hash recomputed by someone without the key.
        rows.get(2).put("preview", rows.get(2).get("preview").asText().replace("/v1/item", "/v1/ITEM"));
        String prev = HashChain.GENESIS;
        StringBuilder rewritten = new StringBuilder();
        for (ObjectNode r : rows) {
            r.put("prev", prev);
            if (r.path("kind").asText().equals("checkpoint")) {
                ((ObjectNode) r.get("head")).put("sha256", prev);
            }
            String line = JSON.writeValueAsString(r);
            prev = HashChain.sha256(line);
            rewritten.append(line).append('\n');
        }
        Files.writeString(actions, rewritten, StandardCharsets.UTF_8);
        LauncherProcess blind = postern("audit", "verify", journal().toString());
        assertEquals(0, blind.exitStatus, "without the key a recomputed chain holds: " + blind.describe());
        LauncherProcess withKey = postern("audit", "verify", journal().toString(), "--public-key", publicKey.toString());
        assertEquals(6, withKey.exitStatus, withKey.describe());
        assertTrue(new String(withKey.stdout, StandardCharsets.UTF_8).contains("signature does not verify with the given public key"),
                withKey.describe());
    }

    @Test
    void aCallPastTheRateLimitIsRefusedJournaledAndNeverSent() throws Exception {
        Path config = config("", ", \"rateLimit\": { \"calls\": 1, \"perSeconds\": 3600 }");
        http.respond("/v1/second", 200, Map.of(), "no".getBytes(StandardCharsets.UTF_8));
        // One at a time, so the first call surely takes the one token.
        Path oneAtATime = Files.writeString(config, Files.readString(config).replace("\"maxInFlight\": 4", "\"maxInFlight\": 1"));
        String input = SessionBehaviourIT.HANDSHAKE + call(2, "/v1/item") + call(3, "/v1/second");

        LauncherProcess gateway = LauncherProcess.run(List.of("mcp-stdio", "--config", oneAtATime.toString()),
                input.getBytes(StandardCharsets.UTF_8), dir, Map.of());

        assertEquals(0, gateway.exitStatus, gateway.describe());
        List<JsonNode> answers = StdoutTranscript.assertProtocolOnly(gateway.stdout, String.join(" ", gateway.command), gateway.stderr);
        JsonNode second = answers.stream().filter(a -> a.path("id").asInt() == 3).findFirst().orElseThrow();
        assertTrue(second.get("result").get("isError").asBoolean(), second.toString());
        JsonNode error = JSON.readTree(second.get("result").get("content").get(0).get("text").asText()).get("error");
        assertEquals("RATE_LIMITED", error.get("code").asText());
        assertTrue(error.get("message").asText().contains("try again in"), error.toString());
        assertFalse(http.requests().stream().anyMatch(r -> r.path().startsWith("/v1/second")), "no request for the refused call: " + http.requests());
        assertEquals(1, http.requestCount());
        List<String> decisions = Files.readAllLines(journal().resolve("decisions.jsonl"), StandardCharsets.UTF_8);
        assertEquals(1, decisions.size());
        JsonNode row = JSON.readTree(decisions.get(0));
        assertEquals("RATE_LIMITED", row.get("reason").asText());
        assertEquals("rate-limit:loopback", row.get("rule").asText());
        assertEquals("http_request", row.get("tool").asText());
        assertEquals("GET " + http.baseUri() + "/v1/second", row.get("refused").asText());

        // The session is on record: who ran it, under which config, with which client, and how it ended.
        List<JsonNode> sessionRows = new ArrayList<>();
        for (String line : Files.readAllLines(journal().resolve("actions.jsonl"), StandardCharsets.UTF_8)) {
            JsonNode r = JSON.readTree(line);
            if (r.get("kind").asText().equals("session")) {
                sessionRows.add(r);
            }
        }
        assertEquals(List.of("start", "client", "end"), sessionRows.stream().map(r -> r.get("event").asText()).toList());
        assertEquals(HashChain.sha256(Files.readAllBytes(oneAtATime)), sessionRows.get(0).get("configSha256").asText());
        assertEquals(oneAtATime.toString(), sessionRows.get(0).get("config").asText());
        assertTrue(sessionRows.get(0).get("pid").asLong() > 0);
        assertEquals("it", sessionRows.get(1).get("client").asText());
        assertEquals("2025-11-25", sessionRows.get(1).get("protocolVersion").asText());
        assertEquals("OK", sessionRows.get(2).get("exit").asText());
        assertEquals(row.get("session").asText(), sessionRows.get(0).get("session").asText(), "the decision row names its session");

        LauncherProcess shown = postern("audit", "show", journal().toString(), "--denied");
        assertTrue(new String(shown.stdout, StandardCharsets.UTF_8).contains("denied RATE_LIMITED"), shown.describe());
    }
}
