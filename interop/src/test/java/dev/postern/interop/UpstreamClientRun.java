package dev.postern.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One run of a TypeScript client script of {@code interop/ts} that takes the steps of
 * {@code upstream-steps.mjs} against a packaged gateway with {@link PinnedUpstreams}, and the
 * judgements both TypeScript clients must pass on what it recorded, what the gateway's client sent
 * and what reached the real servers. Not thread-safe.
 */
final class UpstreamClientRun implements AutoCloseable {
    /** What server-everything 2026.8.31 (pinned in interop/package.json) says its echo tool does. */
    static final String ECHO_DESCRIPTION = "Echoes back the input string";
    static final String ECHO_MESSAGE = "hello through postern";
    static final String APPROVED_CONTENT = "written after approval";

    final PackagedGateway gateway;
    final PinnedUpstreams upstreams;
    final int clientExit;
    final int gatewayExit;
    final String context;
    private final JsonNode steps;
    private final JsonNode elicitations;

    private UpstreamClientRun(PackagedGateway gateway, PinnedUpstreams upstreams, int clientExit, int gatewayExit,
            String context, JsonNode recorded) {
        this.gateway = gateway;
        this.upstreams = upstreams;
        this.clientExit = clientExit;
        this.gatewayExit = gatewayExit;
        this.context = context;
        this.steps = recorded.path("steps");
        this.elicitations = recorded.path("elicitations");
    }

    /** Pins the upstreams in {@code dir}, starts a gateway with them and runs {@code node interop/ts/SCRIPT} once against it. */
    static UpstreamClientRun of(Path dir, String node, String script) throws IOException, InterruptedException {
        PinnedUpstreams upstreams = PinnedUpstreams.prepare(dir);
        PackagedGateway gateway = PackagedGateway.startWithUpstreams(dir, upstreams);
        Path record = dir.resolve("record.json");
        Path clientLog = dir.resolve("client.log");
        Process p = new ProcessBuilder(node, NodeTools.interopDir().resolve("ts").resolve(script).toString(),
                gateway.serverCommand.toString(), upstreams.filesRoot.toString(), record.toString())
                .redirectErrorStream(true).redirectOutput(clientLog.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            gateway.close();
            throw new AssertionError(script + " did not finish in 120 s\n" + Files.readString(clientLog));
        }
        int gatewayExit = gateway.awaitExitStatus(Duration.ofSeconds(30));
        String recorded = Files.exists(record) ? Files.readString(record, StandardCharsets.UTF_8) : "{}";
        String context = "client record:\n" + recorded + "\nclient output:\n" + Files.readString(clientLog) + "\n"
                + upstreams.receivedText() + gateway.stderrText();
        return new UpstreamClientRun(gateway, upstreams, p.exitValue(), gatewayExit, context, new ObjectMapper().readTree(recorded));
    }

    /**
     * Pins the upstreams in {@code dir}, starts a gateway with them and takes the same steps once with
     * the MCP Java SDK's client in this JVM ({@link JavaSdkUpstreamSteps}).
     */
    static UpstreamClientRun ofJavaSdk(Path dir) throws IOException, InterruptedException {
        PinnedUpstreams upstreams = PinnedUpstreams.prepare(dir);
        PackagedGateway gateway = PackagedGateway.startWithUpstreams(dir, upstreams);
        JsonNode recorded;
        try {
            recorded = JavaSdkUpstreamSteps.run(gateway.serverCommand, upstreams.filesRoot);
        } catch (RuntimeException e) {
            gateway.close();
            throw e;
        }
        int gatewayExit = gateway.awaitExitStatus(Duration.ofSeconds(30));
        boolean closed = "closed".equals(recorded.path("steps").path("close").path("result").asText());
        String context = "client record:\n" + recorded.toPrettyString() + "\n" + upstreams.receivedText() + gateway.stderrText();
        return new UpstreamClientRun(gateway, upstreams, closed ? 0 : 1, gatewayExit, context, recorded);
    }

    /** What the client saw as the result of {@code step}; fails if it threw instead. */
    JsonNode result(String step) {
        JsonNode s = steps.path(step);
        assertTrue(s.has("result"), step + " has a result, not an error the client raised\n" + context);
        return s.path("result");
    }

    /** Only the four allowlisted upstream tools and Postern's own are listed; echo with the upstream's title and description. */
    void assertListsOnlyTheAllowlistedUpstreamToolsWithTheirDefinitions() {
        List<String> names = new ArrayList<>();
        result("tools/list").forEach(t -> names.add(t.path("name").asText()));
        assertEquals(List.of("http_request", "everything__echo", "everything__get-sum", "files__read_text_file",
                "files__write_file", "postern_targets"), names, "the allowlisted tools, and no other of the servers'\n" + context);
        JsonNode echo = tool("everything__echo");
        assertEquals(ECHO_DESCRIPTION, echo.path("description").asText(), context);
        assertEquals("Echo Tool", echo.path("title").asText(), context);
        assertEquals("string", echo.path("inputSchema").path("properties").path("message").path("type").asText(), context);
        assertEquals(PinnedUpstreams.SUM_MAXIMUM,
                tool("everything__get-sum").path("inputSchema").path("properties").path("a").path("maximum").asInt(),
                "the operator's narrowing is advertised\n" + context);
        assertTrue(tool("files__write_file").path("description").asText().startsWith("Create a new file or completely overwrite"),
                context);
    }

