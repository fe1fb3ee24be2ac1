package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.journal.FileAuditJournal;
import dev.postern.journal.HashChain;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What a real session writes to the journals: one decisions row per rejection, fingerprints and rule ids, never the input. */
class JournalContentTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static String call(int id, String tool, String arguments) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
                + "\",\"arguments\":" + arguments + "}}\n";
    }

    /** A frame that never became an action leaves only its fingerprint; a denied action says what was refused, rendered from the bound action. */
    @Test
    void decisionRowsHoldNoRawFrameContent() throws Exception {
        String unknownTool = call(2, "marker_unknown_tool", "{}");
        String schemaInvalid = call(3, "http_request", "{\"method\":\"GET\",\"url\":\"http://127.0.0.1:9/v1/x\",\"marker-schema\":1}");
        String denied = call(4, "http_request", "{\"method\":\"GET\",\"url\":\"http://127.0.0.1:9/admin/marker-denied\","
                + "\"query\":{\"k\":\"marker-denied-query\"}}");
        String sshDenied = call(5, "ssh_exec", "{\"host\":\"web\",\"command\":\"tail\",\"args\":{\"lines\":\"marker-ssh-arg\"}}");
        String notJson = "{marker-not-json}\n";
        SessionHarness h = new SessionHarness(dir).run(SessionHarness.INIT + SessionHarness.INITIALIZED
                + unknownTool + schemaInvalid + denied + sshDenied + notJson);

        h.http.assertNoAttempts();
        h.ssh.assertNoAttempts();
        String decisions = Files.readString(dir.resolve(FileAuditJournal.DECISIONS));
        for (String raw : List.of("marker_unknown_tool", "marker-schema", "marker-not-json")) {
            assertFalse(decisions.contains(raw), "raw input reached decisions.jsonl:\n" + decisions);
        }
        List<String> rows = Files.readAllLines(dir.resolve(FileAuditJournal.DECISIONS), StandardCharsets.UTF_8);
        assertEquals(5, rows.size(), decisions);
        // Denials are journaled by workers, so rows are compared as a set, not in input order.
        java.util.Map<String, JsonNode> byFrame = new java.util.HashMap<>();
        for (String row : rows) {
            JsonNode node = JSON.readTree(row);
            byFrame.put(node.get("frame").textValue(), node);
        }
        for (String frame : List.of(unknownTool, schemaInvalid, denied, sshDenied, notJson)) {
            assertTrue(byFrame.containsKey(HashChain.sha256(frame.substring(0, frame.length() - 1))),
                    "each rejected frame is fingerprinted (without its line end): " + frame);
        }
        JsonNode deniedRow = byFrame.get(HashChain.sha256(denied.substring(0, denied.length() - 1)));
        assertEquals("policy", deniedRow.get("stage").textValue());
        assertEquals("http.path", deniedRow.get("rule").textValue());
        assertEquals("http_request", deniedRow.get("tool").textValue());
        assertEquals("GET http://127.0.0.1:9/admin/marker-denied?k=marker-denied-query", deniedRow.get("refused").textValue());
        JsonNode sshRow = byFrame.get(HashChain.sha256(sshDenied.substring(0, sshDenied.length() - 1)));
        assertEquals("ssh_exec", sshRow.get("tool").textValue());
        assertEquals("web", sshRow.get("target").textValue());
        assertEquals("tail lines=marker-ssh-arg", sshRow.get("refused").textValue());
        assertEquals("json", byFrame.get(HashChain.sha256(notJson.substring(0, notJson.length() - 1))).get("stage").textValue());
    }

    /**
     * A URL's user info is a credential the agent pasted: a denial row keeps the host and says user
     * info was dropped, but never holds it (nor a hash over it), whether the URL parses or not,
     * with or without {@code journal.redactArguments}.
     */
    @ParameterizedTest(name = "redactArguments={0}")
    @ValueSource(booleans = {false, true})
    void aDenialRowDropsTheUserInfoOfTheUrlItRefused(boolean redact) throws Exception {
        List<String> urls = List.of(
                "http://agent:marker-pass-1@127.0.0.1:9/v1/x",
                "http://marker-user-2@127.0.0.1:9/admin",
                "http://agent:marker pass 3@127.0.0.1:9/v1/x",
                "http:agent:marker-pass-4@127.0.0.1:9/v1/x",
                "http://a@b:marker-pass-5@127.0.0.1:9/v1/x",
                "HTTPS:\\\\\\\\agent:marker-pass-6@127.0.0.1:9\\\\v1");
        StringBuilder input = new StringBuilder(SessionHarness.INIT + SessionHarness.INITIALIZED);
        for (int i = 0; i < urls.size(); i++) {
            input.append(call(10 + i, "http_request", "{\"method\":\"GET\",\"url\":\"" + urls.get(i) + "\"}"));
        }
        SessionHarness h = new SessionHarness(dir);
        if (redact) {
            h.redactingArguments();
        }
        h.run(input.toString());

        h.http.assertNoAttempts();
        String decisions = Files.readString(dir.resolve(FileAuditJournal.DECISIONS));
        List<String> rows = Files.readAllLines(dir.resolve(FileAuditJournal.DECISIONS), StandardCharsets.UTF_8);
        assertEquals(urls.size(), rows.size(), decisions);
        assertFalse(decisions.contains("marker"), "user info reached decisions.jsonl:\n" + decisions);
        assertFalse(h.stdout.toString(StandardCharsets.UTF_8).contains("marker"), "user info echoed to the agent");
        assertFalse(h.stderr.toString(StandardCharsets.UTF_8).contains("marker"), "user info on stderr");
        for (String row : rows) {
            JsonNode node = JSON.readTree(row);
            assertEquals("policy", node.get("stage").textValue(), row);
            assertTrue(node.path("userInfoDropped").asBoolean(), "the row says user info was dropped: " + row);
            assertFalse(node.path("refused").textValue().contains("@"), row);
            if (node.has("host")) {
                assertEquals("127.0.0.1:9", node.get("host").textValue(), row);
            }
            if (redact) {
                assertTrue(node.has("argumentsSha256"), row);
            }
        }
        JsonNode first = rows.stream().map(JournalContentTest::tree)
                .filter(n -> n.get("frame").textValue().equals(HashChain.sha256(
                        call(10, "http_request", "{\"method\":\"GET\",\"url\":\"" + urls.get(0) + "\"}").strip())))
                .findFirst().orElseThrow();
        assertEquals("http.url.userinfo", first.get("rule").textValue());
        assertEquals("127.0.0.1:9", first.get("host").textValue());
        assertEquals(redact ? "GET http://127.0.0.1:9" : "GET http://127.0.0.1:9/v1/x", first.get("refused").textValue());
        if (redact) {
            assertEquals(HashChain.sha256("http://127.0.0.1:9/v1/x"), first.get("argumentsSha256").textValue(),
                    "the hash is over the URL without its user info, so a weak password cannot be guessed from it");
        }
    }

    private static JsonNode tree(String row) {
        try {
            return JSON.readTree(row);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void anActionWritesItsIntentWithTheRenderedUrlBeforeItsOutcomeAndNeverItsBody() throws Exception {
        String allowed = call(2, "http_request", "{\"method\":\"GET\",\"url\":\"http://127.0.0.1:9/v1/items\","
                + "\"query\":{\"k\":\"marker-query\"},\"body\":\"marker-body\"}");
        SessionHarness h = new SessionHarness(dir).run(SessionHarness.INIT + SessionHarness.INITIALIZED + allowed);

        assertEquals(1, h.http.count());
        List<String> rows = Files.readAllLines(dir.resolve(FileAuditJournal.ACTIONS), StandardCharsets.UTF_8);
        assertEquals(2, rows.size());
        assertEquals("intent", JSON.readTree(rows.get(0)).get("kind").textValue());
        assertEquals("outcome", JSON.readTree(rows.get(1)).get("kind").textValue());
        assertEquals("http://127.0.0.1:9/v1/items?k=marker-query", JSON.readTree(rows.get(0)).get("url").textValue());
        assertFalse(String.join("\n", rows).contains("marker-body"), String.join("\n", rows));
        assertTrue(Files.readString(dir.resolve(FileAuditJournal.DECISIONS)).isEmpty(), "an allowed call is no decision row");
    }
}
