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
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The TypeScript SDK's client ({@code interop/ts/client.mjs} on the system node) drives the
 * packaged gateway over stdio once; each test judges one part of what the client recorded.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TypeScriptSdkClientIT {
    private Path dir;
    private PackagedGateway gateway;
    private JsonNode steps;
    private JsonNode elicitations;
    private int clientExit;
    private int gatewayExit;
    private int requestsAfterAllowed;
    private String context;

    @BeforeAll
    void runTheClientOnce() throws Exception {
        String node = NodeTools.systemNode();
        NodeTools.installed("@modelcontextprotocol/sdk/package.json");
        dir = Files.createTempDirectory("postern-interop-ts-");
        gateway = PackagedGateway.start(dir);
        Path record = dir.resolve("record.json");
        Path clientLog = dir.resolve("client.log");
        Process p = new ProcessBuilder(node, NodeTools.interopDir().resolve("ts").resolve("client.mjs").toString(),
                gateway.serverCommand.toString(), gateway.allowedUrl(), gateway.deniedUrl(), record.toString())
                .redirectErrorStream(true).redirectOutput(clientLog.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the TypeScript client did not finish in 120 s\n" + Files.readString(clientLog));
        }
        clientExit = p.exitValue();
        gatewayExit = gateway.awaitExitStatus(Duration.ofSeconds(30));
        String recorded = Files.exists(record) ? Files.readString(record, StandardCharsets.UTF_8) : "{}";
        context = "client record:\n" + recorded + "\nclient output:\n" + Files.readString(clientLog) + "\n" + gateway.stderrText();
        steps = new ObjectMapper().readTree(recorded).path("steps");
        elicitations = new ObjectMapper().readTree(recorded).path("elicitations");
        requestsAfterAllowed = (int) gateway.requestsTo("GET", "/v1/hello") + (int) gateway.http.requests().stream()
                .filter(r -> r.path().startsWith("/admin")).count();
    }

    @AfterAll
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
    }

    @Test
    void typeScriptClientInitializesAndAcceptsEveryToolSchema() {
        assertEquals(0, clientExit, context);
        assertEquals("postern", steps.path("initialize").path("result").path("serverInfo").path("name").asText(), context);
        assertEquals(List.of("http_request", "postern_targets"),
                List.of(steps.path("tools/list").path("result").path(0).asText(), steps.path("tools/list").path("result").path(1).asText()),
                context);
    }

    @Test
    void typeScriptClientsAllowedCallReachesTheServiceOnceAndDeniedCallNever() {
        JsonNode allowed = steps.path("allowed").path("result");
        assertFalse(allowed.isMissingNode(), context);
        assertFalse(allowed.path("isError").asBoolean(false), context);
        assertEquals("hello from loopback", allowed.path("structuredContent").path("body").asText(), context);
        assertEquals(1, requestsAfterAllowed, "the allowed call reached the service once, the denied call never\n" + context);
        assertEquals("/v1/hello", gateway.http.requests().get(0).path(), context);
    }

    @Test
    void typeScriptClientSeesTheDenialAsAnErrorResult() {
        JsonNode denied = steps.path("denied").path("result");
        assertTrue(denied.path("isError").asBoolean(false), context);
        assertTrue(denied.path("content").path(0).path("text").asText().contains("http.path"), context);
    }

    @Test
    void typeScriptClientsApprovedCallAsksAHumanOnceAndRunsExactlyOnce() {
        JsonNode approved = steps.path("approved").path("result");
        assertFalse(approved.isMissingNode(), context);
        assertFalse(approved.path("isError").asBoolean(true), context);
        assertEquals("approved and done", approved.path("structuredContent").path("body").asText(), context);
        assertEquals(1, gateway.requestsTo("POST", "/v1/approve-me"), context);
        JsonNode asked = elicitations.path(0);
        assertTrue(asked.path("message").asText().contains("/v1/approve-me"), context);
        assertTrue(asked.path("message").asText().contains("method: POST"), context);
        assertEquals("boolean", asked.path("requestedSchema").path("properties").path("approve").path("type").asText(), context);
        assertEquals("approve", asked.path("requestedSchema").path("required").path(0).asText(), context);
    }

    @Test
    void typeScriptClientsDeclinedCallEndsInApprovalDeclinedAndNeverRuns() {
        JsonNode declined = steps.path("declined").path("result");
        assertTrue(declined.path("isError").asBoolean(false), context);
        assertTrue(declined.path("content").path(0).path("text").asText().contains("approval.declined"), context);
        assertEquals(0, gateway.requestsTo("POST", "/v1/decline-me"), context);
        assertEquals(2, elicitations.size(), "one question per call that needs approval, none after a decline\n" + context);
    }

    @Test
    void typeScriptClientClosesAndTheGatewayExitsZero() {
        assertEquals("closed", steps.path("close").path("result").asText(), context);
        assertEquals(0, gatewayExit, context);
    }

    /**
     * The same client, against a gateway with real upstream MCP servers behind it (server-everything
     * and server-filesystem, see {@link PinnedUpstreams}), run once in the handshake era; the human
     * who approves a write answers the gateway's {@code elicitation/create}.
     */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class BehindTheGateway {
        private Path upstreamDir;
        private UpstreamClientRun run;

        @BeforeAll
        void runTheClientOnce() throws Exception {
            upstreamDir = Files.createTempDirectory("postern-interop-ts-upstream-");
            String node = NodeTools.systemNode();
            NodeTools.installed("@modelcontextprotocol/sdk/package.json");
            run = UpstreamClientRun.of(upstreamDir, node, "upstream-client.mjs");
        }

        @AfterAll
        void stop() {
            if (run != null) {
                run.close();
            }
        }

        @Test
        void typeScriptClientListsOnlyTheAllowlistedUpstreamToolsWithTheUpstreamsDescriptions() {
            run.assertListsOnlyTheAllowlistedUpstreamToolsWithTheirDefinitions();
        }

        @Test
        void typeScriptClientsEchoCallReachesServerEverythingOnceAndComesBack() throws Exception {
            run.assertEchoReachesTheServerOnceAndComesBack();
        }

        @Test
        void typeScriptClientsUndeclaredAndNarrowedArgumentsAreRefusedBeforeTheServer() throws Exception {
            run.assertRefusedArgumentsNeverReachTheServer();
        }

        @Test
        void typeScriptClientsApprovedWriteIsOnDiskAndTheDeclinedOneLeavesNoFile() throws Exception {
            run.assertApprovedWriteIsOnDiskAndNoOtherWriteIs();
        }

        @Test
        void typeScriptClientClosesAndTheGatewayWithUpstreamsExitsZero() {
            run.assertClosesAndTheGatewayExitsZero();
        }
    }
}
