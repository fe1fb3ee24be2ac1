package dev.postern.executor.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.policy.json.JsonValue.JsonObject;
import dev.postern.policy.model.LiveTools.Listing;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.outcome.UpstreamCallOutcome;
import dev.postern.policy.port.Cancellation;
import dev.postern.transport.Sha256;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The upstream executor against a real child process (the throwaway {@link FakeUpstream}), no mocks. */
class McpActionExecutorTest {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(20);
    @TempDir
    Path dir;
    private Harness h;
    private McpActionExecutor executor;

    @BeforeEach
    void harness() {
        h = new Harness(dir);
    }

    @AfterEach
    void close() {
        if (executor != null) {
            executor.close();
        }
    }

    private UpstreamServer normal() {
        return h.server("normal", CALL_TIMEOUT, 1 << 20);
    }

    private Outcome call(UpstreamServer server, String tool, String args) {
        return executor.execute(Harness.permit(server, tool, args), new Cancellation());
    }

    private static UpstreamCallOutcome success(Outcome o) {
        return assertInstanceOf(UpstreamCallOutcome.class, o, () -> "expected a result, got " + o);
    }

    private static ExecutionFailure failure(Outcome o, FailureCode code) {
        ExecutionFailure f = assertInstanceOf(ExecutionFailure.class, o, () -> "expected a failure, got " + o);
        assertEquals(code, f.code(), f.message());
        return f;
    }

    /** The agent is never told a path, a pid or an exception class. */
    private void assertFitForTheAgent(ExecutionFailure f) {
        assertFalse(f.message().contains(dir.toString()), f.message());
        assertFalse(f.message().contains("Exception"), f.message());
        assertFalse(f.message().contains("java"), f.message());
    }

    @Test
    void handshakeListsEveryPageAndACallReturnsItsResult() {
        UpstreamServer server = normal();
        executor = h.started(server);
        Listing.Listed listed = (Listing.Listed) h.lastListing();
        assertEquals(FakeUpstream.TOOLS, listed.tools().stream().map(t -> t.string("name").orElseThrow()).toList());
        assertInstanceOf(Listing.Pending.class, h.listings.get(0));

        UpstreamCallOutcome out = success(call(server, "echo", "{\"a\":1}"));
        assertEquals("{\"a\":1}", Harness.text(out.result()));
        assertFalse(out.upstreamError());
        String log = h.log();
        assertTrue(log.contains("\"protocolVersion\":\"2025-11-25\""), log);
        assertTrue(log.contains("\"capabilities\":{}"), log);
        assertTrue(log.contains("\"clientInfo\":{\"name\":\"postern\",\"version\":\"test\"}"), log);
        assertTrue(log.contains("notifications/initialized"), log);
        assertTrue(log.contains("\"cursor\":\"page-2\""), log);
        assertTrue(h.reports.isEmpty(), h.reports::toString);
    }

    @Test
    void strayStdoutLinesAreDroppedAndReportedByDigestAndLengthOnly() {
        UpstreamServer server = normal();
        executor = h.started(server);
        UpstreamCallOutcome out = success(call(server, "stray", "{}"));
        assertEquals("after the strays", Harness.text(out.result()));
        Harness.waitFor("four lines reported", () -> h.reports.size() >= 4);
        assertEquals(List.of("json", "json", "framing", "unsolicited"), h.reasons());
        Harness.Report notJson = h.reports.get(0);
        assertEquals(Sha256.of("this is not json".getBytes(StandardCharsets.UTF_8)), notJson.sha256());
        assertEquals(16, notJson.bytes());
        assertEquals(7, h.reports.get(2).bytes(), "the invalid UTF-8 line's length");
        assertFalse(h.log().contains("-32700"), "nothing is answered to a bad line");
    }

    @Test
    void aRequestFromTheUpstreamIsAnsweredMethodNotFoundAndReported() {
        UpstreamServer server = normal();
        executor = h.started(server);
        UpstreamCallOutcome out = success(call(server, "ask", "{}"));
        assertEquals("answered -32601", Harness.text(out.result()));
        assertEquals(List.of("request"), h.reasons());
    }

