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
 * The TypeScript SDK v2 client ({@code @modelcontextprotocol/client}, driven by
 * {@code interop/ts/client-modern.mjs} on the pinned Node 22) with its version negotiation pinned to
 * 2026-07-28 drives the packaged gateway over stdio once, in the stateless era; each test judges one
 * part of what the client recorded and what it sent.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TypeScriptSdkV2ClientIT {
    private PackagedGateway gateway;
    private JsonNode steps;
    private JsonNode elicitations;
    private int clientExit;
    private int gatewayExit;
    private List<JsonNode> sent;
    private String context;

    @BeforeAll
    void runTheClientOnce() throws Exception {
        Path node = NodeTools.pinnedNodeForStatelessClients();
        NodeTools.installed("@modelcontextprotocol/client/package.json");
        Path dir = Files.createTempDirectory("postern-interop-ts2-");
        gateway = PackagedGateway.startRecordingRequests(dir);
        Path record = dir.resolve("record.json");
        Path clientLog = dir.resolve("client.log");
        Process p = new ProcessBuilder(node.toString(), NodeTools.interopDir().resolve("ts").resolve("client-modern.mjs").toString(),
                gateway.serverCommand.toString(), gateway.allowedUrl(), gateway.deniedUrl(), record.toString())
                .redirectErrorStream(true).redirectOutput(clientLog.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the TypeScript v2 client did not finish in 120 s\n" + Files.readString(clientLog));
        }
        clientExit = p.exitValue();
        gatewayExit = gateway.awaitExitStatus(Duration.ofSeconds(30));
        sent = gateway.clientRequests();
        String recorded = Files.exists(record) ? Files.readString(record, StandardCharsets.UTF_8) : "{}";
        context = "client record:\n" + recorded + "\nclient output:\n" + Files.readString(clientLog)
                + "\nclient requests:\n" + sent + "\n" + gateway.stderrText();
        steps = new ObjectMapper().readTree(recorded).path("steps");
        elicitations = new ObjectMapper().readTree(recorded).path("elicitations");
    }

    @AfterAll
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
    }

    @Test
    void v2ClientPinnedTo20260728ConnectsByDiscoveryAndSpeaksOnlyTheStatelessEra() {
        assertEquals(0, clientExit, context);
        JsonNode connect = steps.path("connect").path("result");
        assertEquals("modern", connect.path("era").asText(), context);
        assertEquals(ClientWire.STATELESS_VERSION, connect.path("protocolVersion").asText(), context);
        assertEquals("postern", connect.path("serverInfo").path("name").asText(), context);
        assertEquals(List.of("server/discover", "tools/list", "tools/call", "tools/call", "tools/call", "tools/call", "tools/call",
                        "tools/call"),
                ClientWire.assertSpokeTheStatelessEra(sent, context), context);
    }

    @Test
    void v2ClientListsEveryTool() {
        assertEquals(List.of("http_request", "postern_targets"),
                List.of(steps.path("tools/list").path("result").path(0).asText(), steps.path("tools/list").path("result").path(1).asText()),
                context);
    }

    @Test
    void v2ClientsAllowedCallReachesTheServiceOnceAndDeniedCallNever() {
        JsonNode allowed = steps.path("allowed").path("result");
        assertFalse(allowed.isMissingNode(), context);
        assertFalse(allowed.path("isError").asBoolean(true), context);
        assertEquals("hello from loopback", allowed.path("structuredContent").path("body").asText(), context);
        assertEquals(1, gateway.requestsTo("GET", "/v1/hello"), "the allowed call reached the service once\n" + context);
        assertEquals(0, gateway.http.requests().stream().filter(r -> r.path().startsWith("/admin")).count(),
                "the denied call never reached it\n" + context);
        assertEquals("/v1/hello", gateway.http.requests().get(0).path(), context);
    }

    @Test
    void v2ClientSeesTheDenialAsAnErrorResult() {
        JsonNode denied = steps.path("denied").path("result");
        assertTrue(denied.path("isError").asBoolean(false), context);
        assertTrue(denied.path("content").path(0).path("text").asText().contains("http.path"), context);
    }

    @Test
    void v2ClientsApprovedCallAsksAHumanOnceAndRunsExactlyOnce() {
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
    void v2ClientsDeclinedCallEndsInApprovalDeclinedAndNeverRuns() {
        JsonNode declined = steps.path("declined").path("result");
        assertTrue(declined.path("isError").asBoolean(false), context);
        assertTrue(declined.path("content").path(0).path("text").asText().contains("approval.declined"), context);
        assertEquals(0, gateway.requestsTo("POST", "/v1/decline-me"), context);
        assertEquals(2, elicitations.size(), "one question per call that needs approval, none after a decline\n" + context);
    }

    @Test
    void v2ClientRetriesEachApprovalWithItsAnswerAndTheRequestStateUnchanged() {
        List<JsonNode> calls = sent.stream().filter(m -> "tools/call".equals(m.path("method").asText())).toList();
        JsonNode firstApproved = calls.get(2).path("params");
        JsonNode retryApproved = calls.get(3).path("params");
        assertFalse(firstApproved.has("requestState") || firstApproved.has("inputResponses"), context);
        assertEquals(firstApproved.path("arguments"), retryApproved.path("arguments"), context);
        assertTrue(retryApproved.path("requestState").isTextual(), context);
        assertEquals("accept", retryApproved.path("inputResponses").path("approval").path("action").asText(), context);
        assertEquals("decline", calls.get(5).path("params").path("inputResponses").path("approval").path("action").asText(), context);
        assertFalse(calls.get(3).path("id").equals(calls.get(2).path("id")), "each leg is a new request\n" + context);
    }

    @Test
    void v2ClientClosesAndTheGatewayExitsZero() {
        assertEquals("closed", steps.path("close").path("result").asText(), context);
        assertEquals(0, gatewayExit, context);
    }

    /**
     * The same client, against a gateway with real upstream MCP servers behind it (server-everything
     * and server-filesystem, see {@link PinnedUpstreams}), run once in the stateless era; an approval
     * comes back as {@code input_required}, and the human who answers it is the client's
     * elicitation handler.
     */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class BehindTheGateway {
        private Path upstreamDir;
        private UpstreamClientRun run;

        @BeforeAll
        void runTheClientOnce() throws Exception {
            upstreamDir = Files.createTempDirectory("postern-interop-ts2-upstream-");
            Path node = NodeTools.pinnedNodeForStatelessClients();
            NodeTools.installed("@modelcontextprotocol/client/package.json");
            run = UpstreamClientRun.of(upstreamDir, node.toString(), "upstream-client-modern.mjs");
        }

        @AfterAll
        void stop() {
            if (run != null) {
                run.close();
            }
        }

        @Test
        void v2ClientSpeaksOnlyTheStatelessEraToAGatewayWithUpstreams() throws Exception {
            assertEquals(0, run.clientExit, run.context);
            List<String> methods = ClientWire.assertSpokeTheStatelessEra(run.gateway.clientRequests(), run.context);
            assertEquals(List.of("server/discover", "tools/list"), methods.subList(0, 2), run.context);
            List<JsonNode> writes = run.gateway.clientRequests().stream()
                    .filter(m -> "files__write_file".equals(m.path("params").path("name").asText())).toList();
            assertEquals("accept", writes.get(1).path("params").path("inputResponses").path("approval").path("action").asText(),
                    "the approved write was retried with the human's answer\n" + run.context);
        }

        @Test
        void v2ClientListsOnlyTheAllowlistedUpstreamToolsWithTheUpstreamsDescriptions() {
            run.assertListsOnlyTheAllowlistedUpstreamToolsWithTheirDefinitions();
        }

        @Test
        void v2ClientsEchoCallReachesServerEverythingOnceAndComesBack() throws Exception {
            run.assertEchoReachesTheServerOnceAndComesBack();
        }

        @Test
        void v2ClientsUndeclaredAndNarrowedArgumentsAreRefusedBeforeTheServer() throws Exception {
            run.assertRefusedArgumentsNeverReachTheServer();
        }

        @Test
        void v2ClientsApprovedWriteIsOnDiskAndTheDeclinedOneLeavesNoFile() throws Exception {
            run.assertApprovedWriteIsOnDiskAndNoOtherWriteIs();
        }

        @Test
        void v2ClientClosesAndTheGatewayWithUpstreamsExitsZero() {
            run.assertClosesAndTheGatewayExitsZero();
        }
    }
}
