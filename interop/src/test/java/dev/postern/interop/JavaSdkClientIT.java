package dev.postern.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.nio.file.Files;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/** The MCP Java SDK client (io.modelcontextprotocol.sdk:mcp) drives the packaged gateway over stdio. */
class JavaSdkClientIT {
    @TempDir
    Path dir;

    @Test
    void javaSdkClientListsToolsCallsAllowedAndDeniedAndShutsDownCleanly() throws Exception {
        try (PackagedGateway gateway = PackagedGateway.start(dir)) {
            StdioClientTransport transport = new StdioClientTransport(
                    ServerParameters.builder(gateway.serverCommand.toString()).build(),
                    new JacksonMcpJsonMapper(JsonMapper.builder().build()));
            McpSyncClient client = McpClient.sync(transport)
                    .requestTimeout(Duration.ofSeconds(30))
                    .initializationTimeout(Duration.ofSeconds(60))
                    .build();
            String context = "";
            try {
                McpSchema.InitializeResult init = client.initialize();
                assertEquals("postern", init.serverInfo().name());

                List<McpSchema.Tool> tools = client.listTools().tools();
                assertEquals(List.of("http_request", "postern_targets"),
                        tools.stream().map(McpSchema.Tool::name).sorted().collect(Collectors.toList()));
                assertTrue(tools.stream().allMatch(t -> t.outputSchema() != null), "every tool declares its outputSchema");

                McpSchema.CallToolResult allowed = client.callTool(new McpSchema.CallToolRequest("http_request",
                        Map.of("method", "GET", "url", gateway.allowedUrl())));
                context = allowed.toString();
                assertFalse(Boolean.TRUE.equals(allowed.isError()), context);
                assertEquals(1, gateway.http.requestCount(), "the allowed call reached the service once");
                assertEquals("hello from loopback", ((Map<?, ?>) allowed.structuredContent()).get("body"), context);

                McpSchema.CallToolResult denied = client.callTool(new McpSchema.CallToolRequest("http_request",
                        Map.of("method", "GET", "url", gateway.deniedUrl())));
                context = denied.toString();
                assertTrue(Boolean.TRUE.equals(denied.isError()), context);
                assertEquals(1, gateway.http.requestCount(), "the denied call reached nothing");
            } finally {
                assertTrue(client.closeGracefully(), "the client closed gracefully");
            }
            assertEquals(0, gateway.awaitExitStatus(Duration.ofSeconds(30)), gateway.stderrText());
        }
    }

    /**
     * The Java SDK client behind the gateway with two real upstream MCP servers (server-everything and
     * server-filesystem, see {@link PinnedUpstreams}), run once; the human who approves a write answers
     * the gateway's form {@code elicitation/create} through the SDK's elicitation handler.
     */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class BehindTheGateway {
        private UpstreamClientRun run;

        @BeforeAll
        void runTheClientOnce() throws Exception {
            run = UpstreamClientRun.ofJavaSdk(Files.createTempDirectory("postern-interop-java-upstream-"));
        }

        @AfterAll
        void stop() {
            if (run != null) {
                run.close();
            }
        }

        @Test
        void javaSdkClientListsOnlyTheAllowlistedUpstreamToolsWithTheUpstreamsDescriptions() {
            run.assertListsOnlyTheAllowlistedUpstreamToolsWithTheirDefinitions();
        }

        @Test
        void javaSdkClientsEchoCallReachesServerEverythingOnceAndComesBack() throws Exception {
            run.assertEchoReachesTheServerOnceAndComesBack();
        }

        @Test
        void javaSdkClientsUndeclaredAndNarrowedArgumentsAreRefusedBeforeTheServer() throws Exception {
            run.assertRefusedArgumentsNeverReachTheServer();
        }

        @Test
        void javaSdkClientsApprovedWriteIsOnDiskAndTheDeclinedOneLeavesNoFile() throws Exception {
            run.assertApprovedWriteIsOnDiskAndNoOtherWriteIs();
        }

        @Test
        void javaSdkClientClosesAndTheGatewayWithUpstreamsExitsZero() {
            run.assertClosesAndTheGatewayExitsZero();
        }
    }
}
