package dev.postern.app.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.postern.fixtures.FakeHttpService;
import dev.postern.fixtures.FakeSshServer;
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
 * Release tests of the one property, on the packaged form, for the ordinary ways stdout gets
 * dirty: no config in the working directory, a config that does not load, a start-up failure after
 * the config loaded, the first request after an idle start, and the jar started without the
 * launcher. Each looks at stdout as raw bytes; a failure shows the first offending bytes, the
 * command and stderr apart.
 */
class CleanStdoutIT {
    private static final String PING = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";

    @TempDir
    Path dir;

    @TempDir
    Path elsewhere;

    FakeHttpService http;

    @BeforeEach
    void start() {
        http = FakeHttpService.start();
        http.respond("/v1/hello", 200, Map.of(), "hello".getBytes(StandardCharsets.UTF_8));
    }

    @AfterEach
    void stop() {
        http.close();
    }

    private static List<JsonNode> protocolOnly(LauncherProcess p) {
        return StdoutTranscript.assertProtocolOnly(p.stdout, String.join(" ", p.command), p.stderr);
    }

    @Test
    void fromADirectoryWithoutConfigAndNoConfigArgumentStdoutStaysEmpty() throws Exception {
        LauncherProcess p = LauncherProcess.run(List.of("mcp-stdio"), PING.getBytes(StandardCharsets.UTF_8), elsewhere, Map.of());

        assertEquals(0, p.stdout.length, "stdout must stay empty: " + p.describe());
        assertEquals(1, p.exitStatus, p.describe());
        assertTrue(p.stderrText().contains("--config"), p.describe());
    }

    @Test
    void fromADirectoryWithoutConfigTheGatewayServesAndWritesNothingThere() throws Exception {
        Path config = SessionBehaviourIT.httpConfig(dir, http.baseUri(), "");
        String input = SessionBehaviourIT.HANDSHAKE + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
                + "{\"name\":\"http_request\",\"arguments\":{\"method\":\"GET\",\"url\":\"" + http.baseUri() + "/v1/hello\"}}}\n";
        LauncherProcess p = LauncherProcess.run(List.of("mcp-stdio", "--config", config.toString()),
                input.getBytes(StandardCharsets.UTF_8), elsewhere, Map.of());

        assertEquals(2, protocolOnly(p).size(), p.describe());
        assertEquals(0, p.exitStatus, p.describe());
        try (var left = Files.list(elsewhere)) {
            assertEquals(List.of(), left.toList(), "relative paths resolve against the config's directory, not the working directory");
        }
        assertTrue(Files.exists(dir.resolve("journal").resolve("actions.jsonl")));
    }

    @Test
    void anInvalidConfigExitsFourAndTellsTheClientWhyInOneCompleteLine() throws Exception {
        Path config = dir.resolve("postern.json");
        Files.writeString(config, "{ \"journal\": { \"directory\": \"j\" }, \"sesion\": { \"maxInFlight\": 2 } }");
        LauncherProcess p = LauncherProcess.run(List.of("mcp-stdio", "--config", config.toString()),
                PING.getBytes(StandardCharsets.UTF_8), dir, Map.of());

        List<JsonNode> lines = protocolOnly(p);
        assertEquals(1, lines.size(), "one line, the answer to the ping: " + p.describe());
        JsonNode error = lines.get(0).path("error");
        assertEquals(1, lines.get(0).path("id").asInt(), p.describe());
        assertEquals(-1004, error.path("code").asInt(), p.describe());
        assertTrue(error.path("message").asText().contains("sesion") && error.path("data").path("file").asText().endsWith("postern.json"),
                p.describe());
        assertEquals(4, p.exitStatus, p.describe());
        assertTrue(p.stderrText().contains("postern.json") && p.stderrText().contains("sesion"), p.describe());
    }

    @Test
    void aStartUpFailureAfterTheConfigLoadedExitsFiveWithEmptyStdout() throws Exception {
        Path config = SessionBehaviourIT.httpConfig(dir, http.baseUri(), "");
        Files.writeString(dir.resolve("journal"), "a file where the journal directory should be");
        LauncherProcess p = LauncherProcess.run(List.of("mcp-stdio", "--config", config.toString()),
                PING.getBytes(StandardCharsets.UTF_8), dir, Map.of());

        assertEquals(0, p.stdout.length, "stdout must stay empty: " + p.describe());
        assertEquals(5, p.exitStatus, p.describe());
        assertTrue(p.stderrText().contains("journal"), p.describe());
    }

    @Test
    void theFirstRequestAfterAnIdleStartIsAnsweredOnACleanStdout() throws Exception {
        Path config = SessionBehaviourIT.httpConfig(dir, http.baseUri(), "");
        try (LauncherProcess.Running p = LauncherProcess.start(List.of("mcp-stdio", "--config", config.toString()), dir, Map.of())) {
            Thread.sleep(2000);
            p.send(PING);
            assertTrue(p.readLine().contains("\"id\":1"), p.describe());
            p.closeStdin();
            assertEquals(0, p.waitFor(30), p.describe());
            assertEquals(1, StdoutTranscript.assertProtocolOnly(p.transcript(), String.join(" ", p.command), p.stderr()).size());
        }
    }

    @Test
    void withoutTheLauncherTheInJvmGuardAloneKeepsStdoutClean() throws Exception {
        // java -jar directly: descriptor 1 is the protocol stream and only the in-JVM guard protects it,
        // while the HTTP client and the SSH client (with their logging) load and run.
        try (FakeSshServer ssh = FakeSshServer.start()) {
            Path config = LoopbackGateway.writeConfig(dir, http, ssh, LoopbackGateway.SshTrust.create(ssh, dir));
            String input = SessionBehaviourIT.HANDSHAKE
                    + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
                    + "\"arguments\":{\"method\":\"GET\",\"url\":\"" + http.baseUri() + "/v1/hello\"}}}\n"
                    + "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"ssh_exec\","
                    + "\"arguments\":{\"host\":\"box\",\"command\":\"greet\",\"args\":{\"name\":\"guard\"}}}}\n";
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            LauncherProcess p = LauncherProcess.exec(List.of(java, "-jar", LauncherProcess.jar().toString(), "mcp-stdio",
                    "--config", config.toString()), input.getBytes(StandardCharsets.UTF_8), dir, Map.of());

            List<JsonNode> messages = protocolOnly(p);
            assertEquals(0, p.exitStatus, p.describe());
            assertEquals(3, messages.size(), p.describe());
            assertFalse(messages.get(1).get("result").get("isError").asBoolean(), messages.get(1).toString());
            assertFalse(messages.get(2).get("result").get("isError").asBoolean(), messages.get(2).toString());
            // The executor wraps the operator's line in its stop-wrapper, quoted once more, at the end of the exec line.
        assertEquals(List.of(true), ssh.commands().stream().map(c -> c.endsWith(" postern-stop ''\\''echo'\\'' '\\''guard'\\'''")).toList(),
                "exactly the allowed command reached the SSH server" + ": " + ssh.commands());
        }
    }
}
