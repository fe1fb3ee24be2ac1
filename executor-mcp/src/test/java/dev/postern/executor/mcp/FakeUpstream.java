package dev.postern.executor.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A throwaway stdio MCP server for these tests, run in its own JVM: answers the handshake (or not,
 * by mode; {@code linger} outlives the end of its stdin), lists {@link #TOOLS} over two pages, and behaves per tool (see {@link #call}). Logs every
 * line it reads to the file {@code FAKE_LOG} names and writes its pid to {@code FAKE_PIDFILE}. Its
 * stdout is its protocol stream, written as raw bytes (so it can send invalid UTF-8 and duplicate keys).
 */
public final class FakeUpstream {
    static final List<String> PAGE_ONE = List.of("echo", "env", "sleep", "crash", "secret");
    static final List<String> PAGE_TWO = List.of("progress", "stray", "ask", "badshape", "rpcerror", "big", "change", "stderr", "meet",
            "typed");
    static final List<String> TOOLS = concat(PAGE_ONE, PAGE_TWO);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final OutputStream out = new FileOutputStream(FileDescriptor.out);
    private final String mode;
    private final Path log;
    private boolean changed;
    private JsonNode askingFor;
    private final java.util.Map<JsonNode, String> meeting = new java.util.LinkedHashMap<>();

    private FakeUpstream(String mode, Path log) {
        this.mode = mode;
        this.log = log;
    }

    public static void main(String[] args) throws IOException {
        String pidFile = System.getenv("FAKE_PIDFILE");
        if (pidFile != null) {
            Files.writeString(Path.of(pidFile), Long.toString(ProcessHandle.current().pid()));
        }
        String logFile = System.getenv("FAKE_LOG");
        new FakeUpstream(args.length > 0 ? args[0] : "normal", logFile == null ? null : Path.of(logFile)).serve();
    }

    /** The argv that starts it: this JVM's java, a class path of this class and Jackson, the class, the mode. */
    static List<String> command(String mode) {
        Set<String> cp = new LinkedHashSet<>();
        for (Class<?> c : List.of(FakeUpstream.class, ObjectMapper.class, com.fasterxml.jackson.core.JsonParser.class,
                com.fasterxml.jackson.annotation.JsonProperty.class)) {
            try {
                cp.add(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
            } catch (URISyntaxException e) {
                throw new IllegalStateException(e);
            }
        }
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC", "-Xshare:auto", "-cp", String.join(java.io.File.pathSeparator, cp), FakeUpstream.class.getName(), mode);
    }

    /** The definition the fake lists for {@code name}; {@code changed} after the tool {@code change} ran. */
    static String definition(String name, boolean changed) {
        return "{\"name\":\"" + name + "\",\"description\":\"tool " + name + (changed && name.equals("echo") ? " (changed)" : "")
                + "\",\"inputSchema\":{\"type\":\"object\"}" + (name.equals("typed") ? ",\"outputSchema\":" + TYPED_OUTPUT : "") + "}";
    }

    /** {@code typed}'s outputSchema: an object with an integer {@code n}. */
    static final String TYPED_OUTPUT = "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},\"required\":[\"n\"]}";

    private void serve() throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (log != null) {
                Files.writeString(log, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            }
            JsonNode m = JSON.readTree(line);
            JsonNode id = m.get("id");
            String method = m.path("method").asText("");
            if (method.isEmpty()) {
                if (askingFor != null && id != null && "ask-1".equals(id.asText())) {
                    result(askingFor, text("answered " + m.path("error").path("code").asInt()));
                    askingFor = null;
                }
                continue;
            }
            if (id == null) {
                continue;
            }
            switch (method) {
                case "initialize":
                    if (mode.equals("silent-init")) {
                        break;
                    }
                    ObjectNode init = JSON.createObjectNode();
                    init.put("protocolVersion", mode.equals("old-version") ? "2024-11-05" : "2025-11-25");
                    init.putObject("capabilities").putObject("tools").put("listChanged", true);
                    init.putObject("serverInfo").put("name", "fake").put("version", "1");
                    result(id, init);
                    break;
                case "tools/list":
                    boolean second = m.path("params").has("cursor");
                    ArrayNode tools = JSON.createArrayNode();
                    for (String t : second ? PAGE_TWO : PAGE_ONE) {
                        tools.add(JSON.readTree(definition(t, changed)));
                    }
                    ObjectNode list = JSON.createObjectNode();
                    list.set("tools", tools);
                    if (!second) {
                        list.put("nextCursor", "page-2");
                    }
                    result(id, list);
                    break;
                case "tools/call":
                    call(id, m.path("params"));
                    break;
                default:
                    write("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"error\":{\"code\":-32601,\"message\":\"no\"}}");
            }
        }
        if (mode.equals("linger")) {
            // Outlives the end of its stdin, as a careless server would: only a signal stops it.
            try {
                Thread.sleep(300_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void call(JsonNode id, JsonNode params) throws IOException {
        String secret = String.valueOf(System.getenv("SECRET"));
        switch (params.path("name").asText()) {
            case "echo":
                result(id, text(params.path("arguments").toString()));
                break;
            case "env":
                result(id, text(JSON.writeValueAsString(System.getenv())));
                break;
            case "sleep":
                break;
            case "crash":
                Runtime.getRuntime().halt(3);
                break;
            case "secret":
                result(id, text("the token is " + secret));
                break;
            case "progress":
                JsonNode token = params.path("_meta").path("progressToken");
                write("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":" + token
                        + ",\"progress\":1,\"total\":2,\"message\":\"half of " + secret + "\"}}");
                write("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":" + token + ",\"progress\":2}}");
                result(id, text("done"));
                break;
            case "stray":
                write("this is not json");
                write("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"content\":[]},\"result\":{\"content\":[]}}");
                out.write(new byte[] {'{', '"', (byte) 0xff, '"', ':', '1', '}', '\n'});
                write("{\"jsonrpc\":\"2.0\",\"id\":99999,\"result\":{\"content\":[]}}");
                result(id, text("after the strays"));
                break;
            case "ask":
                askingFor = id;
                write("{\"jsonrpc\":\"2.0\",\"id\":\"ask-1\",\"method\":\"sampling/createMessage\",\"params\":{}}");
                break;
            case "badshape":
                write("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"content\":[{\"type\":\"weird\"}]}}");
                break;
            case "rpcerror":
                write("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"error\":{\"code\":-32000,\"message\":\"boom " + secret + "\"}}");
                break;
            case "big":
                result(id, text("x".repeat(params.path("arguments").path("n").asInt())));
                break;
            case "change":
                changed = true;
                result(id, text("changed"));
                write("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}");
                break;
            case "stderr":
                System.err.println("a line on stderr with " + secret);
                System.err.println("second\u001b[31m line");
                result(id, text("wrote stderr"));
                break;
            case "typed":
                // give: the structuredContent to return ("none" for none); error: an upstream error result without any.
                JsonNode give = params.path("arguments").path("give");
                ObjectNode typed = text("typed");
                if (params.path("arguments").path("error").asBoolean(false)) {
                    typed.put("isError", true);
                } else if (!give.isMissingNode()) {
                    typed.set("structuredContent", give);
                }
                result(id, typed);
                break;
            case "meet":
                meeting.put(id, params.path("arguments").path("m").asText());
                if (meeting.size() >= params.path("arguments").path("n").asInt()) {
                    for (java.util.Map.Entry<JsonNode, String> waiting : meeting.entrySet()) {
                        result(waiting.getKey(), text("met " + waiting.getValue()));
                    }
                    meeting.clear();
                }
                break;
            default:
                write("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"error\":{\"code\":-32602,\"message\":\"unknown tool\"}}");
        }
    }

    private static ObjectNode text(String text) {
        ObjectNode r = JSON.createObjectNode();
        r.putArray("content").addObject().put("type", "text").put("text", text);
        return r;
    }

    private void result(JsonNode id, JsonNode result) throws IOException {
        ObjectNode m = JSON.createObjectNode();
        m.put("jsonrpc", "2.0");
        m.set("id", id);
        m.set("result", result);
        write(JSON.writeValueAsString(m));
    }

    private synchronized void write(String line) throws IOException {
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return List.copyOf(all);
    }
}
