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
import java.io.ByteArrayOutputStream;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Keep-alive against a hostile server on one origin with two targets: bytes a response sends past
 * its declared end never answer another call, and a connection is kept only when that is safe.
 */
class HttpActionExecutorKeepAliveTest {
    private static final Cancellation NEVER = new Cancellation();
    /** A complete second response, smuggled after a 5-byte body that declared Content-Length: 5. */
    private static final String SMUGGLED = "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\nSTOLEN!";

    private final RawServer server = new RawServer();
    private final HttpActionExecutor executor = new HttpActionExecutor(InMemoryCredentials.none());

    @AfterEach
    void tearDown() throws IOException {
        executor.close();
        server.close();
    }

    @Test
    void bytesPastTheDeclaredEndFailTheOffendingCallAndNeverAnswerTheNextCallToAnotherTarget() {
        Policy policy = twoTargets(server.port());

        ExecutionFailure first = overrun(executor.execute(permit(policy, "/a/smuggle"), NEVER));
        HttpResponseOutcome second = response(executor.execute(permit(policy, "/b/plain"), NEVER));
        HttpResponseOutcome third = response(executor.execute(permit(policy, "/b/plain"), NEVER));

        assertTrue(first.message().contains("did not end where its headers said it would: bytes followed the end of its response body"),
                first.message());
        assertFalse(first.message().contains("STOLEN") || first.message().contains("hello"), first.message());
        assertEquals(201, second.status());
        assertEquals("b-own", body(second));
        assertEquals(201, third.status());
        assertEquals("b-own", body(third));
    }

    @Test
    void bytesPastTheDeclaredEndFailTheOffendingCallAndNeverAnswerTheNextCallToTheSameTarget() {
        Policy policy = twoTargets(server.port());

        overrun(executor.execute(permit(policy, "/a/smuggle"), NEVER));
        HttpResponseOutcome second = response(executor.execute(permit(policy, "/a/plain"), NEVER));

        assertEquals(201, second.status());
        assertEquals("a-own", body(second));
        assertEquals(2, server.connections(), "the smuggling connection was discarded, not reused");
    }

    @Test
    void bytesPastTheEndOfACompressedBodyFailTheOffendingCall() {
        Policy policy = twoTargets(server.port());

        overrun(executor.execute(permit(policy, "/a/gzip-smuggle"), NEVER));
        HttpResponseOutcome second = response(executor.execute(permit(policy, "/a/plain"), NEVER));

        assertEquals("a-own", body(second));
        assertEquals(2, server.connections());
    }

    @Test
    void aChunkedBodyWithBytesAfterItsLastChunkFailsTheOffendingCall() {
        Policy policy = twoTargets(server.port());

        overrun(executor.execute(permit(policy, "/a/chunked-smuggle"), NEVER));
        HttpResponseOutcome second = response(executor.execute(permit(policy, "/b/plain"), NEVER));

        assertEquals("b-own", body(second));
    }

    @Test
    void bytesSentLateStayOnTheirOwnTargetsConnection() {
        Policy policy = twoTargets(server.port());

        // The late bytes normally come after the end was checked (the call is answered with its
        // declared 5 bytes); on a slow machine they may already be there (the call fails). Either
        // way the first call never gets the smuggled bytes, and the other target its own answer.
        Outcome first = executor.execute(permit(policy, "/a/late-smuggle"), NEVER);
        HttpResponseOutcome second = response(executor.execute(permit(policy, "/b/plain"), NEVER));

        if (first instanceof HttpResponseOutcome r) {
            assertEquals("hello", body(r));
        } else {
            overrun(first);
        }
        assertEquals(201, second.status());
        assertEquals("b-own", body(second));
    }