    @Test
    void aTimeoutTellsTheUpstreamToCancel() {
        UpstreamServer server = h.server("normal", Duration.ofMillis(800), 1 << 20);
        executor = h.started(server);
        ExecutionFailure f = failure(call(server, "sleep", "{}"), FailureCode.TIMEOUT);
        assertTrue(f.message().contains("its effect is unknown"), f.message());
        assertFitForTheAgent(f);
        Harness.waitFor("the fake logged the cancellation", () -> h.log().contains("notifications/cancelled"));
        assertTrue(h.log().contains("\"reason\":\"timeout\""), h.log());
    }

    @Test
    void aCancelledCallTellsTheUpstreamToCancel() {
        UpstreamServer server = normal();
        executor = h.started(server);
        Cancellation cancellation = new Cancellation();
        CompletableFuture<Outcome> running = CompletableFuture.supplyAsync(
                () -> executor.execute(Harness.permit(server, "sleep", "{}"), cancellation));
        Harness.waitFor("the call reached the fake", () -> h.log().contains("\"name\":\"sleep\""));
        cancellation.cancel();
        failure(running.join(), FailureCode.CANCELLED);
        Harness.waitFor("the fake logged the cancellation", () -> h.log().contains("notifications/cancelled"));
        String sent = h.log().lines().filter(l -> l.contains("\"name\":\"sleep\"")).findFirst().orElseThrow();
        String id = sent.replaceAll(".*\"id\":(\\d+).*", "$1");
        assertTrue(h.log().contains("\"requestId\":" + id), h.log());
    }

    @Test
    void progressOfTheCallIsPassedOnMasked() {
        UpstreamServer server = normal();
        executor = h.started(server);
        List<String> seen = java.util.Collections.synchronizedList(new ArrayList<>());
        Cancellation c = new Cancellation((progress, total, message) ->
                seen.add(progress + "/" + total.map(BigDecimal::toString).orElse("-") + " " + message.orElse("")));
        success(executor.execute(Harness.permit(server, "progress", "{}"), c));
        assertEquals(List.of("1/2 half of ****", "2/- "), seen);
        assertTrue(h.log().contains("\"_meta\":{\"progressToken\":"), h.log());
    }

    @Test
    void noProgressTokenIsSentWhenTheClientAskedForNone() {
        UpstreamServer server = normal();
        executor = h.started(server);
        success(call(server, "echo", "{}"));
        assertFalse(h.log().contains("progressToken"), h.log());
    }

    @Test
    void aCrashMidCallFailsItAsSentAndTheNextCallStartsTheServerAgain() {
        UpstreamServer server = normal();
        executor = h.started(server);
        long first = h.fakePid();
        ExecutionFailure f = failure(call(server, "crash", "{}"), FailureCode.UPSTREAM_UNAVAILABLE);
        assertTrue(f.message().contains("the request had been sent: its effect is unknown"), f.message());
        assertFitForTheAgent(f);
        Harness.waitFor("the executor saw the exit", () -> executor.pidOf("fake").isEmpty());
        UpstreamCallOutcome again = success(call(server, "echo", "{\"b\":2}"));
        assertEquals("{\"b\":2}", Harness.text(again.result()));
        assertNotEquals(first, h.fakePid());
        assertInstanceOf(Listing.Listed.class, h.lastListing());
    }

    @Test
    void anUpstreamThatNeverAnswersInitializeIsUnavailableAfterItsStartTimeout() {
        UpstreamServer base = h.server("silent-init", CALL_TIMEOUT, 1 << 20);
        UpstreamServer server = new UpstreamServer(base.name(), base.command(), base.cwd(), base.env(), Duration.ofMillis(1500),
                base.timeout(), base.maxResponseBytes(), base.tools(), base.rateLimit());
        executor = h.executor(server);
        executor.start((a, l) -> h.listings.add(l));
        Harness.waitFor("the server is unavailable", () -> h.lastListing() instanceof Listing.Unavailable);
        String reason = ((Listing.Unavailable) h.lastListing()).reason();
        assertTrue(reason.contains("did not answer its initialize within 1500 ms"), reason);
        ExecutionFailure f = failure(call(server, "echo", "{}"), FailureCode.UPSTREAM_UNAVAILABLE);
        assertTrue(f.message().contains("nothing was sent") && f.message().contains("tried again in"), f.message());
    }

