package dev.postern.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The loopback approval page end to end: the packaged gateway, the TypeScript SDK's stock client
 * (no elicitation declared) and Debian's headless Chromium driven by playwright-core
 * ({@code interop/ts/approval-browser.mjs}). Approve → exactly one effect at the loopback service;
 * deny, expiry, a replayed URL or form, a second tab, a wrong Host, a cross-origin POST, a missing or
 * reused CSRF token → none. With {@code -Dpostern.writeScreenshot=true} the run's screenshot of the page is copied to
 * {@code docs/approval-page.png}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ApprovalPageBrowserIT {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

    private Path dir;
    private PackagedGateway gateway;
    private JsonNode steps;
    private int clientExit;
    private String context;

    @BeforeAll
    void runTheBrowserOnce() throws Exception {
        String node = NodeTools.systemNode();
        NodeTools.installed("@modelcontextprotocol/sdk/package.json");
        NodeTools.installed("playwright-core/package.json");
        NodeTools.require(Files.isExecutable(CHROMIUM), CHROMIUM + " is missing (CI installs it: apt-get install chromium)");
        dir = Files.createTempDirectory("postern-interop-browser-");
        gateway = PackagedGateway.startWithSession(dir, "{ \"approval\": \"local\", \"approvalTimeoutSeconds\": 8 }");
        Path record = dir.resolve("record.json");
        Path screenshot = dir.resolve("approval-page.png");
        Path clientLog = dir.resolve("client.log");
        Process p = new ProcessBuilder(node, NodeTools.interopDir().resolve("ts").resolve("approval-browser.mjs").toString(),
                gateway.serverCommand.toString(), gateway.stderrFile().toString(), gateway.http.baseUri().toString(),
                screenshot.toString(), record.toString())
                .redirectErrorStream(true).redirectOutput(clientLog.toFile()).start();
        boolean finished = p.waitFor(90, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly();
        }
        clientExit = finished ? p.exitValue() : -1;
        String recorded = Files.exists(record) ? Files.readString(record, StandardCharsets.UTF_8) : "{}";
        context = "browser record:\n" + recorded + "\nbrowser script's log:\n" + Files.readString(clientLog) + "\n" + gateway.stderrText();
        System.err.println(context); // every step, so a slow or hung run says where
        if (!finished) {
            throw new AssertionError("the browser script did not finish in 90 s\n" + context);
        }
        steps = new ObjectMapper().readTree(recorded).path("steps");
        // Only on request, as the other tests that write documents: a plain run leaves the checkout as it was.
        if (Boolean.getBoolean("postern.writeScreenshot") && Files.exists(screenshot)) {
            Path docs = PackagedGateway.repositoryRoot().resolve("docs").resolve("approval-page.png");
            Files.copy(screenshot, docs, StandardCopyOption.REPLACE_EXISTING);
        }
        gateway.awaitExitStatus(Duration.ofSeconds(30));
    }

    @AfterAll
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
    }

    private JsonNode result(String step) {
        JsonNode r = steps.path(step).path("result");
        assertFalse(r.isMissingNode(), "step " + step + " has no result\n" + context);
        return r;
    }

    @Test
    void theBrowserScriptRanEveryStep() {
        assertEquals(0, clientExit, context);
    }

    @Test
    void approvingOnThePageRunsTheActionExactlyOnce() {
        JsonNode shown = result("open the page");
        assertEquals(200, shown.path("status").asInt(), context);
        assertTrue(shown.path("body").asText().contains("/v1/approve-me"), context);
        assertTrue(shown.path("body").asText().contains("postern-interop-browser"), "the page names the client\n" + context);
        assertTrue(shown.path("csp").asText().startsWith("default-src 'none'"), context);
        assertEquals(200, result("click approve").path("status").asInt(), context);
        assertFalse(result("approved call's result").path("isError").asBoolean(true), context);
        assertEquals(1, gateway.requestsTo("POST", "/v1/approve-me"), context);
    }

    @Test
    void aSecondTabOrAReplayedFormAfterTheAnswerIsGone() {
        assertEquals(410, result("second tab after the answer").path("status").asInt(), context);
        assertEquals(410, result("replayed form").path("status").asInt(), context);
        assertEquals(1, gateway.requestsTo("POST", "/v1/approve-me"), context);
    }

    @Test
    void denyingOnThePageRunsNothing() {
        assertEquals(200, result("click deny").path("status").asInt(), context);
        JsonNode denied = result("denied call's result");
        assertTrue(denied.path("isError").asBoolean(false) && denied.path("text").asText().contains("approval.declined"), context);
        assertEquals(0, gateway.requestsTo("POST", "/v1/decline-me"), context);
    }

    @Test
    void aWrongHostACrossOriginPostAndAMissingOrReusedTokenAnswerNothingAndTheApprovalExpires() {
        JsonNode rebound = result("wrong host");
        assertEquals(421, rebound.path("status").asInt(), context);
        assertFalse(rebound.path("body").asText().contains("/v1/attack-me"), context);
        assertEquals(403, result("cross-origin form post").path("status").asInt(), context);
        assertEquals(403, result("missing csrf token").path("status").asInt(), context);
        assertEquals(403, result("reused csrf token").path("status").asInt(), context);
        JsonNode expired = result("expired call's result");
        assertTrue(expired.path("isError").asBoolean(false) && expired.path("text").asText().contains("approval.timeout"), context);
        assertEquals(410, result("expired page").path("status").asInt(), context);
        assertEquals(0, gateway.requestsTo("POST", "/v1/attack-me"), context);
    }
}
