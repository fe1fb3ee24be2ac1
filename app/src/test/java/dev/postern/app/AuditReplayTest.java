package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.postern.app.cli.Cli;
import dev.postern.app.cli.Io;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code postern audit replay}: a journal written by a real gateway session is decided again under a
 * narrowed, a widened and the same config, through the command line; nothing runs, redacted rows
 * are counted and never guessed at.
 */
class AuditReplayTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String BASE = """
            {
              "journal": { "directory": "./journal" %s},
              "credentials": { "deploy-key": { "file": "./no-such-key" } },
              "http": { "targets": [
                { "name": "api", "baseUrl": "http://127.0.0.1:9", "methods": %s,
                  "pathPrefixes": %s, "allowPrivateAddresses": true } ] },
              "ssh": { "hosts": [
                { "name": "web", "address": "127.0.0.1", "port": 22, "user": "deploy", "identity": "deploy-key",
                  "hostKeyFingerprint": "SHA256:%s",
                  "commands": [ { "name": "tail", "argv": ["tail", "-n", "{lines}", "/var/log/app.log"],
                    "params": { "lines": { "type": "integer", "minimum": 1, "maximum": %d } } } ] } ] }
            }
            """;

    @TempDir
    Path dir;

    private Path config(String name, String methods, String prefixes, int maxLines, boolean redact) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, BASE.formatted(redact ? ", \"redactArguments\": true " : "", methods, prefixes, "A".repeat(43), maxLines));
        return file;
    }

    private static String call(int id, String tool, String arguments) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool + "\",\"arguments\":"
                + arguments + "}}\n";
    }

    private static String http(int id, String method, String path) {
        return call(id, "http_request", "{\"method\":\"" + method + "\",\"url\":\"http://127.0.0.1:9" + path + "\"}");
    }

    private static String tail(int id, int lines) {
        return call(id, "ssh_exec", "{\"host\":\"web\",\"command\":\"tail\",\"args\":{\"lines\":" + lines + "}}");
    }

    /** A session under the base config: three calls allowed, three denied; returns what the executors ran. */
    private SessionHarness runSession(boolean redact) throws Exception {
        Path base = config("postern.json", "[\"GET\"]", "[\"/v1\"]", 100, redact);
        var loaded = Gateway.configLoader().load(base);
        SessionHarness session = new SessionHarness(loaded.journalDirectory(), loaded.policy());
        if (redact) {
            session.redactingArguments();
        }
        session.run(SessionHarness.INIT + SessionHarness.INITIALIZED
                + http(2, "GET", "/v1/items") + http(3, "GET", "/v1/admin/users") + http(4, "GET", "/v2/items")
                + http(5, "DELETE", "/v1/items") + tail(6, 10) + tail(7, 900));
        assertEquals(2, session.http.count(), session.stderr.toString(StandardCharsets.UTF_8));
        assertEquals(1, session.ssh.count());
        return session;
    }

    private record Run(ExitStatus exit, String out, String err) {
    }

    private static Run cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ExitStatus exit = Cli.run(args, new Io(out, new ByteArrayInputStream(new byte[0]), new PrintStream(err, true, StandardCharsets.UTF_8)));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void theSameConfigChangesNothingAndExitsZero() throws Exception {
        SessionHarness session = runSession(false);
        Run run = cli("audit", "replay", "--config", dir.resolve("postern.json").toString());

        assertEquals(ExitStatus.OK, run.exit(), run.toString());
        assertTrue(run.out().contains(": 6 calls decided again, none would change"), run.out());
        assertTrue(run.out().contains("unchanged: 6\n"), run.out());
        assertFalse(run.out().contains("not replayed"), run.out());
        assertEquals(2, session.http.count(), "replay ran nothing");
        assertEquals(1, session.ssh.count(), "replay ran nothing");
    }

    @Test
    void aNarrowedConfigListsTheAllowedCallsItWouldDenyByItsRule() throws Exception {
        SessionHarness session = runSession(false);
        Path narrowed = config("narrowed.json", "[\"GET\"]", "[\"/v1/items\"]", 5, false);
        Run run = cli("audit", "replay", session.journalDir.toString(), "--config", narrowed.toString());

        assertEquals(ExitStatus.CHECK_FAILED, run.exit(), run.toString());
        assertTrue(run.out().contains(": 6 calls decided again, 2 would change"), run.out());
        // The session may run its calls in either order, so the rules' groups may come in either order.
        assertTrue(run.out().contains("allowed -> denied (2):\n  by rule "), run.out());
        assertTrue(run.out().contains("  by rule http.path (1):\n"), run.out());
        assertTrue(run.out().contains("http_request GET http://127.0.0.1:9/v1/admin/users  (was http.target:api)"), run.out());
        assertTrue(run.out().contains("  by rule ssh.args.range (1):\n"), run.out());
        assertTrue(run.out().contains("ssh_exec 'tail' '-n' '10' '/var/log/app.log'  (was ssh.command:web.tail)"), run.out());
        assertFalse(run.out().contains("denied -> allowed"), run.out());
        assertTrue(run.out().contains("unchanged: 4\n"), run.out());
    }

    @Test
    void aWidenedConfigListsTheDeniedCallsItWouldAllowByTheRuleThatDeniedThem() throws Exception {
        SessionHarness session = runSession(false);
        Path widened = config("widened.json", "[\"GET\", \"DELETE\"]", "[\"/v1\", \"/v2\"]", 1000, false);
        Run run = cli("audit", "replay", session.journalDir.toString(), "--config", widened.toString());

        assertEquals(ExitStatus.CHECK_FAILED, run.exit(), run.toString());
        assertTrue(run.out().contains(": 6 calls decided again, 3 would change"), run.out());
        assertTrue(run.out().contains("denied -> allowed (3):\n"), run.out());
        assertTrue(run.out().contains("  was denied by rule http.path (1):\n"), run.out());
        assertTrue(run.out().contains("  was denied by rule http.method (1):\n"), run.out());
        assertTrue(run.out().contains("  was denied by rule ssh.args.range (1):\n"), run.out());
        assertTrue(run.out().contains("(now http.target:api)"), run.out());
        assertFalse(run.out().contains("allowed -> denied"), run.out());

        Run json = cli("audit", "replay", session.journalDir.toString(), "--config", widened.toString(), "--json");
        List<String> lines = json.out().lines().toList();
        assertEquals(3, lines.size(), json.out());
        for (String line : lines) {
            JsonNode n = JSON.readTree(line);
            assertEquals("denied", n.path("was").path("verdict").asText(), line);
            assertEquals("allowed", n.path("now").path("verdict").asText(), line);
            assertEquals("decisions", n.path("journal").asText(), line);
        }
    }

    @Test
    void redactedRowsAreCountedAndNeverReplayed() throws Exception {
        runSession(true);
        Path widened = config("widened.json", "[\"GET\", \"DELETE\"]", "[\"/v1\", \"/v2\"]", 1000, false);
        Run run = cli("audit", "replay", dir.resolve("journal").toString(), "--config", widened.toString());

        assertEquals(ExitStatus.OK, run.exit(), run.toString());
        assertTrue(run.out().contains(": 0 calls decided again, none would change"), run.out());
        assertTrue(run.out().contains("not replayed: 6 rows written with journal.redactArguments"), run.out());
    }

    @Test
    void aMissingJournalAndAnInvalidCandidateAreSaid() throws Exception {
        Path widened = config("widened.json", "[\"GET\"]", "[\"/v1\"]", 10, false);
        Run none = cli("audit", "replay", dir.resolve("nowhere").toString(), "--config", widened.toString());
        assertEquals(ExitStatus.CHECK_FAILED, none.exit(), none.toString());
        assertTrue(none.out().startsWith("no journal here: "), none.out());

        Path broken = dir.resolve("broken.json");
        Files.writeString(broken, "{\"journal\": {}}");
        assertEquals(ExitStatus.CONFIG_ERROR, cli("audit", "replay", dir.toString(), "--config", broken.toString()).exit());
        assertEquals(ExitStatus.USAGE, cli("audit", "replay", "a", "b", "--config", widened.toString()).exit());
    }
}
