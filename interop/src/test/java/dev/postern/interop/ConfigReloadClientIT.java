package dev.postern.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An operator narrows a running gateway's {@code pathPrefixes}: the TypeScript SDK's client
 * ({@code interop/ts/reload-client.mjs} on the system node), connected to the packaged launcher, makes an
 * allowed call, the config is saved as an editor saves it (a new file renamed into place), the client
 * hears {@code notifications/tools/list_changed} (the typed tool's path pattern changed), and the same
 * call is then denied by the policy and never reaches the service; the journal records the switch with
 * both SHA-256s.
 */
class ConfigReloadClientIT {
    private static final String TOOL = "loopback__call";

    @Test
    void aNarrowedPathPrefixSavedWhileTheClientIsConnectedDeniesTheNextCallAndTellsTheClientTheToolsChanged() throws Exception {
        String node = NodeTools.systemNode();
        NodeTools.installed("@modelcontextprotocol/sdk/package.json");
        Path dir = Files.createTempDirectory("postern-interop-reload-");
        try (PackagedGateway gateway = PackagedGateway.startWithTypedTool(dir, TOOL)) {
            Path config = dir.resolve("postern.json");
            String original = Files.readString(config, StandardCharsets.UTF_8);
            String narrowedText = original.replace("\"pathPrefixes\": [\"/v1\"]", "\"pathPrefixes\": [\"/v1/public\"]");
            assertFalse(narrowedText.equals(original), "the test's edit applies to the config it starts with");
            Path narrowed = dir.resolve("postern.json.new");
            Files.writeString(narrowed, narrowedText, StandardCharsets.UTF_8);
            Path record = dir.resolve("record.json");
            Path clientLog = dir.resolve("client.log");
            Process p = new ProcessBuilder(node, NodeTools.interopDir().resolve("ts").resolve("reload-client.mjs").toString(),
                    gateway.serverCommand.toString(), config.toString(), narrowed.toString(), gateway.allowedUrl(), record.toString())
                    .redirectErrorStream(true).redirectOutput(clientLog.toFile()).start();
            if (!p.waitFor(180, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("the TypeScript client did not finish in 180 s\n" + Files.readString(clientLog));
            }
            int gatewayExit = gateway.awaitExitStatus(Duration.ofSeconds(30));
            String recorded = Files.exists(record) ? Files.readString(record, StandardCharsets.UTF_8) : "{}";
            String context = "client record:\n" + recorded + "\nclient output:\n" + Files.readString(clientLog) + "\n" + gateway.stderrText();
            JsonNode all = new ObjectMapper().readTree(recorded);
            JsonNode steps = all.path("steps");
            assertEquals(0, p.exitValue(), context);
            assertEquals(0, gatewayExit, context);

            assertTrue(steps.path("initialize").path("result").path("capabilities").path("tools").path("listChanged").asBoolean(false),
                    context);
            assertFalse(steps.path("before").path("result").path("isError").asBoolean(true), context);
            assertEquals("list_changed", steps.path("edit").path("result").asText(), context);
            assertEquals(1, all.path("listChanged").asInt(), context);
            JsonNode after = steps.path("after").path("result");
            assertTrue(after.path("isError").asBoolean(false), context);
            assertTrue(after.path("content").path(0).path("text").asText().contains("POLICY_DENIED"), context);
            assertEquals(1, gateway.requestsTo("GET", "/v1/hello"), "only the call before the edit reached the service: " + context);
            String pattern = "";
            for (JsonNode t : steps.path("tools/list again").path("result")) {
                if (t.path("name").asText().equals(TOOL)) {
                    pattern = t.path("inputSchema").path("properties").path("path").path("pattern").asText();
                }
            }
            assertEquals("^(?:/v1/public(?:/[^?#]*)?)$", pattern, context);

            List<JsonNode> reloads = new ArrayList<>();
            String startSha = "";
            for (String line : Files.readAllLines(dir.resolve("journal").resolve("actions.jsonl"))) {
                JsonNode row = new ObjectMapper().readTree(line);
                if (row.path("kind").asText().equals("session") && row.path("event").asText().equals("start")) {
                    startSha = row.path("configSha256").asText();
                }
                if (row.path("kind").asText().equals("session") && row.path("event").asText().equals("config-reloaded")) {
                    reloads.add(row);
                }
            }
            assertEquals(1, reloads.size(), context);
            assertEquals(startSha, reloads.get(0).path("oldConfigSha256").asText(), context);
            assertEquals(java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(narrowedText.getBytes(StandardCharsets.UTF_8))),
                    reloads.get(0).path("configSha256").asText(), context);
            assertTrue(gateway.stderrText().contains("reloaded (sha256"), context);
        }
    }
}
