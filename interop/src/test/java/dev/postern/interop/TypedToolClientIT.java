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
 * The TypeScript SDK's client ({@code interop/ts/typed-client.mjs} on the system node) lists and calls a
 * typed tool of the packaged gateway: the target offered as {@code loopback__call}, beside
 * {@code http_request}, with its methods as an enum and annotations from its policy; a valid call reaches
 * the service once and returns its body, arguments outside the tool's schema reach nothing, and the
 * journal names the typed tool.
 */
class TypedToolClientIT {
    private static final String TOOL = "loopback__call";

    @Test
    void theTypeScriptClientListsAndCallsATypedToolThroughThePackagedLauncher() throws Exception {
        String node = NodeTools.systemNode();
        NodeTools.installed("@modelcontextprotocol/sdk/package.json");
        Path dir = Files.createTempDirectory("postern-interop-typed-");
        try (PackagedGateway gateway = PackagedGateway.startWithTypedTool(dir, TOOL)) {
            Path record = dir.resolve("record.json");
            Path clientLog = dir.resolve("client.log");
            Process p = new ProcessBuilder(node, NodeTools.interopDir().resolve("ts").resolve("typed-client.mjs").toString(),
                    gateway.serverCommand.toString(), TOOL, record.toString())
                    .redirectErrorStream(true).redirectOutput(clientLog.toFile()).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("the TypeScript client did not finish in 120 s\n" + Files.readString(clientLog));
            }
            int gatewayExit = gateway.awaitExitStatus(Duration.ofSeconds(30));
            String recorded = Files.exists(record) ? Files.readString(record, StandardCharsets.UTF_8) : "{}";
            String context = "client record:\n" + recorded + "\nclient output:\n" + Files.readString(clientLog) + "\n" + gateway.stderrText();
            JsonNode steps = new ObjectMapper().readTree(recorded).path("steps");
            assertEquals(0, p.exitValue(), context);
            assertEquals(0, gatewayExit, context);

            List<String> names = new ArrayList<>();
            JsonNode typed = null;
            for (JsonNode t : steps.path("tools/list").path("result")) {
                names.add(t.path("name").asText());
                if (t.path("name").asText().equals(TOOL)) {
                    typed = t;
                }
            }
            assertEquals(List.of("http_request", TOOL, "postern_targets"), names, context);
            assertEquals("[\"GET\",\"POST\"]", typed.path("inputSchema").path("properties").path("method").path("enum").toString(), context);
            assertEquals("^(?:/v1(?:/[^?#]*)?)$", typed.path("inputSchema").path("properties").path("path").path("pattern").asText(), context);
            assertFalse(typed.path("inputSchema").path("additionalProperties").asBoolean(true), context);
            assertFalse(typed.path("annotations").path("readOnlyHint").asBoolean(true), "POST is allowed: " + context);
            assertTrue(typed.path("annotations").path("destructiveHint").asBoolean(false), context);

            JsonNode allowed = steps.path("allowed").path("result");
            assertFalse(allowed.path("isError").asBoolean(true), context);
            assertEquals("hello from loopback", allowed.path("structuredContent").path("body").asText(), context);
            assertEquals(1, gateway.requestsTo("GET", "/v1/hello"), "the valid call reached the service once: " + context);
            for (String refused : List.of("outside", "undeclared")) {
                JsonNode result = steps.path(refused).path("result");
                assertTrue(result.path("isError").asBoolean(false), refused + ": " + context);
                assertTrue(result.path("content").path(0).path("text").asText().contains("INVALID_ARGUMENTS"), refused + ": " + context);
            }
            assertEquals(1, gateway.http.requestCount(), "nothing but the valid call reached the service: " + context);

            List<String> intents = new ArrayList<>();
            for (String line : Files.readAllLines(dir.resolve("journal").resolve("actions.jsonl"))) {
                JsonNode row = new ObjectMapper().readTree(line);
                if (row.path("kind").asText().equals("intent")) {
                    intents.add(row.path("tool").asText() + " " + row.path("action").asText());
                }
            }
            assertEquals(List.of(TOOL + " http_request"), intents, context);
        }
    }
}
