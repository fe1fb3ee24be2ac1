package dev.postern.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A real client (the TypeScript SDK's, on the system node) starting the packaged launcher on an invalid
 * config: its connect fails with Postern's -1004 answer to initialize, naming the file, the pointer and
 * the problem, where a user's client shows it; the gateway exits 4.
 */
class BrokenConfigClientIT {

    @Test
    void aClientConnectingToAGatewayWithABrokenConfigIsToldTheFileThePointerAndTheProblem() throws Exception {
        String node = NodeTools.systemNode();
        NodeTools.installed("@modelcontextprotocol/sdk/package.json");
        Path dir = Files.createTempDirectory("postern-interop-broken-");
        Path config = dir.resolve("postern.json");
        // Cannot be built: an ftp baseUrl (so the answer is to initialize itself).
        Files.writeString(config, "{ \"journal\": { \"directory\": \"journal\" }, \"http\": { \"targets\": [ { \"name\": \"a\","
                + " \"baseUrl\": \"ftp://127.0.0.1:9\", \"methods\": [\"GET\"], \"pathPrefixes\": [\"/\"] } ] } }", StandardCharsets.UTF_8);
        Path exit = dir.resolve("exit");
        Path stderr = dir.resolve("stderr.log");
        Path server = dir.resolve("server.sh");
        Files.writeString(server, String.join("\n", "#!/bin/sh",
                "'" + PackagedGateway.launcher() + "' mcp-stdio --config '" + config + "' 2>>'" + stderr + "'",
                "echo $? > '" + exit + "'", ""), StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(server, PosixFilePermissions.fromString("rwx------"));
        Path record = dir.resolve("record.json");
        Path log = dir.resolve("client.log");
        Process p = new ProcessBuilder(node, NodeTools.interopDir().resolve("ts").resolve("broken-config.mjs").toString(),
                server.toString(), record.toString()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the client did not finish");
        String context = (Files.exists(record) ? Files.readString(record) : "(no record)") + "\n" + Files.readString(log)
                + "\n" + (Files.exists(stderr) ? Files.readString(stderr) : "");
        JsonNode seen = new ObjectMapper().readTree(Files.readString(record));

        assertFalse(seen.path("connected").asBoolean(), context);
        assertEquals(-1004, seen.path("code").asInt(), context);
        String thrown = seen.path("thrown").asText();
        assertTrue(thrown.contains(config.toString()) && thrown.contains("/http/targets/0"), "the user sees why: " + context);
        for (int i = 0; i < 100 && !Files.exists(exit); i++) {
            Thread.sleep(100);
        }
        assertEquals("4", Files.readString(exit).strip(), context);
        assertFalse(Files.exists(dir.resolve("journal")), "no journal was opened: " + context);
    }
}