    @Test
    void anUpstreamSpeakingAnUnknownProtocolVersionIsUnavailable() {
        executor = h.executor(h.server("old-version", CALL_TIMEOUT, 1 << 20));
        executor.start((a, l) -> h.listings.add(l));
        Harness.waitFor("the server is unavailable", () -> h.lastListing() instanceof Listing.Unavailable);
        assertTrue(((Listing.Unavailable) h.lastListing()).reason().contains("2024-11-05"));
    }

    @Test
    void aCredentialThatCannotBeReadMakesTheServerUnavailableWithoutStartingIt() {
        executor = h.executor(h.server("normal", CALL_TIMEOUT, 1 << 20, "missing"));
        executor.start((a, l) -> h.listings.add(l));
        Harness.waitFor("the server is unavailable", () -> h.lastListing() instanceof Listing.Unavailable);
        assertEquals("credential missing for its environment could not be read", ((Listing.Unavailable) h.lastListing()).reason());
        assertFalse(dir.resolve("fake.pid").toFile().exists());
    }

    @Test
    void aCredentialEchoedInAResultAnErrorOrOnStderrIsMasked() {
        UpstreamServer server = normal();
        executor = h.started(server);
        UpstreamCallOutcome out = success(call(server, "secret", "{}"));
        assertEquals("the token is ****", Harness.text(out.result()));
        ExecutionFailure f = failure(call(server, "rpcerror", "{}"), FailureCode.EXECUTOR_FAILED);
        assertTrue(f.message().endsWith("JSON-RPC error -32000: boom ****"), f.message());
        success(call(server, "stderr", "{}"));
        Harness.waitFor("stderr copied", () -> h.diagnostics().contains("second"));
        assertTrue(h.diagnostics().contains("postern: upstream fake: a line on stderr with ****"), h.diagnostics());
        assertTrue(h.diagnostics().contains("postern: upstream fake: second?[31m line"), h.diagnostics());
        assertFalse(h.diagnostics().contains(Harness.SECRET));
    }

