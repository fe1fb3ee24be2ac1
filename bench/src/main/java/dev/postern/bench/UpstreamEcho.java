package dev.postern.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.fixtures.upstream.HostileUpstream;
import dev.postern.fixtures.upstream.RealUpstreams;
import dev.postern.policy.json.Pins;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.protocol.json.JsonValues;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One stdio MCP server with an {@code echo} tool, as the load driver's upstream section runs it twice
 * (DESIGN §9, "a cheap upstream tool call"): spoken to directly, and behind the gateway with
 * {@code echo} pinned. Knows the argv, echo's arguments, both call lines, the pin of a live listing and
 * the gateway config that fronts it. Immutable.
 *
 * @param name          the server's name in the gateway's config (its tool is offered as {@code NAME__echo})
 * @param command       the argv that starts it over stdio
 * @param echoArguments echo's arguments as a JSON object, for both calls
 * @param logged        whether {@link #withLog} can make it append every message it receives to a file
 */
record UpstreamEcho(String name, List<String> command, String echoArguments, boolean logged) {
    static final String TOOL = "echo";
    private static final ObjectMapper JSON = new ObjectMapper();

    UpstreamEcho {
        Objects.requireNonNull(name, "name");
        command = List.copyOf(command);
        if (command.isEmpty() || !echoArguments.startsWith("{")) {
            throw new IllegalArgumentException("a command and echo's arguments as a JSON object");
        }
    }

    /** The project's hostile upstream in {@code clean} mode: a well-behaved JVM server (test-fixtures). */
    static UpstreamEcho hostile() {
        return new UpstreamEcho("hostile", HostileUpstream.command("clean"), "{\"text\":\"bench\"}", true);
    }

    /**
     * The upstreams this repository has: always the hostile one in {@code clean} mode; the maintainers'
     * reference server ({@code server-everything} on the pinned Node 22) when {@code npm ci --prefix interop}
     * installed it, else a note saying how to add it.
     */
    static List<UpstreamEcho> available(Path repositoryRoot, List<String> notes) {
        List<UpstreamEcho> all = new ArrayList<>(List.of(hostile()));
        RealUpstreams real = RealUpstreams.at(repositoryRoot);
        if (real.installed(RealUpstreams.Server.EVERYTHING)) {
            all.add(new UpstreamEcho("everything", real.everything(), "{\"message\":\"bench\"}", false));
        } else {
            notes.add("upstream: left out server-everything (npm ci --prefix interop installs it and Node 22)");
        }
        return List.copyOf(all);
    }

    /** This server appending every message it receives to {@code log}; only the hostile upstream can. */
    UpstreamEcho withLog(Path log) {
        if (!logged) {
            throw new IllegalStateException(name + " keeps no log of what it receives");
        }
        List<String> argv = new ArrayList<>(command);
        argv.add("--log");
        argv.add(log.toString());
        return new UpstreamEcho(name, argv, echoArguments, true);
    }

    /** The tool's name behind the gateway. */
    String exposedName() {
        return UpstreamServer.exposedName(name, TOOL);
    }

    /** {@code tools/call} of echo, as the driver sends it to the upstream itself. */
    String directCall(long id) {
        return call(id, TOOL);
    }

    /** {@code tools/call} of echo, as the driver sends it to the gateway. */
    String gatewayCall(long id) {
        return call(id, exposedName());
    }

    private String call(long id, String tool) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
                + "\",\"arguments\":" + echoArguments + "}}";
    }

    /** The pin of echo's definition in a {@code tools/list} response line (as {@code postern upstream pin} prints it), if listed. */
    static Optional<String> pinOf(String toolsListLine) throws IOException {
        for (JsonNode tool : JSON.readTree(toolsListLine).path("result").path("tools")) {
            if (tool.path("name").asText().equals(TOOL)) {
                return Optional.of(Pins.of(JsonValues.object(tool)));
            }
        }
        return Optional.empty();
    }

    /** Whether a {@code tools/list} response line of the gateway offers this server's echo. */
    boolean offeredIn(String toolsListLine) throws IOException {
        for (JsonNode tool : JSON.readTree(toolsListLine).path("result").path("tools")) {
            if (tool.path("name").asText().equals(exposedName())) {
                return true;
            }
        }
        return false;
    }

    /** A gateway config in {@code dir} with this server and only {@code echo} allowlisted at {@code pin}; the journal beside it. */
    Path writeConfig(Path dir, String pin) throws IOException {
        ObjectNode root = JSON.createObjectNode();
        root.putObject("session").put("maxFrameBytes", 1 << 20).put("maxInFlight", 8);
        root.putObject("journal").put("directory", "journal");
        ObjectNode server = root.putObject("mcp").putArray("servers").addObject();
        server.put("name", name);
        ArrayNode argv = server.putArray("command");
        command.forEach(argv::add);
        server.put("startTimeoutMs", 20_000).put("timeoutMs", 5_000);
        server.putArray("tools").addObject().put("name", TOOL).put("pin", pin);
        Path config = Files.createDirectories(dir).resolve("postern.json");
        Files.writeString(config, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root));
        return config;
    }

    /** How many {@code tools/list} requests a log written by {@link #withLog} holds. */
    static long toolsListsIn(Path log) throws IOException {
        if (!Files.exists(log)) {
            return 0;
        }
        long n = 0;
        for (String line : Files.readAllLines(log)) {
            if (JSON.readTree(line).path("method").asText().equals("tools/list")) {
                n++;
            }
        }
        return n;
    }
}
