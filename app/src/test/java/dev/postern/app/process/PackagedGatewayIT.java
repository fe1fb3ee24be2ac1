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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged {@code bin/postern mcp-stdio} against a real loopback HTTP service and a real
 * in-process SSH server: allowed calls reach them exactly once, denied ones never, and every byte
 * of stdout is protocol.
 */
class PackagedGatewayIT {
    @TempDir
    Path dir;

    FakeHttpService http;
    FakeSshServer ssh;
    Path config;

    @BeforeEach
    void start() throws Exception {
        http = FakeHttpService.start();
        http.respond("/v1/hello", 200, Map.of("Content-Type", "text/plain"), "hello from loopback".getBytes(StandardCharsets.UTF_8));
        ssh = FakeSshServer.start();
        config = LoopbackGateway.writeConfig(dir, http, ssh, LoopbackGateway.SshTrust.create(ssh, dir));
    }

    @AfterEach
    void stop() {
        http.close();
        ssh.close();
    }

    private static String call(int id, String tool, String arguments) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
                + "\",\"arguments\":" + arguments + "}}\n";
    }

    @Test
    void allowedCallsRunOnceDeniedCallsNeverAndStdoutIsOnlyProtocol() throws Exception {
        String input = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                + "\"capabilities\":{},\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}\n"
                + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n"
                + call(3, "http_request", "{\"method\":\"GET\",\"url\":\"" + http.baseUri() + "/v1/hello\"}")
                + call(4, "ssh_exec", "{\"host\":\"box\",\"command\":\"greet\",\"args\":{\"name\":\"world\"}}")
                + call(5, "http_request", "{\"method\":\"GET\",\"url\":\"" + http.baseUri() + "/admin/marker-denied-http\"}")
                + call(6, "ssh_exec", "{\"host\":\"box\",\"command\":\"greet\",\"args\":{\"name\":\"x;touch m\"}}");

        LauncherProcess p = LauncherProcess.run(List.of("mcp-stdio", "--config", config.toString()),
                input.getBytes(StandardCharsets.UTF_8), dir, Map.of());

        List<JsonNode> messages = StdoutTranscript.assertProtocolOnly(p.stdout, String.join(" ", p.command), p.stderr);
        assertEquals(0, p.exitStatus, p.describe());
        Map<Integer, JsonNode> byId = new HashMap<>();
        messages.forEach(m -> byId.put(m.get("id").asInt(), m));
        assertEquals(6, byId.size(), p.describe());

        assertEquals(1, http.requestCount(), "exactly the allowed HTTP request reached the service");
        assertEquals("/v1/hello", http.requests().get(0).path());
        // The executor wraps the operator's line in its stop-wrapper, quoted once more, at the end of the exec line.
        assertEquals(List.of(true), ssh.commands().stream().map(c -> c.endsWith(" postern-stop ''\\''echo'\\'' '\\''world'\\'''")).toList(),
                "exactly the allowed command reached the SSH server" + ": " + ssh.commands());

        JsonNode httpOk = byId.get(3).get("result");
        assertFalse(httpOk.get("isError").asBoolean(), httpOk.toString());
        assertEquals("hello from loopback", httpOk.get("structuredContent").get("body").textValue());
        JsonNode sshOk = byId.get(4).get("result");
        assertFalse(sshOk.get("isError").asBoolean(), sshOk.toString());
        assertEquals(ssh.hostKeyFingerprint(), sshOk.get("structuredContent").get("hostKeyFingerprint").textValue());

        assertEquals("http.path", dev.postern.fixtures.ToolErrors.error(byId.get(5).get("result")).get("rule").textValue());
        assertEquals("ssh.args.pattern", dev.postern.fixtures.ToolErrors.error(byId.get(6).get("result")).get("rule").textValue());
        assertTrue(Files.exists(dir.resolve("journal").resolve("actions.jsonl")), "the journal resolves against the config's directory");
    }

    @Test
    void aMissingConfigFailsWithEmptyStdoutAndTheReasonOnStderr() throws Exception {
        LauncherProcess p = LauncherProcess.run(List.of("mcp-stdio", "--config", dir.resolve("absent.json").toString()),
                new byte[0], dir, Map.of());

        assertEquals(0, p.stdout.length, "stdout must stay empty: " + p.describe());
        assertEquals(4, p.exitStatus, p.describe());
        assertTrue(p.stderrText().contains("absent.json"), p.describe());
    }

    @Test
    void verboseJvmOutputNeverReachesStdout() throws Exception {
        String input = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
        LauncherProcess p = LauncherProcess.run(List.of("mcp-stdio", "--config", config.toString()),
                input.getBytes(StandardCharsets.UTF_8), dir, Map.of("JAVA_TOOL_OPTIONS", "-verbose:class -Xlog:gc"));

        List<JsonNode> messages = StdoutTranscript.assertProtocolOnly(p.stdout, String.join(" ", p.command), p.stderr);
        assertEquals(1, messages.size(), p.describe());
        assertTrue(p.stderrText().contains("Loaded") || p.stderrText().contains("class,load"), "the JVM did log, to stderr");
        assertEquals(0, p.exitStatus, p.describe());
    }
}