    @Test
    void theChildsEnvironmentHoldsOnlyTheInheritedNamesAndItsOwn() throws Exception {
        UpstreamServer server = normal();
        executor = h.started(server);
        String env = Harness.text(success(call(server, "env", "{}")).result());
        JsonNode vars = new ObjectMapper().readTree(env.replace("****", Harness.SECRET));
        Set<String> names = new HashSet<>();
        for (Iterator<String> it = vars.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        Set<String> allowed = new HashSet<>(UpstreamServer.INHERITED_ENV);
        allowed.addAll(List.of("SECRET", "FAKE_LOG", "FAKE_PIDFILE"));
        assertTrue(allowed.containsAll(names), "unexpected variables: " + names);
        assertTrue(names.contains("SECRET"));
        assertTrue(env.contains("\"SECRET\":\"****\""), "the credential is masked in the result too");
    }

    @Test
    void aChangedDefinitionIsListedAgainAndACallPinnedToTheOldOneIsNotSent() {
        UpstreamServer server = normal();
        executor = h.started(server);
        int before = h.listings.size();
        success(call(server, "change", "{}"));
        Harness.waitFor("listed again", () -> h.listings.size() > before);
        assertEquals(List.of("pin"), h.reasons());
        assertEquals(Harness.pin("echo", true).substring(7), h.reports.get(0).sha256());
        ExecutionFailure f = failure(call(server, "echo", "{}"), FailureCode.UPSTREAM_UNAVAILABLE);
        assertEquals("the tool's definition changed since the call was allowed; nothing was sent", f.message());
        assertFalse(h.log().contains("\"name\":\"echo\""), "the call was never sent");
    }

    @Test
    void aResultOverTheCapIsRefusedWhole() {
        UpstreamServer server = h.server("normal", CALL_TIMEOUT, 4096);
        executor = h.started(server);
        failure(call(server, "big", "{\"n\":5000}"), FailureCode.RESPONSE_TOO_LARGE);
        success(call(server, "big", "{\"n\":100}"));
    }

    @Test
    void aResultOfTheWrongShapeIsAProtocolErrorAndReported() {
        UpstreamServer server = normal();
        executor = h.started(server);
        ExecutionFailure f = failure(call(server, "badshape", "{}"), FailureCode.UPSTREAM_PROTOCOL_ERROR);
        assertTrue(f.message().contains("content item 0 has no known type"), f.message());
        assertEquals(List.of("shape"), h.reasons());
    }

    @Test
    void structuredContentIsCheckedAgainstThePinnedOutputSchemaAndOneThatDoesNotConformIsAProtocolErrorWithItsDetailForTheJournal() {
        UpstreamServer server = normal();
        executor = h.started(server);
        UpstreamCallOutcome good = success(call(server, "typed", "{\"give\":{\"n\":1}}"));
        assertEquals("{\"n\":1}", good.result().get("structuredContent").orElseThrow().canonical());

        ExecutionFailure wrong = failure(call(server, "typed", "{\"give\":{\"n\":\"one\"}}"), FailureCode.UPSTREAM_PROTOCOL_ERROR);
        assertEquals("upstream fake broke the protocol: its result does not conform to the tool's outputSchema;"
                + " nothing of its answer is returned", wrong.message(), "the agent is told what, never the upstream's values");
        assertTrue(wrong.detail().startsWith("structuredContent at /n: "), wrong.detail());
        assertFitForTheAgent(wrong);

        ExecutionFailure none = failure(call(server, "typed", "{}"), FailureCode.UPSTREAM_PROTOCOL_ERROR);
        assertEquals("it has no structuredContent", none.detail());
        assertEquals(List.of("shape", "shape"), h.reasons(), "each refused result is reported, by digest and length");

        UpstreamCallOutcome ownError = success(call(server, "typed", "{\"error\":true}"));
        assertTrue(ownError.upstreamError(), "an upstream's own error result is passed on without structuredContent");
        success(call(server, "echo", "{}"));
        assertEquals(2, h.reports.size(), "a tool without an outputSchema is not checked, nor is an error result");
    }

    @Test
    void concurrentCallsShareOneProcess() {
        UpstreamServer server = normal();
        executor = h.started(server);
        List<CompletableFuture<Outcome>> calls = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            String m = "m" + i;
            calls.add(CompletableFuture.supplyAsync(() -> call(server, "meet", "{\"m\":\"" + m + "\",\"n\":4}")));
        }
        for (int i = 0; i < 4; i++) {
            assertEquals("met m" + i, Harness.text(success(calls.get(i).join()).result()));
        }
    }

    @Test
    void noChildIsLeftAfterCloseEvenOneThatOutlivesItsStdin() {
        UpstreamServer server = h.server("linger", CALL_TIMEOUT, 1 << 20);
        executor = h.started(server);
        long pid = executor.pidOf("fake").orElseThrow();
        executor.close();
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "the child outlived close");
        failure(call(server, "echo", "{}"), FailureCode.EXECUTOR_FAILED);
    }

    @Test
    void theChildDiesWhenTheGatewayIsKilled() throws Exception {
        Path pidFile = dir.resolve("fake.pid");
        List<String> argv = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), OrphanParent.class.getName(), dir.toString()));
        Process parent = new ProcessBuilder(argv).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            Harness.waitFor("the parent started its child", () -> pidFile.toFile().exists() && dir.resolve("listed").toFile().exists());
            long child = h.fakePid();
            assertTrue(ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false));
            parent.destroyForcibly();
            parent.waitFor();
            Harness.waitFor("the child is gone", () -> !ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false));
        } finally {
            parent.destroyForcibly();
        }
    }

    @Test
    void anUnknownServerIsRefused() {
        executor = h.executor(normal());
        UpstreamServer other = new UpstreamServer("other", List.of("/bin/true"), "/", java.util.Map.of(), Duration.ofSeconds(1),
                Duration.ofSeconds(1), 10, normal().tools(), Optional.empty());
        failure(executor.execute(Harness.permit(other, "echo", "{}"), new Cancellation()), FailureCode.EXECUTOR_FAILED);
        assertTrue(h.listings.isEmpty());
        assertInstanceOf(JsonObject.class, JsonObject.empty());
    }
}