    @Test
    void bytesSentLateNeverAnswerTheSameTargetsNextCall() throws InterruptedException {
        Policy policy = twoTargets(server.port());

        Outcome first = executor.execute(permit(policy, "/a/late-smuggle"), NEVER);
        server.awaitLateBytes();
        Outcome second = executor.execute(permit(policy, "/a/plain"), NEVER);
        HttpResponseOutcome third = response(executor.execute(permit(policy, "/a/plain"), NEVER));

        if (first instanceof HttpResponseOutcome r) {
            // The late bytes came after the first call's end was checked: they wait on its
            // connection, and the next call on it fails before sending rather than read them.
            assertEquals("hello", body(r));
            ExecutionFailure f = overrun(second);
            assertTrue(f.message().contains("before this request was sent, left over from the previous response"), f.message());
        } else {
            // A slow machine: the late bytes were already there at the end check.
            overrun(first);
            assertEquals("a-own", body(response(second)));
        }
        assertEquals(201, third.status());
        assertEquals("a-own", body(third));
    }

    @Test
    void bytesPastTheEndOfABodilessResponseFailTheCallAndDiscardTheConnection() {
        Policy policy = twoTargets(server.port());

        ExecutionFailure first = overrun(executor.execute(permit(policy, "/a/nocontent-smuggle"), NEVER));
        assertTrue(first.message().contains("end of its response head (status 204, no body)"), first.message());
        HttpResponseOutcome second = response(executor.execute(permit(policy, "/a/plain"), NEVER));

        assertEquals(201, second.status());
        assertEquals("a-own", body(second));
        assertEquals(2, server.connections());
    }

    @Test
    void aCleanResponseKeepsItsConnectionForTheSameTarget() {
        Policy policy = twoTargets(server.port());

        for (int i = 0; i < 3; i++) {
            assertEquals("a-own", body(response(executor.execute(permit(policy, "/a/plain"), NEVER))));
        }

        assertEquals(1, server.connections(), "three clean calls to one target share one kept-alive connection");
    }

    @Test
    void aCleanCompressedResponseKeepsItsConnection() {
        Policy policy = twoTargets(server.port());

        for (int i = 0; i < 3; i++) {
            assertEquals("a-zipped", body(response(executor.execute(permit(policy, "/a/gzip"), NEVER))));
        }

        assertEquals(1, server.connections(), "a gzip body read to its end is an exact end too");
    }

    @Test
    void targetsOnOneOriginNeverShareAConnection() {
        Policy policy = twoTargets(server.port());

        assertEquals("a-own", body(response(executor.execute(permit(policy, "/a/plain"), NEVER))));
        assertEquals("b-own", body(response(executor.execute(permit(policy, "/b/plain"), NEVER))));
        assertEquals("a-own", body(response(executor.execute(permit(policy, "/a/plain"), NEVER))));

        assertEquals(2, server.connections(), "one connection per target, each reused by its own target only");
    }

