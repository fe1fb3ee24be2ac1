package dev.postern.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.fixtures.upstream.RealUpstreams;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Two real upstream MCP servers for a packaged gateway's {@code mcp.servers}, their tools pinned at
 * test time by the launcher's own {@code postern upstream pin}: server-everything as {@value #EVERYTHING}
 * ({@code echo}; {@code get-sum} with {@code a} narrowed to at most {@value #SUM_MAXIMUM}) and
 * server-filesystem as {@value #FILES} on {@link #filesRoot} ({@code read_text_file};
 * {@code write_file} behind {@code confirm}, its {@code path} narrowed to a {@code .txt} file directly
 * in that directory). Each server runs behind a one-line wrapper that records every line Postern sent
 * it, so a test can say what reached the server and what never did. Not thread-safe.
 */
final class PinnedUpstreams {
    static final String EVERYTHING = "everything";
    static final String FILES = "files";
    static final int SUM_MAXIMUM = 100;

    private static final ObjectMapper JSON = new ObjectMapper();
    /** One tool line of {@code upstream pin}'s report: two spaces, the name, two spaces, the pin. */
    private static final Pattern PIN_LINE = Pattern.compile("^  (\\S+)  (sha256:[0-9a-f]{64})\\b.*$");
    private static final Pattern SERVER_LINE = Pattern.compile("^server (\\S+): \\d+ tools$");

    final Path filesRoot;
    private final Map<String, Path> wrappers;
    private final Map<String, Path> logs;
    private final Map<String, Map<String, String>> pins;

    private PinnedUpstreams(Path filesRoot, Map<String, Path> wrappers, Map<String, Path> logs,
            Map<String, Map<String, String>> pins) {
        this.filesRoot = filesRoot;
        this.wrappers = wrappers;
        this.logs = logs;
        this.pins = pins;
    }

    /**
     * Writes the wrappers in {@code dir}, makes {@code dir/files} the file server's directory, and pins
     * both servers' tools by running {@code bin/postern upstream pin} on a config that lists them with
     * no tools; what that run sent them is then forgotten. Skips the test (fails under CI) when a
     * server is not installed.
     */
    static PinnedUpstreams prepare(Path dir) throws IOException, InterruptedException {
        RealUpstreams real = RealUpstreams.at(PackagedGateway.repositoryRoot());
        Path filesRoot = Files.createDirectories(dir.resolve("files")).toRealPath();
        Map<String, List<String>> commands = new LinkedHashMap<>();
        commands.put(EVERYTHING, real.everything());
        commands.put(FILES, real.filesystem(filesRoot));
        Map<String, Path> wrappers = new LinkedHashMap<>();
        Map<String, Path> logs = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> e : commands.entrySet()) {
            Path log = dir.resolve("upstream-" + e.getKey() + "-received.jsonl");
            logs.put(e.getKey(), log);
            wrappers.put(e.getKey(), wrapper(dir.resolve("upstream-" + e.getKey() + ".sh"), log, e.getValue()));
        }
        PinnedUpstreams unpinned = new PinnedUpstreams(filesRoot, wrappers, logs, Map.of());
        Path pinConfig = dir.resolve("pin-config.json");
        Files.writeString(pinConfig, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(
                JSON.createObjectNode().<ObjectNode>set("journal", JSON.createObjectNode().put("directory", "pin-journal"))
                        .<ObjectNode>set("mcp", unpinned.mcpSection())), StandardCharsets.UTF_8);
        Map<String, Map<String, String>> pins = pin(dir, pinConfig);
        for (Path log : logs.values()) {
            Files.deleteIfExists(log);
        }
        return new PinnedUpstreams(filesRoot, wrappers, logs, pins);
    }

    /** {@code #!/bin/sh}, then {@code tee -a LOG | COMMAND}: the server's stdin copied to LOG on the way. */
    private static Path wrapper(Path file, Path log, List<String> command) throws IOException {
        List<String> quoted = new ArrayList<>();
        for (String word : command) {
            quoted.add(quote(word));
        }
        Files.writeString(file, "#!/bin/sh\ntee -a " + quote(log.toString()) + " | " + String.join(" ", quoted) + "\n",
                StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
        return file;
    }

    private static String quote(String word) {
        if (word.contains("'")) {
            throw new IllegalArgumentException("a path with a single quote cannot go into the wrapper: " + word);
        }
        return "'" + word + "'";
    }

    /** Runs {@code bin/postern upstream pin --config CONFIG} and reads each server's tool pins from what it printed. */
    private static Map<String, Map<String, String>> pin(Path dir, Path config) throws IOException, InterruptedException {
        Path out = dir.resolve("upstream-pin.out");
        Path err = dir.resolve("upstream-pin.err");
        List<String> command = List.of(PackagedGateway.launcher().toString(), "upstream", "pin", "--config", config.toString());
        Process p = new ProcessBuilder(command).directory(dir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("postern upstream pin did not finish in 120 s: " + command);
        }
        String printed = Files.readString(out, StandardCharsets.UTF_8);
        String context = command + " exited " + p.exitValue() + "\nstdout:\n" + printed + "\nstderr:\n"
                + Files.readString(err, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new AssertionError(context);
        }
        Map<String, Map<String, String>> pins = new LinkedHashMap<>();
        Map<String, String> current = null;
        for (String line : printed.lines().toList()) {
            Matcher server = SERVER_LINE.matcher(line);
            Matcher tool = PIN_LINE.matcher(line);
            if (server.matches()) {
                current = pins.computeIfAbsent(server.group(1), s -> new LinkedHashMap<>());
            } else if (tool.matches() && current != null) {
                current.put(tool.group(1), tool.group(2));
            }
        }
        for (String[] needed : new String[][] {{EVERYTHING, "echo"}, {EVERYTHING, "get-sum"}, {FILES, "read_text_file"},
                {FILES, "write_file"}}) {
            if (!pins.getOrDefault(needed[0], Map.of()).containsKey(needed[1])) {
                throw new AssertionError("upstream pin printed no pin for " + needed[0] + "/" + needed[1] + "\n" + context);
            }
        }
        return pins;
    }

    /** The value of the config's {@code mcp} member: both servers, with the allowlists above (empty before pinning). */
    ObjectNode mcpSection() {
        ObjectNode mcp = JSON.createObjectNode();
        ArrayNode servers = mcp.putArray("servers");
        ArrayNode everything = server(servers, EVERYTHING);
        ArrayNode files = server(servers, FILES);
        if (pins.isEmpty()) {
            return mcp;
        }
        tool(everything, EVERYTHING, "echo", false);
        tool(everything, EVERYTHING, "get-sum", false).putObject("args").putObject("a").put("maximum", SUM_MAXIMUM);
        tool(files, FILES, "read_text_file", false);
        tool(files, FILES, "write_file", true).putObject("args").putObject("path")
                .put("pattern", regexLiteral(filesRoot.toString()) + "/[A-Za-z0-9_-]+\\.txt");
        return mcp;
    }

    private ArrayNode server(ArrayNode servers, String name) {
        ObjectNode server = servers.addObject();
        server.put("name", name);
        server.putArray("command").add(wrappers.get(name).toString());
        server.put("startTimeoutMs", 30000);
        return server.putArray("tools");
    }

    private ObjectNode tool(ArrayNode tools, String server, String name, boolean confirm) {
        ObjectNode tool = tools.addObject();
        tool.put("name", name);
        tool.put("pin", pins.get(server).get(name));
        if (confirm) {
            tool.put("confirm", true);
        }
        return tool;
    }

    /** {@code text} as an ECMA-262 pattern matching exactly it (JSON Schema patterns have no \Q…\E). */
    private static String regexLiteral(String text) {
        return text.replaceAll("[\\\\^$.|?*+()\\[\\]{}]", "\\\\$0");
    }

    /**
     * Every JSON line Postern sent {@code server} since a gateway started it; fails when it was never
     * started, so that "nothing reached it" is never said of a server that was not there.
     */
    List<JsonNode> received(String server) throws IOException {
        Path log = logs.get(server);
        if (log == null || !Files.exists(log)) {
            throw new AssertionError("no gateway started upstream server " + server + " (nothing at " + log + ")");
        }
        List<JsonNode> lines = new ArrayList<>();
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            if (!line.isBlank()) {
                lines.add(JSON.readTree(line));
            }
        }
        return lines;
    }

    /** The arguments of every {@code tools/call} of {@code tool} that reached {@code server}, in order. */
    List<JsonNode> callsReceived(String server, String tool) throws IOException {
        return received(server).stream()
                .filter(m -> "tools/call".equals(m.path("method").asText()) && tool.equals(m.path("params").path("name").asText()))
                .map(m -> m.path("params").path("arguments"))
                .toList();
    }

    /** What Postern sent both servers, for a failure message. */
    String receivedText() {
        StringBuilder b = new StringBuilder();
        for (String server : logs.keySet()) {
            try {
                b.append(server).append(" received:\n").append(received(server)).append('\n');
            } catch (IOException | AssertionError e) {
                b.append(server).append(" received: ").append(e.getMessage()).append('\n');
            }
        }
        return b.toString();
    }
}
