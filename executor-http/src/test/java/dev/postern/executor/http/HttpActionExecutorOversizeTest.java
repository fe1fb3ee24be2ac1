package dev.postern.executor.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.fixtures.FakeHttpService;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.HttpTarget.OversizeResponse;
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
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A target that asks for refusal instead of truncation: no body over the cap comes back, and its connection dies. */
class HttpActionExecutorOversizeTest {
    private static final Cancellation NEVER = new Cancellation();
    private static final int CAP = 1000;

    private final FakeHttpService service = FakeHttpService.start();
    private final HttpActionExecutor executor = new HttpActionExecutor(InMemoryCredentials.none());

    @AfterEach
    void tearDown() {
        executor.close();
        service.close();
    }

    private static ExecutionFailure tooLarge(Outcome outcome) {
        ExecutionFailure f = assertInstanceOf(ExecutionFailure.class, outcome, () -> "expected a failure, got " + outcome);
        assertEquals(FailureCode.RESPONSE_TOO_LARGE, f.code(), f.message());
        return f;
    }

    private static HttpResponseOutcome response(Outcome outcome) {
        return assertInstanceOf(HttpResponseOutcome.class, outcome, () -> "expected a response, got " + outcome);
    }

    @Test
    void bodyDeclaredOverTheCapIsRefusedAfterExactlyOneRequest() {
        service.stream("/big", 5L * 1024 * 1024, Duration.ZERO);
        HttpTarget target = Permits.target(service.baseUri().toString(), CAP, OversizeResponse.REFUSE);

        ExecutionFailure f = tooLarge(executor.execute(Permits.get(target, "/big"), NEVER));

        assertTrue(f.message().contains("svc") && f.message().contains(String.valueOf(CAP)), f.message());
        assertEquals(1, service.requestCount());
    }

    @Test
    void bodyExactlyAtTheCapIsReturnedWhenTheTargetRefusesOversize() {
        byte[] body = new byte[CAP];
        Arrays.fill(body, (byte) 'e');
        service.respond("/exact", 200, Map.of(), body);
        HttpTarget target = Permits.target(service.baseUri().toString(), CAP, OversizeResponse.REFUSE);

        HttpResponseOutcome r = response(executor.execute(Permits.get(target, "/exact"), NEVER));

        assertEquals(200, r.status());
        assertArrayEquals(body, r.body());
        assertFalse(r.truncated());
        assertEquals(1, service.requestCount());
    }

    @Test
    void theSameBodyIsTruncatedWhenTheTargetTruncates() {
        service.stream("/big", 5L * 1024 * 1024, Duration.ZERO);
        HttpTarget target = Permits.target(service.baseUri().toString(), CAP, OversizeResponse.TRUNCATE);

        HttpResponseOutcome r = response(executor.execute(Permits.get(target, "/big"), NEVER));

        assertEquals(CAP, r.body().length);
        assertTrue(r.truncated());
    }

    @Test
    void chunkedBodyOverTheCapIsRefusedAndItsConnectionIsNotReused() throws Exception {
        try (KeepAliveServer server = new KeepAliveServer()) {
            HttpTarget target = Permits.target(server.baseUrl(), CAP, OversizeResponse.REFUSE);

            tooLarge(executor.execute(Permits.get(target, "/chunked-big"), NEVER));
            HttpResponseOutcome next = response(executor.execute(Permits.get(target, "/exact"), NEVER));

            assertEquals(CAP, next.body().length);
            assertEquals(2, server.requests.get());
            assertEquals(2, server.connections(), "the refused response's connection must not serve the next call");
        }
    }

    @Test
    void aCompleteResponseKeepsItsConnectionForTheNextCall() throws Exception {
        // The control for the test above: the server's connection count does see reuse.
        try (KeepAliveServer server = new KeepAliveServer()) {
            HttpTarget target = Permits.target(server.baseUrl(), CAP, OversizeResponse.REFUSE);

            response(executor.execute(Permits.get(target, "/exact"), NEVER));
            response(executor.execute(Permits.get(target, "/exact"), NEVER));

            assertEquals(2, server.requests.get());
            assertEquals(1, server.connections());
        }
    }

    /**
     * A minimal HTTP/1.1 server on loopback that keeps connections alive and counts them: {@code /exact}
     * answers {@value #CAP} bytes with a Content-Length, anything else 64 KiB chunked. Only GET without a body.
     */
    private static final class KeepAliveServer implements AutoCloseable {
        final AtomicInteger requests = new AtomicInteger();
        private final RawHttpServer server;

        KeepAliveServer() throws IOException {
            server = new RawHttpServer(new ServerSocket(), InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), "keep-alive",
                    this::serve);
        }

        String baseUrl() {
            return "http://127.0.0.1:" + server.port();
        }

        int connections() {
            return server.connections();
        }

        private void serve(Socket s) {
            try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                String head;
                while ((head = RawHttpServer.readHead(in)) != null) {
                    requests.incrementAndGet();
                    String path = RawHttpServer.path(head);
                    if (path.equals("/exact")) {
                        byte[] body = new byte[CAP];
                        Arrays.fill(body, (byte) 'e');
                        out.write(("HTTP/1.1 200 OK\r\nContent-Length: " + CAP + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                        out.write(body);
                    } else {
                        out.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                        byte[] chunk = new byte[4096];
                        Arrays.fill(chunk, (byte) 'c');
                        for (int i = 0; i < 16; i++) {
                            out.write("1000\r\n".getBytes(StandardCharsets.US_ASCII));
                            out.write(chunk);
                            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                        }
                        out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    }
                    out.flush();
                }
            } catch (IOException e) {
                // The client hung up; that is what a refused response does.
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