    private static String body(HttpResponseOutcome r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    private static ExecutionFailure overrun(Outcome outcome) {
        ExecutionFailure f = assertInstanceOf(ExecutionFailure.class, outcome, () -> "expected a failure, got " + outcome);
        assertEquals(FailureCode.UPSTREAM_PROTOCOL_ERROR, f.code(), f.message());
        return f;
    }

    private static HttpResponseOutcome response(Outcome outcome) {
        return assertInstanceOf(HttpResponseOutcome.class, outcome, () -> "expected a response, got " + outcome);
    }

    private static Policy twoTargets(int port) {
        Origin origin = Origin.parseBaseUrl("http://127.0.0.1:" + port);
        return Policy.of(List.of(target("a", origin, "/a"), target("b", origin, "/b")), List.of());
    }

    private static HttpTarget target(String name, Origin origin, String prefix) {
        return new HttpTarget(name, origin, Set.of("GET"), List.of(prefix), Set.of(), Optional.empty(),
                Permits.TIMEOUT, Permits.CAP, true, Optional.empty(), HttpTarget.OversizeResponse.TRUNCATE);
    }

    private static AuthorizedHttpRequest permit(Policy policy, String path) {
        String url = "http://127.0.0.1:" + policy.allowances(HttpTarget.class).get(0).origin().port() + path;
        Decision d = new PolicyEngine(policy).decide(new HttpRequestAction("GET", url, List.of(), List.of(), Optional.empty()));
        if (d instanceof Decision.Permit p && p.permit() instanceof AuthorizedHttpRequest r) {
            return r;
        }
        throw new AssertionError("the test policy denied " + path + ": " + d);
    }

    /**
     * A loopback HTTP/1.1 server writing exact bytes, keeping connections alive: {@code /x/plain}
     * answers 201 with "x-own"; {@code /x/smuggle} answers "hello" with Content-Length 5 and a whole
     * second response after it in the same write; {@code /x/late-smuggle} sends that second response
     * 200 ms later; {@code /x/nocontent-smuggle} sends it right after a 204; {@code /x/gzip} answers
     * "x-zipped" gzip-compressed, {@code /x/gzip-smuggle} the same followed by the second response;
     * {@code /x/chunked-smuggle} answers "hello" chunked with the second response after its last chunk.
     */
    private static final class RawServer implements AutoCloseable {
        private final RawHttpServer server;
        /** Counted down once a late-smuggle connection has written its late bytes. */
        private final CountDownLatch lateBytesSent = new CountDownLatch(1);

        RawServer() {
            try {
                server = new RawHttpServer(new ServerSocket(), InetAddress.getLoopbackAddress(), "raw-http", this::serve);
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

        void awaitLateBytes() throws InterruptedException {
            if (!lateBytesSent.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("the server never sent its late bytes");
            }
        }

        private void serve(Socket s) {
            try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                while (true) {
                    String head = RawHttpServer.readHead(in);
                    if (head == null) {
                        return;
                    }
                    String path = RawHttpServer.path(head);
                    String target = path.substring(1, 2);
                    String answer;
                    if (path.endsWith("/late-smuggle")) {
                        // The extra bytes come after the client has read the end: no check can see them.
                        out.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello".getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                        sleep();
                        answer = SMUGGLED;
                    } else if (path.endsWith("/gzip-smuggle")) {
                        // One write, so the smuggled bytes are there when the body ends.
                        byte[] zipped = gzip(target + "-zipped");
                        ByteArrayOutputStream all = new ByteArrayOutputStream();
                        all.write(("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: " + zipped.length + "\r\n\r\n")
                                .getBytes(StandardCharsets.US_ASCII));
                        all.write(zipped);
                        all.write(SMUGGLED.getBytes(StandardCharsets.US_ASCII));
                        out.write(all.toByteArray());
                        answer = "";
                    } else if (path.endsWith("/chunked-smuggle")) {
                        answer = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n" + SMUGGLED;
                    } else if (path.endsWith("/gzip")) {
                        byte[] zipped = gzip(target + "-zipped");
                        out.write(("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: " + zipped.length + "\r\n\r\n")
                                .getBytes(StandardCharsets.US_ASCII));
                        out.write(zipped);
                        answer = "";
                    } else if (path.endsWith("/nocontent-smuggle")) {
                        answer = "HTTP/1.1 204 No Content\r\n\r\n" + SMUGGLED;
                    } else if (path.endsWith("/smuggle")) {
                        answer = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello" + SMUGGLED;
                    } else {
                        answer = "HTTP/1.1 201 Created\r\nContent-Length: 5\r\n\r\n" + target + "-own";
                    }
                    out.write(answer.getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    if (path.endsWith("/late-smuggle")) {
                        lateBytesSent.countDown();
                    }
                }
            } catch (IOException e) {
                // The client went away.
            }
        }

        private static byte[] gzip(String text) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (GZIPOutputStream zip = new GZIPOutputStream(bytes)) {
                zip.write(text.getBytes(StandardCharsets.US_ASCII));
            }
            return bytes.toByteArray();
        }

        private static void sleep() {
            try {
                Thread.sleep(200);
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
