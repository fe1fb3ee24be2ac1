package dev.postern.app.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.fixtures.StdoutTranscript;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Node-based MCP clients give the server a socket, not a pipe, as stdout. The launcher must keep
 * the protocol stream clean there too, with verbose JVM logging on.
 */
class SocketStdoutIT {
    @TempDir
    Path dir;

    @Test
    void aSocketStdoutCarriesOnlyProtocolEvenWithVerboseJvmLogging() throws Exception {
        boolean node = new ProcessBuilder("node", "--version").start().waitFor() == 0;
        if ("true".equals(System.getenv("CI"))) {
            assertEquals(true, node, "node is required in CI (.ci/run installs it)");
        }
        assumeTrue(node, "node is not installed");
        Path config = dir.resolve("postern.json");
        Files.writeString(config, "{ \"journal\": { \"directory\": \"journal\" } }");
        Path script = Path.of("src/test/resources/process/socket-stdout.js").toAbsolutePath();

        LauncherProcess p = LauncherProcess.exec(List.of("node", script.toString(), LauncherProcess.launcher().toString(),
                config.toString()), new byte[0], dir, Map.of());

        JsonNode report = new ObjectMapper().readTree(new String(p.stdout, StandardCharsets.UTF_8));
        byte[] serverStdout = Base64.getDecoder().decode(report.get("stdout").textValue());
        List<JsonNode> messages = StdoutTranscript.assertProtocolOnly(serverStdout, "node socket-stdout.js", p.stderr);
        assertEquals(1, messages.size());
        assertEquals(0, report.get("exit").asInt());
    }
}
