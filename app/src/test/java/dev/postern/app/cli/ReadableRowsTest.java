package dev.postern.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.postern.app.ExitStatus;
import dev.postern.fixtures.FakeHttpService;
import dev.postern.fixtures.FakeSshServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rows an operator can read (DESIGN §6), written by the real gateway wiring: a session's client,
 * intent rows with the rendered action (HTTP method and URL, SSH host, command and argv) with
 * credentials masked, or only digests with {@code journal.redactArguments}; denial rows with the
 * tool, the target or host and what was refused. Never a body or a secret.
 */
class ReadableRowsTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String TOKEN = "tok-4f9a1c-secret";
    private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
            + "\"capabilities\":{},\"clientInfo\":{\"name\":\"claude-code\",\"version\":\"2.1.0\"}}}\n"
            + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

    @TempDir
    Path dir;

    FakeHttpService http;
    FakeSshServer ssh;

    @BeforeEach
    void start() throws Exception {
        http = FakeHttpService.start();
        http.respond("/v1/items", 200, Map.of(), "[]".getBytes(StandardCharsets.UTF_8));
        ssh = FakeSshServer.start();
        ssh.allowPassword("deploy", "pw-3c9e7b1d");
        ssh.respond(command -> FakeSshServer.Reply.exit("ok\n", "", 0));
        ssh.writeKnownHosts(dir.resolve("known_hosts"));
        for (String[] cred : new String[][] {{"token", TOKEN}, {"ssh-password", "pw-3c9e7b1d"}}) {
            Path f = Files.writeString(dir.resolve(cred[0]), cred[1]);
            Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        }
    }

    @AfterEach
    void stop() {
        http.close();
        ssh.close();
    }

    private Path config(boolean redact) throws Exception {
        return Files.writeString(dir.resolve("postern.json"), """
                {
                  "session": { "maxInFlight": 1 },
                  "journal": { "directory": "journal", "redactArguments": %s },
                  "credentials": { "token": { "file": "token" }, "ssh-password": { "file": "ssh-password" } },
                  "http": { "targets": [
                    { "name": "api", "baseUrl": "%s", "methods": ["GET"], "pathPrefixes": ["/v1"], "allowPrivateAddresses": true,
                      "auth": { "credential": "token", "scheme": "bearer" } } ] },
                  "ssh": { "hosts": [
                    { "name": "web", "address": "127.0.0.1", "port": %d, "user": "deploy", "password": "ssh-password",
                      "knownHosts": "known_hosts",
                      "commands": [ { "name": "grep-log", "argv": ["grep", "-c", "{word}", "/var/log/app.log"],
                                      "params": { "word": { "type": "string", "pattern": "^[a-z]+$" } } } ] } ] }
                }
                """.formatted(redact, http.baseUri(), ssh.port()));
    }

    private String httpCall(int id, String url) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
                + "\"arguments\":{\"method\":\"GET\",\"url\":\"" + url + "\",\"body\":\"body-marker\"}}}\n";
    }

    private static String sshCall(int id, String word) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"ssh_exec\","
                + "\"arguments\":{\"host\":\"web\",\"command\":\"grep-log\",\"args\":{\"word\":\"" + word + "\"}}}}\n";
    }

    private List<JsonNode> rows(String file) throws Exception {
        List<JsonNode> rows = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve("journal").resolve(file), StandardCharsets.UTF_8)) {
            rows.add(JSON.readTree(line));
        }
        return rows;
    }

    private static JsonNode first(List<JsonNode> rows, String kind, String field, String value) {
        return rows.stream().filter(r -> r.path("kind").asText().equals(kind) && r.path(field).asText().equals(value)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " row with " + field + " " + value + " in " + rows));
    }

    private CliRun session(boolean redact) throws Exception {
        String url = http.baseUri() + "/v1/items?q=" + TOKEN + "&page=2";
        CliRun run = CliRun.withStdin(INIT + httpCall(2, url) + sshCall(3, "error") + httpCall(4, http.baseUri() + "/admin/users")
                + sshCall(5, "NOT-LOWER"), "mcp-stdio", "--config", config(redact).toString());
        assertEquals(ExitStatus.OK, run.exit, run.toString());
        return run;
    }

    @Test
    void rowsSayWhoConnectedWhatRanAndWhatWasRefusedWithCredentialsMasked() throws Exception {
        session(false);

        List<JsonNode> actions = rows("actions.jsonl");
        JsonNode client = first(actions, "session", "event", "client");
        assertEquals("claude-code", client.get("client").asText());
        assertEquals("2.1.0", client.get("clientVersion").asText());
        assertEquals("handshake", client.get("era").asText());
        assertEquals("2025-11-25", client.get("protocolVersion").asText());

        JsonNode httpIntent = first(actions, "intent", "action", "http_request");
        assertEquals("api", httpIntent.get("target").asText());
        assertEquals("GET", httpIntent.get("method").asText());
        assertEquals(http.baseUri() + "/v1/items?q=****&page=2", httpIntent.get("url").asText(), "the credential in the query is masked");
        JsonNode sshIntent = first(actions, "intent", "action", "ssh_exec");
        assertEquals("web", sshIntent.get("target").asText());
        assertEquals("grep-log", sshIntent.get("command").asText());
        assertEquals(List.of("grep", "-c", "error", "/var/log/app.log"), strings(sshIntent.get("argv")));

        List<JsonNode> decisions = rows("decisions.jsonl");
        assertEquals(2, decisions.size());
        JsonNode httpDenial = decisions.get(0);
        assertEquals("http_request", httpDenial.get("tool").asText());
        assertEquals("GET " + http.baseUri() + "/admin/users", httpDenial.get("refused").asText());
        JsonNode sshDenial = decisions.get(1);
        assertEquals("ssh_exec", sshDenial.get("tool").asText());
        assertEquals("web", sshDenial.get("target").asText());
        assertTrue(sshDenial.get("refused").asText().contains("grep-log"), sshDenial.toString());

        String all = Files.readString(dir.resolve("journal/actions.jsonl")) + Files.readString(dir.resolve("journal/decisions.jsonl"));
        assertFalse(all.contains(TOKEN), "no credential in any row");
        assertFalse(all.contains("pw-3c9e7b1d"), "no credential in any row");
        assertFalse(all.contains("body-marker"), "no body in any row");
    }

    @Test
    void withRedactArgumentsRowsKeepOnlyDigestsOfTheArguments() throws Exception {
        session(true);

        String all = Files.readString(dir.resolve("journal/actions.jsonl")) + Files.readString(dir.resolve("journal/decisions.jsonl"));
        assertFalse(all.contains("page=2"), all);
        assertFalse(all.contains("\"error\""), all);
        assertFalse(all.contains("NOT-LOWER"), all);
        List<JsonNode> actions = rows("actions.jsonl");
        JsonNode httpIntent = first(actions, "intent", "action", "http_request");
        assertFalse(httpIntent.has("url"), httpIntent.toString());
        assertEquals(64, httpIntent.get("argumentsSha256").asText().length(), httpIntent.toString());
        JsonNode sshIntent = first(actions, "intent", "action", "ssh_exec");
        assertFalse(sshIntent.has("argv"), sshIntent.toString());
        assertEquals("grep-log", sshIntent.get("command").asText());
        assertEquals(64, sshIntent.get("argumentsSha256").asText().length());
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
