package dev.postern.executor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.policy.AuthorizedHttpRequest;
import dev.postern.policy.Decision;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Origin;
import dev.postern.policy.model.Policy;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.HttpResponseOutcome;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.Cancellation;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A kept connection the server closed after its response (without {@code Connection: close}) is
 * dropped before the next request and that call goes out on a fresh connection; a server that
 * closes after a request was sent still fails that call, which is never sent again.
 */
class HttpActionExecutorStaleConnectionTest {
    private static final Cancellation NEVER = new Cancellation();

    private final ClosingServer server = new ClosingServer();
    private final HttpActionExecutor executor = new HttpActionExecutor(InMemoryCredentials.none());
    private final Policy policy = policy(server.port());

    @AfterEach
    void tearDown() throws IOException {
        executor.close();
        server.close();
    }

    @Test
    void everyCallInAQuickSeriesSucceedsOnAFreshConnectionWhenTheServerClosesAfterEachResponse() throws Exception {
        for (int i = 1; i <= 5; i++) {
            HttpResponseOutcome r = response(executor.execute(permit("/api/close-after"), NEVER));
            assertEquals(200, r.status());
            assertEquals("fine", body(r));
            server.awaitClosed(i); // the server has closed the connection the call was answered on
        }

        assertEquals(5, server.connections(), "each call opened its own connection");
        assertEquals(5, server.requests(), "each call reached the server exactly once");
    }

    @Test
    void aServerThatClosesAfterReadingTheRequestFailsThatCallWithoutSendingItAgain() throws Exception {
        ExecutionFailure f = failure(executor.execute(permit("/api/drop"), NEVER));

        assertEquals(FailureCode.EXECUTOR_FAILED, f.code(), f.message());
        assertEquals(1, server.connections(), "no second connection: the sent request is not retried");
        assertEquals(1, server.requests());
    }

    @Test
    void aKeptConnectionClosedWhileItsNextRequestIsAnsweredFailsThatCallWithoutSendingItAgain() throws Exception {
        assertEquals("fine", body(response(executor.execute(permit("/api/keep"), NEVER))));

        ExecutionFailure f = failure(executor.execute(permit("/api/drop"), NEVER));

        assertEquals(FailureCode.EXECUTOR_FAILED, f.code(), f.message());
        assertEquals(1, server.connections(), "the request went out on the kept connection and was not retried on a new one");
        assertEquals(2, server.requests());
    }

    @Test
    void bytesLeftOnAConnectionTheServerThenClosedStillFailTheNextCall() throws Exception {
        Outcome first = executor.execute(permit("/api/late-then-close"), NEVER);
        server.awaitClosed(1);
        Outcome second = executor.execute(permit("/api/keep"), NEVER);

        if (first instanceof HttpResponseOutcome r) {
            assertEquals("fine", body(r));
            ExecutionFailure f = failure(second);
            assertEquals(FailureCode.UPSTREAM_PROTOCOL_ERROR, f.code(), f.message());
            assertTrue(f.message().contains("before this request was sent"), f.message());
            assertEquals(1, server.connections(), "the failed call was not sent on a fresh connection");
        } else {
            // A slow machine: the late bytes were already there when the first body ended.
            assertEquals(FailureCode.UPSTREAM_PROTOCOL_ERROR, failure(first).code());
            assertEquals("fine", body(response(second)));
        }
    }

    @Test
    void anInterruptedCallIsCancelledAndNotSentAgain() throws Exception {
        AtomicReference<Outcome> outcome = new AtomicReference<>();
        Thread caller = new Thread(() -> outcome.set(executor.execute(permit("/api/hang"), NEVER)), "interrupted-caller");
        caller.start();
        server.awaitRequest();
        caller.interrupt();
        caller.join(10_000);

        ExecutionFailure f = failure(outcome.get());
        assertEquals(FailureCode.CANCELLED, f.code(), f.message());
        assertEquals(1, server.connections());
        assertEquals(1, server.requests());
    }

    private static String body(HttpResponseOutcome r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    private static HttpResponseOutcome response(Outcome outcome) {
        return assertInstanceOf(HttpResponseOutcome.class, outcome, () -> "expected a response, got " + outcome);
    }

    private static ExecutionFailure failure(Outcome outcome) {
        ExecutionFailure f = assertInstanceOf(ExecutionFailure.class, outcome, () -> "expected a failure, got " + outcome);
        assertFalse(f.message().contains("LATE"), f.message());
        return f;
    }

    private static Policy policy(int port) {
        Origin origin = Origin.parseBaseUrl("http://127.0.0.1:" + port);
        return Policy.of(List.of(new HttpTarget("api", origin, Set.of("GET"), List.of("/api"), Set.of(), Optional.empty(),
                Permits.TIMEOUT, Permits.CAP, true, Optional.empty(), HttpTarget.OversizeResponse.TRUNCATE)), List.of());
    }

    private AuthorizedHttpRequest permit(String path) {
        String url = "http://127.0.0.1:" + server.port() + path;
        Decision d = new PolicyEngine(policy).decide(new HttpRequestAction("GET", url, List.of(), List.of(), Optional.empty()));
        if (d instanceof Decision.Permit p && p.permit() instanceof AuthorizedHttpRequest r) {
            return r;
        }
        throw new AssertionError("the test policy denied " + path + ": " + d);
    }

    /**
     * A loopback HTTP/1.1 server that never sends {@code Connection: close}: {@code /api/keep} answers
     * "fine" and keeps the connection; {@code /api/close-after} answers "fine" and closes it;
     * {@code /api/drop} reads the request and closes without answering; {@code /api/hang} reads it and
     * never answers; {@code /api/late-then-close}
     * answers "fine", writes stray bytes 100 ms later and closes.
     */
    private static final class ClosingServer implements AutoCloseable {
        private final RawHttpServer server;
        private final AtomicInteger requests = new AtomicInteger();
        private final Semaphore requestSeen = new Semaphore(0);

        ClosingServer() {
            try {
                server = new RawHttpServer(new ServerSocket(), InetAddress.getLoopbackAddress(), "closing-http", this::serve);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        int port() {
            return server.port();
        }

        int connections() {
            return server.connections();
        }

        int requests() {
            return requests.get();
        }

        /** Waits until the server has read one more request. */
        void awaitRequest() throws InterruptedException {
            if (!requestSeen.tryAcquire(10, TimeUnit.SECONDS)) {
                throw new AssertionError("no request reached the server");
            }
        }

        /** Waits until the server has closed {@code count} connections in all. */
        void awaitClosed(int count) throws InterruptedException {
            server.awaitClosed(count);
        }

        private void serve(Socket s) {
            try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                while (true) {
                    String head = RawHttpServer.readHead(in);
                    if (head == null) {
                        return;
                    }
                    requests.incrementAndGet();
                    requestSeen.release();
                    String path = RawHttpServer.path(head);
                    if (path.endsWith("/drop")) {
                        return;
                    }
                    if (path.endsWith("/hang")) {
                        in.read(); // never answers; returns when the client goes away
                        return;
                    }
                    out.write("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nfine".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    if (path.endsWith("/late-then-close")) {
                        Thread.sleep(100);
                        out.write("LATE".getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                        return;
                    }
                    if (path.endsWith("/close-after")) {
                        return;
                    }
                }
            } catch (IOException e) {
                // The client went away.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