    private JsonNode tool(String name) {
        for (JsonNode t : result("tools/list")) {
            if (name.equals(t.path("name").asText())) {
                return t;
            }
        }
        throw new AssertionError(name + " is not listed\n" + context);
    }

    /** The echo call came back from server-everything, which got exactly that one echo call. */
    void assertEchoReachesTheServerOnceAndComesBack() throws IOException {
        JsonNode echo = result("echo");
        assertFalse(echo.path("isError").asBoolean(false), context);
        assertEquals("Echo: " + ECHO_MESSAGE, echo.path("content").path(0).path("text").asText(), context);
        assertEquals(List.of(new ObjectMapper().valueToTree(Map.of("message", ECHO_MESSAGE))),
                upstreams.callsReceived(PinnedUpstreams.EVERYTHING, "echo"), context);
    }

    /**
     * The undeclared argument and the argument past the narrowing end in INVALID_ARGUMENTS naming the
     * argument; server-everything got neither, only the allowed sum.
     */
    void assertRefusedArgumentsNeverReachTheServer() throws IOException {
        assertInvalidArguments(result("undeclared"), "sneaky");
        assertInvalidArguments(result("narrowed"), "/a");
        assertEquals("The sum of 2 and 3 is 5.", result("sum").path("content").path(0).path("text").asText(), context);
        assertEquals(List.of(new ObjectMapper().valueToTree(Map.of("a", 2, "b", 3))),
                upstreams.callsReceived(PinnedUpstreams.EVERYTHING, "get-sum"), "only the allowed sum reached the server\n" + context);
        assertFalse(upstreams.callsReceived(PinnedUpstreams.EVERYTHING, "echo").toString().contains("sneaky"), context);
    }

    private void assertInvalidArguments(JsonNode result, String named) {
        assertTrue(result.path("isError").asBoolean(false), context);
        String text = result.path("content").path(0).path("text").asText();
        assertTrue(text.contains("INVALID_ARGUMENTS") && text.contains(named), text + "\n" + context);
    }

    /**
     * Each write that passed validation asked the human once, naming the server, the tool and the
     * exact arguments; the approved one is on disk with its content and reads back, the declined one
     * and the one outside the narrowed path are not, and server-filesystem got only the approved write.
     */
    void assertApprovedWriteIsOnDiskAndNoOtherWriteIs() throws IOException {
        Path approved = upstreams.filesRoot.resolve("approved.txt");
        assertFalse(result("write-approved").path("isError").asBoolean(false), context);
        assertEquals(APPROVED_CONTENT, Files.readString(approved, StandardCharsets.UTF_8), context);
        assertEquals(APPROVED_CONTENT, result("read").path("content").path(0).path("text").asText(),
                "read_text_file, without confirm, reads it back\n" + context);

        JsonNode declined = result("write-declined");
        assertTrue(declined.path("isError").asBoolean(false), context);
        assertTrue(declined.path("content").path(0).path("text").asText().contains("approval.declined"), context);
        assertFalse(Files.exists(upstreams.filesRoot.resolve("declined.txt")), "a declined write leaves no file\n" + context);
        assertInvalidArguments(result("write-outside"), "/path");
        assertFalse(Files.exists(upstreams.filesRoot.resolve("run.sh")), context);

        assertEquals(2, elicitations.size(), "one question per write that passed validation, none for the read\n" + context);
        String asked = elicitations.path(0).path("message").asText();
        assertTrue(asked.contains("files__write_file") && asked.contains("server: files") && asked.contains(approved.toString())
                && asked.contains(APPROVED_CONTENT), asked + "\n" + context);
        assertEquals("approve", elicitations.path(0).path("requestedSchema").path("required").path(0).asText(), context);
        List<JsonNode> writes = upstreams.callsReceived(PinnedUpstreams.FILES, "write_file");
        assertEquals(1, writes.size(), "only the approved write reached the server\n" + context);
        assertEquals(approved.toString(), writes.get(0).path("path").asText(), context);
        assertEquals(1, upstreams.callsReceived(PinnedUpstreams.FILES, "read_text_file").size(), context);
    }

    /** The client closed and the gateway, with both servers started, exited 0. */
    void assertClosesAndTheGatewayExitsZero() {
        assertEquals(0, clientExit, context);
        assertEquals("closed", result("close").asText(), context);
        assertEquals(0, gatewayExit, context);
    }

    @Override
    public void close() {
        gateway.close();
    }
}
