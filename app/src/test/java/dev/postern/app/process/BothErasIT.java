package dev.postern.app.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.postern.fixtures.FakeHttpService;
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

/** Both MCP eras over the packaged launcher: what runs, what is refused, and that nothing refused runs. */
class BothErasIT {
    static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"%s\","
            + "\"io.modelcontextprotocol/clientCapabilities\":{}}";

    @TempDir
    Path dir;
    FakeHttpService http;
    Path config;

    @BeforeEach
    void start() throws Exception {
        http = FakeHttpService.start();
        config = dir.resolve("postern.json");
        Files.writeString(config, """
                { "journal": { "directory": "journal" },
                  "http": { "targets": [ { "name": "loopback", "baseUrl": "%s", "methods": ["GET"],
                    "pathPrefixes": ["/v1"], "allowPrivateAddresses": true } ] } }
                """.formatted(http.baseUri()));
    }

    @AfterEach
    void stop() {
        http.close();
    }

    private String call(int id, String marker, String meta) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
                + "\"arguments\":{\"method\":\"GET\",\"url\":\"" + http.baseUri() + "/v1/" + marker + "\"}"
                + (meta.isEmpty() ? "" : "," + meta) + "}}\n";
    }

    private Map<Integer, JsonNode> run(String input) throws Exception {
        LauncherProcess p = LauncherProcess.run(List.of("mcp-stdio", "--config", config.toString()),
                input.getBytes(StandardCharsets.UTF_8), dir, Map.of());
        List<JsonNode> messages = StdoutTranscript.assertProtocolOnly(p.stdout, String.join(" ", p.command), p.stderr);
        assertEquals(0, p.exitStatus, p.describe());
        Map<Integer, JsonNode> byId = new HashMap<>();
        messages.forEach(m -> byId.put(m.get("id").asInt(), m));
        return byId;
    }

    private List<String> paths() {
        return http.requests().stream().map(FakeHttpService.RecordedRequest::path).toList();
    }

    @Test
    void statelessSessionRunsOnlyCallsWhoseOwnMetaIsValid() throws Exception {
        Map<Integer, JsonNode> r = run(
                call(1, "ok-stateless", META.formatted("2026-07-28"))
                + call(2, "marker-no-meta", "")
                + call(3, "marker-unsupported", META.formatted("2099-01-01"))
                + "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                + "\"capabilities\":{},\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"params\":{" + META.formatted("2026-07-28") + "}}\n");

        assertEquals(List.of("/v1/ok-stateless"), paths());
        assertFalse(r.get(1).get("result").get("isError").asBoolean());
        assertEquals("complete", r.get(1).get("result").get("resultType").textValue());
        assertEquals(-32602, r.get(2).get("error").get("code").asInt());
        assertEquals(-32022, r.get(3).get("error").get("code").asInt());
        assertEquals(-32602, r.get(4).get("error").get("code").asInt(), "initialize after a stateless request is ambiguous");
        assertEquals(-32601, r.get(5).get("error").get("code").asInt(), "ping does not exist in the stateless era");
    }

    @Test
    void discoverBeforeInitializeThenANormalHandshakeSessionWhereStatelessCallsAreRefused() throws Exception {
        Map<Integer, JsonNode> r = run(
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{" + META.formatted("2026-07-28") + "}}\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                + "\"capabilities\":{},\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}\n"
                + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
                + call(3, "ok-handshake", "")
                + call(4, "marker-stateless-in-handshake", META.formatted("2026-07-28")));

        assertEquals("2026-07-28", r.get(1).get("result").get("supportedVersions").get(0).textValue());
        assertEquals("2025-11-25", r.get(2).get("result").get("protocolVersion").textValue());
        assertFalse(r.get(3).get("result").get("isError").asBoolean());
        assertTrue(r.get(3).get("result").get("resultType") == null, "handshake results are not decorated");
        assertEquals(-32602, r.get(4).get("error").get("code").asInt());
        assertEquals(List.of("/v1/ok-handshake"), paths());
    }
}
