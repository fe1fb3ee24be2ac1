package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.app.config.GatewayConfig;
import dev.postern.fixtures.upstream.HostileUpstream;
import dev.postern.fixtures.upstream.RealUpstreams;
import dev.postern.policy.json.JsonValue;
import dev.postern.policy.json.Pins;
import dev.postern.policy.model.ArgNarrowing;
import dev.postern.policy.model.LiveTools;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.model.UpstreamTool;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fourth kind through the gateway's own wiring and its real executor: upstream MCP servers as
 * child processes (the project's hostile one, and the maintainers' reference server when installed),
 * listed, pinned, narrowed, called and journaled; what the upstream got is read from its own log.
 */
class UpstreamGatewayTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private UpstreamServer server(String name, List<String> command, List<UpstreamTool> tools) {
        return new UpstreamServer(name, command, dir.toString(), Map.of(), Duration.ofSeconds(20), Duration.ofSeconds(20), 1 << 20,
                tools, Optional.empty());
    }

    /** The definitions a server lists now, as the gateway's executor hears them. */
    private List<JsonValue.JsonObject> listed(String name, List<String> command) {
        GatewayConfig config = SessionHarness.config(dir.resolve("probe-journal"), Policy.of(server(name, command, List.of())), 2);
        LiveTools live = Gateway.listNow(config, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        LiveTools.Listing listing = live.of(server(name, command, List.of()));
        assertTrue(listing instanceof LiveTools.Listing.Listed, () -> name + " listed nothing: " + listing);
        return ((LiveTools.Listing.Listed) listing).tools();
    }

    private static String pin(List<JsonValue.JsonObject> tools, String name) {
        return Pins.of(tools.stream().filter(t -> t.string("name").orElse("").equals(name)).findFirst().orElseThrow());
    }

    private static String call(int id, String tool, String arguments) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
                + "\",\"arguments\":" + arguments + "}}\n";
    }

    private static List<String> calls(Path log) throws IOException {
        if (!Files.exists(log)) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            if (line.contains("\"tools/call\"")) {
                out.add(line);
            }
        }
        return out;
    }

    private static List<JsonNode> rows(Path file) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            out.add(JSON.readTree(line));
        }
        return out;
    }

    /** The response to request {@code id}, past any notification the gateway sends first (a list_changed, say). */
    private static JsonNode answerTo(LiveSession s, int id) {
        while (true) {
            JsonNode line = s.next();
            if (line.path("id").asInt(-1) == id) {
                return line;
            }
            assertFalse(line.has("id"), () -> "an answer to another request: " + line);
        }
    }

    @Test
    void aPinnedToolIsListedCalledAndJournaledAndANarrowedArgumentNeverReachesTheUpstream() throws Exception {
        Path log = dir.resolve("upstream.log");
        List<String> command = HostileUpstream.command("clean", "--log", log.toString());
        String echoPin = pin(listed("hostile", command), "echo");
        ArgNarrowing onlyHello = new ArgNarrowing(Optional.of(List.of(new JsonValue.JsonString("hello"), new JsonValue.JsonString("hi"))),
                Optional.empty(), Optional.empty(), OptionalInt.empty(), Optional.empty(), Optional.empty());
        Policy policy = Policy.of(server("hostile", command, List.of(new UpstreamTool("echo", echoPin, false, Map.of("text", onlyHello)))));
        Files.deleteIfExists(log);
        Path journal = dir.resolve("journal");
        try (LiveSession s = new LiveSession(journal, policy, 2, 8 << 20, List.of()).handshake()) {
            s.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n");
            JsonNode list = answerTo(s, 2);
            JsonNode echo = null;
            for (JsonNode t : list.get("result").get("tools")) {
                if (t.get("name").textValue().equals("hostile__echo")) {
                    echo = t;
                }
            }
            assertTrue(echo != null, list.toString());
            assertEquals(HostileUpstream.ECHO_DESCRIPTION, echo.get("description").textValue());
            assertEquals("[\"hello\",\"hi\"]", echo.get("inputSchema").get("properties").get("text").get("enum").toString(),
                    "the advertised schema carries the operator's narrowing");

            s.send(call(3, "hostile__echo", "{\"text\":\"hello\"}"));
            JsonNode ok = answerTo(s, 3);
            assertFalse(ok.get("result").path("isError").asBoolean(false), ok.toString());
            assertEquals("hello", ok.get("result").get("content").get(0).get("text").textValue());

            s.send(call(4, "hostile__echo", "{\"text\":\"rm -rf /\"}"));
            JsonNode refused = answerTo(s, 4);
            assertEquals(true, refused.get("result").get("isError").booleanValue(), refused.toString());
            assertTrue(refused.toString().contains("INVALID_ARGUMENTS"), refused.toString());

            s.send(call(5, "hostile__echo", "{\"text\":\"hi\",\"extra\":1}"));
            assertTrue(answerTo(s, 5).toString().contains("INVALID_ARGUMENTS"), "an argument the upstream does not declare is refused");
        }
        List<String> reached = calls(log);
        assertEquals(1, reached.size(), "only the allowed call reached the upstream: " + reached);
        assertTrue(reached.get(0).contains("\"hello\"") && !reached.get(0).contains("rm -rf"));
        List<JsonNode> actions = rows(journal.resolve("actions.jsonl"));
        List<JsonNode> intents = actions.stream().filter(r -> r.path("kind").asText("").equals("intent")).toList();
        assertEquals(1, intents.size(), "one permitted call, one intent row: " + actions);
        JsonNode intent = intents.get(0);
        assertEquals("upstream", intent.get("action").textValue(), intent.toString());
        assertEquals("hostile__echo", intent.get("tool").textValue());
        assertEquals(echoPin, intent.get("pin").textValue());
        assertEquals("{\"text\":\"hello\"}", intent.get("arguments").toString());
    }

    @Test
    void aDefinitionThatNoLongerMatchesItsPinIsWithheldAndItsCallDeniedWithoutReachingTheUpstream() throws Exception {
        Path log = dir.resolve("upstream.log");
        List<String> command = HostileUpstream.command("clean", "--log", log.toString());
        Policy policy = Policy.of(server("hostile", command, List.of(new UpstreamTool("echo", "sha256:" + "0".repeat(64), false, Map.of()))));
        Path journal = dir.resolve("journal");
        try (LiveSession s = new LiveSession(journal, policy, 2, 8 << 20, List.of()).handshake()) {
            s.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n");
            assertFalse(s.next().toString().contains("hostile__echo"), "withheld from tools/list");
            s.send(call(3, "hostile__echo", "{\"text\":\"hello\"}"));
            JsonNode denied = s.next();
            assertTrue(denied.toString().contains("mcp.pin"), denied.toString());
        }
        assertEquals(List.of(), calls(log));
        assertTrue(Files.readString(journal.resolve("decisions.jsonl")).contains("\"rule\":\"mcp.pin\""));
    }

    @Test
    void anUpstreamsStrayStdoutIsDroppedJournaledWithoutItsContentAndNeverReachesTheAgent() throws Exception {
        List<String> command = HostileUpstream.command("banner");
        String echoPin = pin(listed("noisy", command), "echo");
        Policy policy = Policy.of(server("noisy", command, List.of(new UpstreamTool("echo", echoPin, false, Map.of()))));
        Path journal = dir.resolve("journal");
        List<String> written = new ArrayList<>();
        try (LiveSession s = new LiveSession(journal, policy, 2, 8 << 20, List.of()).handshake()) {
            s.send(call(3, "noisy__echo", "{\"text\":\"through the noise\"}"));
            String line = s.nextLine();
            written.add(line);
            assertTrue(line.contains("through the noise"), () -> line + "\n" + s.stderr.toString(StandardCharsets.UTF_8));
            written.addAll(s.rest());
        }
        for (String line : written) {
            assertFalse(line.contains(HostileUpstream.BANNER_MARKER), "a banner reached the agent: " + line);
            assertTrue(JSON.readTree(line).has("jsonrpc"), line);
        }
        String decisions = Files.readString(journal.resolve("decisions.jsonl"));
        assertTrue(decisions.contains("\"stage\":\"upstream\"") && decisions.contains("\"server\":\"noisy\""), decisions);
        assertFalse(decisions.contains(HostileUpstream.BANNER_MARKER), "the journal keeps the line's digest, never its content");
    }

    @Test
    void anUpstreamsProgressReachesTheClientUnderItsOwnTokenBeforeTheAnswer() throws Exception {
        List<String> command = HostileUpstream.command("clean");
        String slowPin = pin(listed("hostile", command), "slow");
        Policy policy = Policy.of(server("hostile", command, List.of(new UpstreamTool("slow", slowPin, false, Map.of()))));
        try (LiveSession s = new LiveSession(dir.resolve("journal"), policy, 2, 8 << 20, List.of()).handshake()) {
            s.send("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"hostile__slow\","
                    + "\"arguments\":{\"ms\":300},\"_meta\":{\"progressToken\":\"client-token-1\"}}}\n");
            List<JsonNode> progress = new ArrayList<>();
            JsonNode line = s.next();
            while (!line.has("id")) {
                if (line.path("method").asText("").equals("notifications/progress")) {
                    progress.add(line);
                }
                line = s.next();
            }
            assertEquals(7, line.get("id").intValue(), line.toString());
            assertFalse(progress.isEmpty(), "the upstream's progress was passed on before the answer");
            for (JsonNode p : progress) {
                assertEquals("client-token-1", p.get("params").get("progressToken").textValue(),
                        "under the client's token, never the one Postern gave the upstream: " + p);
            }
        }
    }

    @Test
    void theMaintainersReferenceServerEchoesThroughTheGateway() throws Exception {
        List<String> command = RealUpstreams.ofThisRepository().everything();
        List<JsonValue.JsonObject> tools = listed("everything", command);
        Policy policy = Policy.of(server("everything", command, List.of(new UpstreamTool("echo", pin(tools, "echo"), false, Map.of()))));
        try (LiveSession s = new LiveSession(dir.resolve("journal"), policy, 2, 8 << 20, List.of()).handshake()) {
            s.send(call(3, "everything__echo", "{\"message\":\"postern says hi\"}"));
            JsonNode answer = answerTo(s, 3);
            assertTrue(answer.has("result"), () -> answer + "\n" + s.stderr.toString(StandardCharsets.UTF_8));
            assertFalse(answer.get("result").path("isError").asBoolean(false), answer.toString());
            assertTrue(answer.get("result").get("content").get(0).get("text").textValue().contains("postern says hi"), answer.toString());
        }
    }
}
