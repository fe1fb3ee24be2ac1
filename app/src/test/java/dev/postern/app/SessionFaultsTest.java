package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.app.credentials.EnvironmentAndFileCredentialStore;
import dev.postern.executor.http.HttpActionExecutor;
import dev.postern.fixtures.FakeHttpService;
import dev.postern.fixtures.RecordingExecutor;
import dev.postern.policy.AuthorizedHttpRequest;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Origin;
import dev.postern.policy.model.Policy;
import dev.postern.policy.outcome.HttpResponseOutcome;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Faults inside the session: whatever a worker throws becomes an answer and frees its place; a fatal
 * VM error ends the session with INTERNAL_ERROR; ping and cancel are served while every worker is
 * busy; a result too large once rendered comes back cut to fit, flagged truncated.
 */
class SessionFaultsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /** An executor that throws {@code fault} for a URL containing "boom" and answers 200 otherwise. */
    private static RecordingExecutor<AuthorizedHttpRequest> failing(Supplier<Throwable> fault) {
        return new RecordingExecutor<>(AuthorizedHttpRequest.class, permit -> {
            if (permit.uri().getPath().contains("boom")) {
                Throwable t = fault.get();
                if (t instanceof Error e) {
                    throw e;
                }
                throw (RuntimeException) t;
            }
            return new HttpResponseOutcome(permit.target().name(), 200, List.of(), "ok".getBytes(StandardCharsets.UTF_8), false);
        });
    }

    static Stream<Arguments> nonFatalFaults() {
        return Stream.of(
                Arguments.of("AssertionError", (Supplier<Throwable>) () -> new AssertionError("broken executor")),
                Arguments.of("StackOverflowError-like LinkageError", (Supplier<Throwable>) () -> new LinkageError("broken executor")),
                Arguments.of("IllegalStateException", (Supplier<Throwable>) () -> new IllegalStateException("broken executor")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("nonFatalFaults")
    void aThrowingExecutorGetsAnErrorAnswerFreesItsSlotAndTheSessionGoesOn(String name, Supplier<Throwable> fault) throws Exception {
        RecordingExecutor<AuthorizedHttpRequest> http = failing(fault);
        try (LiveSession s = new LiveSession(dir, SessionHarness.policy(), 1, 1 << 20, List.of(http)).handshake()) {
            s.send(SessionHarness.httpCall(2, "boom"));
            JsonNode first = s.next();
            assertEquals(2, first.get("id").asInt());
            assertEquals("EXECUTOR_FAILED", errorCode(first));

            // maxInFlight is 1: this is answered only if the failed call released its place.
            s.send(SessionHarness.httpCall(3, "fine") + LiveSession.ping(4));
            List<JsonNode> next = List.of(s.next(), s.next());
            JsonNode second = next.stream().filter(n -> n.get("id").asInt() == 3).findFirst().orElseThrow();
            assertFalse(second.get("result").get("isError").asBoolean(), second.toString());
            assertTrue(next.stream().anyMatch(n -> n.get("id").asInt() == 4 && n.has("result")), "ping answered: " + next);
            assertEquals(ExitStatus.OK, s.finish(Duration.ofSeconds(30)));
        }
        assertEquals(2, http.count());
        List<JsonNode> outcomes = rows("actions.jsonl").stream().filter(r -> r.get("kind").asText().equals("outcome")).toList();
        assertEquals(2, outcomes.size(), outcomes.toString());
        assertTrue(outcomes.get(0).toString().contains("EXECUTOR_FAILED"), "the failed call's outcome row is not ok: " + outcomes.get(0));
    }

    @Test
    void aFatalVmErrorIsAnsweredJournaledAsAFailureAndEndsTheSessionWithInternalError() throws Exception {
        RecordingExecutor<AuthorizedHttpRequest> http = failing(() -> new OutOfMemoryError("simulated"));
        ExitStatus exit;
        boolean hookRan;
        try (LiveSession s = new LiveSession(dir, SessionHarness.policy(), 1, 1 << 20, List.of(http)).handshake()) {
            s.send(SessionHarness.httpCall(2, "boom"));
            JsonNode answer = s.next();
            assertEquals(2, answer.get("id").asInt());
            assertEquals("EXECUTOR_FAILED", errorCode(answer));
            s.send(SessionHarness.httpCall(3, "after-fatal"));
            exit = s.finish(Duration.ofSeconds(30));
            // The worker that hit the error runs the hook after it answered and the others wound down.
            for (int i = 0; i < 400 && !s.fatalHookRan.get(); i++) {
                Thread.sleep(50);
            }
            hookRan = s.fatalHookRan.get();
            assertTrue(s.stderr.toString(StandardCharsets.UTF_8).contains("fatal error: java.lang.OutOfMemoryError: simulated"));
            assertTrue(s.rest().isEmpty(), "nothing is written after a fatal error");
        }
        assertEquals(ExitStatus.INTERNAL_ERROR, exit);
        assertTrue(hookRan, "the process hook (flush and exit) ran");
        assertEquals(1, http.count(), "no call runs after a fatal error");
        assertTrue(rows("actions.jsonl").stream().anyMatch(r -> r.toString().contains("EXECUTOR_FAILED")), "outcome row says failed");
    }

    @Test
    void pingAndCancelAreServedWhileEveryWorkerIsBusyAndACancelledWaitingCallNeverRuns() throws Exception {
        try (FakeHttpService target = FakeHttpService.start();
                HttpActionExecutor http = new HttpActionExecutor(new EnvironmentAndFileCredentialStore(Map.of()))) {
            target.stall("/v1/stall", Duration.ofSeconds(60));
            target.respond("/v1/queued", 200, Map.of(), new byte[0]);
            Policy policy = Policy.of(List.of(new HttpTarget("api", Origin.parseBaseUrl("http://127.0.0.1:" + target.port()),
                    Set.of("GET"), List.of("/v1"), Set.of(), Optional.empty(), Duration.ofSeconds(45), 1024, true)), List.of());
            try (LiveSession s = new LiveSession(dir, policy, 1, 1 << 20, List.of(http)).handshake()) {
                s.send(call(2, target.port(), "/v1/stall"));
                assertEquals("/v1/stall", target.takeRequest(Duration.ofSeconds(20)).path(), "the only worker is now busy");

                s.send(LiveSession.ping(3));
                assertEquals(3, s.next().get("id").asInt(), "ping answered while the only worker is busy");

                s.send(call(4, target.port(), "/v1/queued") + LiveSession.cancel(4) + LiveSession.cancel(2) + LiveSession.ping(5));
                assertEquals(5, s.next().get("id").asInt(), "cancelled calls are not answered; the ping is");
                awaitOutcomeRow();
                assertTrue(rows("actions.jsonl").stream().anyMatch(r -> r.toString().contains("CANCELLED")),
                        "the stalled call ended as cancelled, long before its 45 s timeout: " + rows("actions.jsonl"));
                assertEquals(ExitStatus.OK, s.finish(Duration.ofSeconds(30)));
                assertTrue(s.rest().isEmpty(), "no answer for a cancelled call");
            }
            assertEquals(1, target.requestCount(), "the cancelled waiting call never ran");
            List<JsonNode> outcomes = rows("actions.jsonl").stream().filter(r -> r.get("kind").asText().equals("outcome")).toList();
            assertEquals(2, outcomes.size(), outcomes.toString());
            assertTrue(outcomes.stream().allMatch(r -> r.toString().contains("CANCELLED")), "both end as cancelled: " + outcomes);
        }
    }

    @Test
    void aCallStillRunningAfterTheEndOfInputGraceIsAnsweredCancelledNotDropped() throws Exception {
        try (FakeHttpService target = FakeHttpService.start();
                HttpActionExecutor http = new HttpActionExecutor(new EnvironmentAndFileCredentialStore(Map.of()))) {
            target.stall("/v1/stall", Duration.ofSeconds(60));
            Policy policy = Policy.of(List.of(new HttpTarget("api", Origin.parseBaseUrl("http://127.0.0.1:" + target.port()),
                    Set.of("GET"), List.of("/v1"), Set.of(), Optional.empty(), Duration.ofSeconds(45), 1024, true)), List.of());
            try (LiveSession s = new LiveSession(dir, policy, 1, 1 << 20, List.of(http)).handshake()) {
                s.send(call(2, target.port(), "/v1/stall") + call(3, target.port(), "/v1/stall"));
                assertEquals("/v1/stall", target.takeRequest(Duration.ofSeconds(20)).path(), "the only worker is now busy");

                assertEquals(ExitStatus.OK, s.finish(Duration.ofSeconds(40)));
                List<String> answers = s.rest();
                assertEquals(2, answers.size(), "the client cancelled neither call, so both are answered: " + answers);
                for (String answer : answers) {
                    assertEquals("CANCELLED", errorCode(JSON.readTree(answer)), answer);
                }
            }
        }
    }

    @Test
    void aBodyOfNulBytesPastTheRenderedCapComesBackCutToFitAndFlaggedTruncated() throws Exception {
        try (FakeHttpService target = FakeHttpService.start();
                HttpActionExecutor http = new HttpActionExecutor(new EnvironmentAndFileCredentialStore(Map.of()))) {
            target.respond("/v1/nul", 200, Map.of("Content-Type", "text/plain"), new byte[1 << 20]);
            Policy policy = Policy.of(List.of(new HttpTarget("api", Origin.parseBaseUrl("http://127.0.0.1:" + target.port()),
                    Set.of("GET"), List.of("/v1"), Set.of(), Optional.empty(), Duration.ofSeconds(20), 2 << 20, true)), List.of());
            try (LiveSession s = new LiveSession(dir, policy, 1, 2 << 20, List.of(http)).handshake()) {
                s.send(call(2, target.port(), "/v1/nul") + LiveSession.ping(3));
                JsonNode answer = s.next();
                if (answer.get("id").asInt() == 3) {
                    answer = s.next();
                }
                // 13 MiB as text, 2.7 MiB as base64: over a 2 MiB cap either way, so the base64 is cut.
                JsonNode result = answer.get("result");
                assertFalse(result.get("isError").asBoolean(), answer.toString().substring(0, 300));
                assertEquals("base64", result.get("structuredContent").get("bodyEncoding").textValue());
                assertTrue(result.get("structuredContent").get("truncated").asBoolean());
                assertTrue(answer.toString().length() < (2 << 20) + 256, "the answer fits the cap");
                assertEquals(ExitStatus.OK, s.finish(Duration.ofSeconds(30)));
            }
        }
    }

    @Test
    void anExceptionOnTheReaderThreadClosesWithOneLineAndStatusSevenNoStackTrace() throws Exception {
        java.io.InputStream exploding = new java.io.InputStream() {
            @Override
            public int read() {
                throw new IllegalStateException("the reader broke");
            }

            @Override
            public int read(byte[] b, int off, int len) {
                throw new IllegalStateException("the reader broke");
            }
        };
        java.io.ByteArrayOutputStream stdout = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream stderr = new java.io.ByteArrayOutputStream();
        ExitStatus exit;
        dev.postern.app.config.GatewayConfig config = SessionHarness.config(dir, SessionHarness.policy(), 1);
        java.io.PrintStream diagnostics = new java.io.PrintStream(stderr, true, StandardCharsets.UTF_8);
        try (dev.postern.journal.FileAuditJournal journal = Gateway.journal(config, diagnostics)) {
            exit = Gateway.run(config, journal, List.of(RecordingExecutor.http()),
                    dev.postern.protocol.tools.ToolResults.DEFAULT_MAX_RESULT_BYTES, exploding, stdout, diagnostics, session -> { });
        }
        assertEquals(ExitStatus.INTERNAL_ERROR, exit);
        List<String> out = List.of(stdout.toString(StandardCharsets.UTF_8).split("\n"));
        assertEquals(1, out.size(), out.toString());
        assertEquals(-32603, JSON.readTree(out.get(0)).get("error").get("code").asInt());
        String err = stderr.toString(StandardCharsets.UTF_8);
        assertTrue(err.contains("the reader broke") && !err.contains("\tat "), "one line, no stack trace: " + err);
    }

    @Test
    void anInterruptedSessionSaysSoAndCancelsWhatRuns() throws Exception {
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch cancelled = new java.util.concurrent.CountDownLatch(1);
        dev.postern.policy.port.ActionExecutor<AuthorizedHttpRequest> waitsForCancel = new dev.postern.policy.port.ActionExecutor<>() {
            @Override
            public Class<AuthorizedHttpRequest> permitType() {
                return AuthorizedHttpRequest.class;
            }

            @Override
            public dev.postern.policy.outcome.Outcome execute(AuthorizedHttpRequest permit, dev.postern.policy.port.Cancellation c) {
                java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
                c.onCancel(done::countDown);
                started.countDown();
                try {
                    done.await(60, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                if (c.isCancelled()) {
                    cancelled.countDown();
                }
                return new dev.postern.policy.outcome.ExecutionFailure(dev.postern.policy.outcome.FailureCode.CANCELLED, "cancelled");
            }

            @Override
            public void close() {
            }
        };
        try (LiveSession s = new LiveSession(dir, SessionHarness.policy(), 1, 1 << 20, List.of(waitsForCancel)).handshake()) {
            // One runs, one waits, the third blocks the reader on a full queue; then the reader is interrupted.
            s.send(SessionHarness.httpCall(2, "a") + SessionHarness.httpCall(3, "b") + SessionHarness.httpCall(4, "c"));
            assertTrue(started.await(20, java.util.concurrent.TimeUnit.SECONDS));
            for (int i = 0; i < 200 && s.thread.getState() != Thread.State.WAITING; i++) {
                Thread.sleep(20);
            }
            s.thread.interrupt();
            assertEquals(ExitStatus.INTERRUPTED, s.exit(Duration.ofSeconds(20)));
            assertTrue(s.stderr.toString(StandardCharsets.UTF_8).contains("interrupted"));
        }
        assertTrue(cancelled.await(20, java.util.concurrent.TimeUnit.SECONDS), "the running call was cancelled");
    }

    private void awaitOutcomeRow() throws Exception {
        for (int i = 0; i < 200; i++) {
            if (rows("actions.jsonl").stream().anyMatch(r -> r.get("kind").asText().equals("outcome"))) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no outcome row within 10 s of the cancel: " + rows("actions.jsonl"));
    }

    private static String call(int id, int port, String path) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
                + "\"arguments\":{\"method\":\"GET\",\"url\":\"http://127.0.0.1:" + port + path + "\"}}}\n";
    }

    private static String errorCode(JsonNode answer) throws Exception {
        JsonNode result = answer.get("result");
        assertTrue(result.get("isError").asBoolean(), answer.toString());
        return JSON.readTree(result.get("content").get(0).get("text").asText()).get("error").get("code").asText();
    }

    private List<JsonNode> rows(String file) throws Exception {
        Path p = dir.resolve(file);
        if (!Files.exists(p)) {
            return List.of();
        }
        List<JsonNode> out = new java.util.ArrayList<>();
        for (String line : Files.readAllLines(p)) {
            out.add(JSON.readTree(line));
        }
        return out;
    }
}
