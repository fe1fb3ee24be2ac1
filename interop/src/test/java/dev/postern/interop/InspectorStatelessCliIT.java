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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The MCP Inspector 2.x in CLI mode (installed under the npm alias {@code inspector2}, on the pinned
 * Node 22) drives the packaged gateway in {@code --protocol-era modern} and {@code auto}: each
 * invocation spawns it, probes with {@code server/discover}, does one method in the stateless era
 * (2026-07-28) and closes it. The wrapper records what the Inspector sent, so each test also proves
 * which era it spoke. The handshake era stays covered by {@link InspectorCliIT} (Inspector 1.x).
 */
class InspectorStatelessCliIT {
    /** The Inspector's exit status for a tool result with {@code isError: true} (its EXIT_CODES.TOOL_ERROR). */
    private static final int TOOL_ERROR = 5;

    @TempDir
    Path dir;

    /** What one Inspector invocation printed, how it and the gateway exited, and what it sent. */
    private record Run(int exit, String stdout, String output, int gatewayExit, List<String> methods) {
        JsonNode json() throws Exception {
            return new ObjectMapper().readTree(stdout);
        }
    }

    private Run inspector(PackagedGateway gateway, String era, String... methodArgs) throws Exception {
        Path node = NodeTools.pinnedNodeForStatelessClients();
        Path launcher = NodeTools.installed("inspector2/clients/launcher/build/index.js");
        List<String> command = new ArrayList<>(List.of(node.toString(), launcher.toString(), "--cli",
                gateway.serverCommand.toString(), "--protocol-era", era));
        command.addAll(List.of(methodArgs));
        Path out = Files.createTempFile(gateway.dir, "inspector", ".out");
        Path err = Files.createTempFile(gateway.dir, "inspector", ".err");
        ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().put("PATH", node.getParent() + ":" + System.getenv("PATH"));
        // The Inspector keeps a catalog and client settings under ~/.mcp-inspector: keep them in the gateway's directory.
        pb.environment().put("HOME", gateway.dir.toString());
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the inspector did not finish in 120 s: " + command);
        }
        int gatewayExit = gateway.awaitExitStatus(Duration.ofSeconds(30));
        String stdout = Files.readString(out, StandardCharsets.UTF_8);
        String output = "command: " + command + "\nexit: " + p.exitValue() + "\nstdout:\n" + stdout + "\nstderr:\n"
                + Files.readString(err, StandardCharsets.UTF_8) + "\nclient requests:\n" + gateway.clientRequests()
                + "\n" + gateway.stderrText();
        List<String> methods = ClientWire.assertSpokeTheStatelessEra(gateway.clientRequests(), output);
        return new Run(p.exitValue(), stdout, output, gatewayExit, methods);
    }

    @ParameterizedTest(name = "--protocol-era {0}")
    @ValueSource(strings = {"modern", "auto"})
    void inspectorListsEveryToolWithPortableSchemasInTheStatelessEra(String era) throws Exception {
        try (PackagedGateway gateway = PackagedGateway.startRecordingRequests(dir)) {
            // --strict: the Inspector exits 6 if any tool schema has an error-severity portability problem.
            Run run = inspector(gateway, era, "--method", "tools/list", "--strict");

            assertEquals(0, run.exit(), run.output());
            List<String> names = new ArrayList<>();
            run.json().path("tools").forEach(t -> {
                names.add(t.path("name").asText());
                assertTrue(t.path("inputSchema").isObject() && t.path("outputSchema").isObject(), run.output());
            });
            assertEquals(List.of("http_request", "postern_targets"), names, run.output());
            assertEquals(List.of("server/discover", "tools/list"), run.methods(), run.output());
            assertEquals(0, run.gatewayExit(), run.output());
        }
    }

    @ParameterizedTest(name = "--protocol-era {0}")
    @ValueSource(strings = {"modern", "auto"})
    void inspectorsAllowedCallReachesTheServiceOnceInTheStatelessEra(String era) throws Exception {
        try (PackagedGateway gateway = PackagedGateway.startRecordingRequests(dir)) {
            Run run = inspector(gateway, era, "--method", "tools/call", "--tool-name", "http_request",
                    "--tool-arg", "method=GET", "url=" + gateway.allowedUrl());

            assertEquals(0, run.exit(), run.output());
            JsonNode result = run.json();
            assertFalse(result.path("isError").asBoolean(true), run.output());
            assertEquals("hello from loopback", result.path("structuredContent").path("body").asText(), run.output());
            assertEquals("postern", result.path("_meta").path("io.modelcontextprotocol/serverInfo").path("name").asText(),
                    "a stateless-era result names the server in _meta\n" + run.output());
            assertEquals(1, gateway.http.requestCount(), run.output());
            assertEquals("tools/call", run.methods().get(run.methods().size() - 1), run.output());
            assertEquals(0, run.gatewayExit(), run.output());
        }
    }

    @ParameterizedTest(name = "--protocol-era {0}")
    @ValueSource(strings = {"modern", "auto"})
    void inspectorShowsTheDenialAsAnErrorResultAndNothingIsReached(String era) throws Exception {
        try (PackagedGateway gateway = PackagedGateway.startRecordingRequests(dir)) {
            Run run = inspector(gateway, era, "--method", "tools/call", "--tool-name", "http_request",
                    "--tool-arg", "method=GET", "url=" + gateway.deniedUrl());

            assertEquals(TOOL_ERROR, run.exit(), run.output());
            JsonNode result = run.json();
            assertTrue(result.path("isError").asBoolean(false), run.output());
            assertFalse(result.has("structuredContent"), "an error result carries no structuredContent\n" + run.output());
            String text = result.path("content").path(0).path("text").asText();
            assertTrue(text.contains("POLICY_DENIED") && text.contains("http.path"), run.output());
            assertEquals(0, gateway.http.requestCount(), run.output());
            assertEquals("tools/call", run.methods().get(run.methods().size() - 1), run.output());
            assertEquals(0, run.gatewayExit(), run.output());
        }
    }

    /**
     * The Inspector 2.x against a gateway with real upstream MCP servers behind it (server-everything
     * and server-filesystem, see {@link PinnedUpstreams}, pinned once for the class), in the stateless
     * era; each test starts its own gateway, which each invocation spawns with both servers.
     */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class BehindTheGateway {
        private Path upstreamDir;
        private PinnedUpstreams upstreams;

        @BeforeAll
        void pinTheUpstreams() throws Exception {
            NodeTools.pinnedNodeForStatelessClients();
            upstreamDir = Files.createTempDirectory("postern-interop-inspector2-upstream-");
            upstreams = PinnedUpstreams.prepare(upstreamDir);
        }

        private PackagedGateway gateway(String name) throws Exception {
            return PackagedGateway.startWithUpstreams(Files.createDirectories(upstreamDir.resolve(name)), upstreams);
        }

        @ParameterizedTest(name = "--protocol-era {0}")
        @ValueSource(strings = {"modern", "auto"})
        void inspectorListsTheAllowlistedUpstreamToolsWithTheUpstreamsDescriptionsInTheStatelessEra(String era) throws Exception {
            try (PackagedGateway gateway = gateway("list-" + era)) {
                Run run = inspector(gateway, era, "--method", "tools/list", "--strict");

                assertEquals(0, run.exit(), run.output());
                List<String> names = new ArrayList<>();
                run.json().path("tools").forEach(t -> names.add(t.path("name").asText()));
                assertEquals(List.of("http_request", "everything__echo", "everything__get-sum", "files__read_text_file",
                        "files__write_file", "postern_targets"), names, run.output());
                JsonNode echo = run.json().path("tools").path(names.indexOf("everything__echo"));
                assertEquals(UpstreamClientRun.ECHO_DESCRIPTION, echo.path("description").asText(), run.output());
                assertEquals(List.of("server/discover", "tools/list"), run.methods(), run.output());
                assertEquals(0, run.gatewayExit(), run.output());
            }
        }

        @ParameterizedTest(name = "--protocol-era {0}")
        @ValueSource(strings = {"modern", "auto"})
        void inspectorsUpstreamEchoCallReachesServerEverythingAndComesBackInTheStatelessEra(String era) throws Exception {
            String marker = "inspector2-echo-" + era;
            try (PackagedGateway gateway = gateway("echo-" + era)) {
                Run run = inspector(gateway, era, "--method", "tools/call", "--tool-name", "everything__echo",
                        "--tool-arg", "message=" + marker);

                assertEquals(0, run.exit(), run.output());
                assertFalse(run.json().path("isError").asBoolean(false), run.output());
                assertEquals("Echo: " + marker, run.json().path("content").path(0).path("text").asText(), run.output());
                assertEquals(1, upstreams.callsReceived(PinnedUpstreams.EVERYTHING, "echo").stream()
                        .filter(a -> a.path("message").asText().equals(marker)).count(), upstreams.receivedText() + run.output());
                assertEquals(0, run.gatewayExit(), run.output());
            }
        }

        @ParameterizedTest(name = "--protocol-era {0}")
        @ValueSource(strings = {"modern", "auto"})
        void inspectorsNarrowedArgumentIsRefusedBeforeTheServerInTheStatelessEra(String era) throws Exception {
            try (PackagedGateway gateway = gateway("narrowed-" + era)) {
                Run run = inspector(gateway, era, "--method", "tools/call", "--tool-name", "everything__get-sum",
                        "--tool-arg", "a=1000", "b=1");

                assertEquals(TOOL_ERROR, run.exit(), run.output());
                String text = run.json().path("content").path(0).path("text").asText();
                assertTrue(text.contains("INVALID_ARGUMENTS") && text.contains("/a"), run.output());
                assertEquals(List.of(), upstreams.callsReceived(PinnedUpstreams.EVERYTHING, "get-sum"),
                        upstreams.receivedText() + run.output());
                assertEquals(0, run.gatewayExit(), run.output());
            }
        }
    }
}
