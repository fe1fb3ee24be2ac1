package dev.postern.executor.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.fixtures.FakeHttpService;
import dev.postern.fixtures.FakeHttpService.RecordedRequest;
import dev.postern.fixtures.FakeHttpService.Reply;
import dev.postern.policy.AuthorizedHttpRequest;
import dev.postern.policy.action.HeaderField;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.HttpAuth;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.HttpResponseOutcome;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.Cancellation;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.net.URI;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.apache.hc.core5.ssl.SSLContexts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class HttpActionExecutorTest {
    private static final String TOKEN = "tok-9f8e7d6c5b4a";
    private static final Cancellation NEVER = new Cancellation();

    private final FakeHttpService service = FakeHttpService.start();
    private final HttpActionExecutor executor = new HttpActionExecutor(
            new InMemoryCredentials(Map.of("api-token", TOKEN, "other", "other-secret-123", "basic", "alice:pa55word")));

    @AfterEach
    void tearDown() {
        executor.close();
        service.close();
    }

    private String base() {
        return service.baseUri().toString();
    }

    private static HttpResponseOutcome response(Outcome outcome) {
        return assertInstanceOf(HttpResponseOutcome.class, outcome, () -> "expected a response, got " + outcome);
    }

    private static ExecutionFailure failure(Outcome outcome, FailureCode code) {
        ExecutionFailure f = assertInstanceOf(ExecutionFailure.class, outcome, () -> "expected a failure, got " + outcome);
        assertEquals(code, f.code(), f.message());
        return f;
    }

    private static Optional<String> header(HttpResponseOutcome r, String name) {
        return r.headers().stream().filter(h -> h.name().equalsIgnoreCase(name)).map(HeaderField::value).findFirst();
    }

    private static HttpAuth auth(String credential, HttpAuth.Scheme scheme) {
        return new HttpAuth(new CredentialRef(credential), scheme,
                scheme == HttpAuth.Scheme.HEADER ? Optional.of("X-Api-Key") : Optional.empty());
    }

    @Test
    void getReturnsStatusHeadersAndBodyAndSendsExactlyOneRequest() {
        service.respond("/hello", 200, Map.of("X-Reply", "yes", "Content-Type", "text/plain"),
                "hi there".getBytes(StandardCharsets.UTF_8));

        HttpResponseOutcome r = response(executor.execute(Permits.get(Permits.target(base()), "/hello?q=1"), NEVER));

        assertEquals("svc", r.target());
        assertEquals(200, r.status());
        assertEquals("yes", header(r, "X-Reply").orElseThrow());
        assertArrayEquals("hi there".getBytes(StandardCharsets.UTF_8), r.body());
        assertFalse(r.truncated());
        assertEquals(1, service.requestCount());
        RecordedRequest seen = service.takeRequest(Duration.ofSeconds(1));
        assertEquals("GET", seen.method());
        assertEquals("/hello?q=1", seen.path());
        assertEquals(Optional.empty(), seen.header("Authorization"));
        assertEquals(Optional.empty(), seen.header("Cookie"));
    }

    @Test
    void postSendsThePermittedHeadersAndBody() {
        service.respond("/items", 201, Map.of(), new byte[0]);
        AuthorizedHttpRequest permit = Permits.post(Permits.target(base()), "/items",
                List.of(new HeaderField("Content-Type", "application/json"), new HeaderField("X-Test", "42")),
                "{\"a\":1}");

        HttpResponseOutcome r = response(executor.execute(permit, NEVER));

        assertEquals(201, r.status());
        RecordedRequest seen = service.takeRequest(Duration.ofSeconds(1));
        assertEquals("POST", seen.method());
        assertEquals("application/json", seen.header("Content-Type").orElseThrow());
        assertEquals("42", seen.header("X-Test").orElseThrow());
        assertEquals("{\"a\":1}", seen.bodyAsString());
    }

    @Test
    void eachCallSendsExactlyOneRequestEvenOnServerErrors() {
        service.respond("/fail", 503, Map.of("Retry-After", "0"), new byte[0]);
        HttpTarget target = Permits.target(base());

        for (int i = 1; i <= 3; i++) {
            assertEquals(503, response(executor.execute(Permits.get(target, "/fail"), NEVER)).status());
            assertEquals(i, service.requestCount());
        }
    }

    @Test
    void concurrentCallsEachSendExactlyOneRequest() {
        service.respond("/hello", 200, Map.of(), "ok".getBytes(StandardCharsets.UTF_8));
        HttpTarget target = Permits.target(base());

        List<CompletableFuture<Outcome>> calls = java.util.stream.IntStream.range(0, 16)
                .mapToObj(i -> CompletableFuture.supplyAsync(() -> executor.execute(Permits.get(target, "/hello?n=" + i), NEVER)))
                .toList();

        for (CompletableFuture<Outcome> call : calls) {
            assertEquals(200, response(call.join()).status());
        }
        assertEquals(16, service.requestCount());
        assertEquals(16, service.requests().stream().map(RecordedRequest::path).distinct().count());
    }

    @Test
    void redirectIsReturnedWithItsLocationAndNotFollowed() {
        service.respond("/from", 302, Map.of("Location", base() + "/to"), new byte[0]);
        service.respond("/to", 200, Map.of(), "followed".getBytes(StandardCharsets.UTF_8));

        HttpResponseOutcome r = response(executor.execute(Permits.get(Permits.target(base()), "/from"), NEVER));

        assertEquals(302, r.status());
        assertEquals(base() + "/to", header(r, "Location").orElseThrow());
        assertEquals(List.of("/from"), service.requests().stream().map(RecordedRequest::path).toList());
    }

    @Test
    void stalledServerYieldsTimeoutWithinTheDeadline() {
        service.stall("/slow", Duration.ofSeconds(10));
        HttpTarget target = Permits.target(base(), Optional.empty(), Duration.ofMillis(300), Permits.CAP, true);

        long start = System.nanoTime();
        Outcome outcome = executor.execute(Permits.get(target, "/slow"), NEVER);
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        failure(outcome, FailureCode.TIMEOUT);
        assertTrue(elapsedMs < 3000, "the 300 ms deadline took " + elapsedMs + " ms");
    }

    @Test
    void slowBodyHitsTheTotalDeadlineEvenThoughEachReadIsQuick() {
        // Each chunk arrives well within the response timeout; only the total deadline can stop it.
        service.stream("/drip", 1024 * 1024, Duration.ofMillis(50));
        HttpTarget target = Permits.target(base(), Optional.empty(), Duration.ofMillis(500), 10 * Permits.CAP, true);

        long start = System.nanoTime();
        Outcome outcome = executor.execute(Permits.get(target, "/drip"), NEVER);
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        failure(outcome, FailureCode.TIMEOUT);
        assertTrue(elapsedMs < 3000, "the 500 ms deadline took " + elapsedMs + " ms");
    }

    @Test
    void bodyOverTheCapIsTruncatedAtExactlyTheCap() {
        service.stream("/big", 5L * 1024 * 1024, Duration.ZERO);
        HttpTarget target = Permits.target(base(), Optional.empty(), Permits.TIMEOUT, 1000, true);

        HttpResponseOutcome r = response(executor.execute(Permits.get(target, "/big"), NEVER));

        assertEquals(200, r.status());
        assertEquals(1000, r.body().length);
        assertTrue(r.truncated());
        assertEquals(1, service.requestCount());
    }

    @Test
    void bodyExactlyAtTheCapIsComplete() {
        byte[] body = new byte[1000];
        java.util.Arrays.fill(body, (byte) 'b');
        service.respond("/exact", 200, Map.of(), body);
        HttpTarget target = Permits.target(base(), Optional.empty(), Permits.TIMEOUT, 1000, true);

        HttpResponseOutcome r = response(executor.execute(Permits.get(target, "/exact"), NEVER));

        assertArrayEquals(body, r.body());
        assertFalse(r.truncated());
    }

    @Test
    void truncatedConnectionIsNotReusedAndTheNextCallStillWorks() {
        service.stream("/big", 5L * 1024 * 1024, Duration.ZERO);
        service.respond("/small", 200, Map.of(), "ok".getBytes(StandardCharsets.UTF_8));
        HttpTarget target = Permits.target(base(), Optional.empty(), Permits.TIMEOUT, 10, true);

        assertTrue(response(executor.execute(Permits.get(target, "/big"), NEVER)).truncated());
        HttpResponseOutcome next = response(executor.execute(Permits.get(target, "/small"), NEVER));

        assertArrayEquals("ok".getBytes(StandardCharsets.UTF_8), next.body());
        assertEquals(2, service.requestCount());
    }

    @Test
    void bearerCredentialReachesTheServer() {
        service.respond("/me", 200, Map.of(), new byte[0]);
        HttpTarget target = Permits.target(base(), Optional.of(auth("api-token", HttpAuth.Scheme.BEARER)),
                Permits.TIMEOUT, Permits.CAP, true);

        response(executor.execute(Permits.get(target, "/me"), NEVER));

        assertEquals("Bearer " + TOKEN, service.takeRequest(Duration.ofSeconds(1)).header("Authorization").orElseThrow());
    }

    @Test
    void basicCredentialIsSentAsBase64OfUserAndPassword() {
        service.respond("/me", 200, Map.of(), new byte[0]);
        HttpTarget target = Permits.target(base(), Optional.of(auth("basic", HttpAuth.Scheme.BASIC)),
                Permits.TIMEOUT, Permits.CAP, true);

        response(executor.execute(Permits.get(target, "/me"), NEVER));

        String expected = "Basic " + Base64.getEncoder().encodeToString("alice:pa55word".getBytes(StandardCharsets.UTF_8));
        assertEquals(expected, service.takeRequest(Duration.ofSeconds(1)).header("Authorization").orElseThrow());
    }

    @Test
    void headerCredentialGoesInTheNamedHeader() {
        service.respond("/me", 200, Map.of(), new byte[0]);
        HttpTarget target = Permits.target(base(), Optional.of(auth("api-token", HttpAuth.Scheme.HEADER)),
                Permits.TIMEOUT, Permits.CAP, true);

        response(executor.execute(Permits.get(target, "/me"), NEVER));

        RecordedRequest seen = service.takeRequest(Duration.ofSeconds(1));
        assertEquals(TOKEN, seen.header("X-Api-Key").orElseThrow());
        assertEquals(Optional.empty(), seen.header("Authorization"));
    }

    private void echoAuthorization() {
        service.respond("/echo", request -> {
            String auth = request.header("Authorization").orElse("none");
            return new Reply(200, Map.of("X-Echo", auth, "Content-Type", "text/plain"),
                    ("you sent: " + auth + " and also other-secret-123").getBytes(StandardCharsets.UTF_8));
        });
    }

    @Test
    void echoedBearerCredentialIsMaskedInBodyAndHeaders() {
        echoAuthorization();
        HttpTarget target = Permits.target(base(), Optional.of(auth("api-token", HttpAuth.Scheme.BEARER)),
                Permits.TIMEOUT, Permits.CAP, true);

        HttpResponseOutcome r = response(executor.execute(Permits.get(target, "/echo"), NEVER));

        String body = new String(r.body(), StandardCharsets.UTF_8);
        assertEquals("you sent: Bearer **** and also ****", body);
        assertEquals("Bearer ****", header(r, "X-Echo").orElseThrow());
        assertFalse(r.headers().toString().contains(TOKEN));
    }

    @Test
    void echoedBasicCredentialIsMaskedInItsEncodedForm() {
        echoAuthorization();
        HttpTarget target = Permits.target(base(), Optional.of(auth("basic", HttpAuth.Scheme.BASIC)),
                Permits.TIMEOUT, Permits.CAP, true);

        HttpResponseOutcome r = response(executor.execute(Permits.get(target, "/echo"), NEVER));

        assertEquals("Basic ****", header(r, "X-Echo").orElseThrow());
        assertEquals("you sent: Basic **** and also ****", new String(r.body(), StandardCharsets.UTF_8));
    }

    @Test
    void echoedBasicPasswordAloneIsMasked() {
        service.respond("/echo-password", request -> {
            String basic = request.header("Authorization").orElse("Basic ").substring("Basic ".length());
            String userAndPassword = new String(Base64.getDecoder().decode(basic), StandardCharsets.UTF_8);
            String password = userAndPassword.substring(userAndPassword.indexOf(':') + 1);
            return new Reply(200, Map.of("X-Password", password), ("password=" + password + ";").getBytes(StandardCharsets.UTF_8));
        });
        HttpTarget target = Permits.target(base(), Optional.of(auth("basic", HttpAuth.Scheme.BASIC)),
                Permits.TIMEOUT, Permits.CAP, true);

        HttpResponseOutcome r = response(executor.execute(Permits.get(target, "/echo-password"), NEVER));

        assertEquals("password=****;", new String(r.body(), StandardCharsets.UTF_8));
        assertEquals("****", header(r, "X-Password").orElseThrow());
        assertFalse(r.headers().toString().contains("pa55word"));
    }

    @Test
    void echoedBasicPasswordPercentEncodedOrUpperCasedIsMasked() {
        service.respond("/echo-transformed", request -> {
            String basic = request.header("Authorization").orElse("Basic ").substring("Basic ".length());
            String userAndPassword = new String(Base64.getDecoder().decode(basic), StandardCharsets.UTF_8);
            String password = userAndPassword.substring(userAndPassword.indexOf(':') + 1);
            StringBuilder encoded = new StringBuilder();
            for (byte b : password.getBytes(StandardCharsets.UTF_8)) {
                encoded.append(String.format("%%%02x", b & 0xff));
            }
            String upper = password.toUpperCase(Locale.ROOT);
            return new Reply(200, Map.of("X-Upper", upper, "Location", "/next?pw=" + encoded.toString().toUpperCase(Locale.ROOT)),
                    ("next=/login%3Fpw%3D" + encoded + "&upper=" + upper + "&url=" + encoded.toString().toUpperCase(Locale.ROOT))
                            .getBytes(StandardCharsets.UTF_8));
        });
        HttpTarget target = Permits.target(base(), Optional.of(auth("basic", HttpAuth.Scheme.BASIC)),
                Permits.TIMEOUT, Permits.CAP, true);

        HttpResponseOutcome r = response(executor.execute(Permits.get(target, "/echo-transformed"), NEVER));

        assertEquals("next=/login%3Fpw%3D****&upper=****&url=****", new String(r.body(), StandardCharsets.UTF_8));
        assertEquals("****", header(r, "X-Upper").orElseThrow());
        assertEquals("/next?pw=****", header(r, "Location").orElseThrow());
    }

    @Test
    void aSecretStraddlingTheCapIsMaskedWholeAndTheRestOfTheCutBodyIsKept() {
        echoAuthorization();
        // "you sent: Bearer " is 17 bytes; the cap falls 3 bytes into the token.
        HttpTarget target = Permits.target(base(), Optional.of(auth("api-token", HttpAuth.Scheme.BEARER)),
                Permits.TIMEOUT, 20, true);

        HttpResponseOutcome r = response(executor.execute(Permits.get(target, "/echo"), NEVER));

        assertEquals("you sent: Bearer ****", new String(r.body(), StandardCharsets.UTF_8));
        assertTrue(r.truncated());
    }

    @Test
    void targetWithoutPrivateAddressesIsRefusedLoopbackAndNothingIsSent() {
        service.respond("/hello", 200, Map.of(), new byte[0]);
        HttpTarget target = Permits.target(base(), Optional.empty(), Permits.TIMEOUT, Permits.CAP, false);

        ExecutionFailure f = failure(executor.execute(Permits.get(target, "/hello"), NEVER), FailureCode.ADDRESS_REFUSED);

        assertTrue(f.message().contains("loopback"), f.message());
        assertFalse(f.message().contains("127.0.0."), "the agent is not told the address or block: " + f.message());
        assertTrue(f.detail().contains("127.0.0.0/8"), "the operator is: " + f.detail());
        assertEquals(0, service.requestCount());
    }

    @Test
    void refusedConnectionGivesConnectFailed() throws IOException {
        int port;
        try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getByAddress(new byte[] {127, 0, 0, 1}))) {
            port = closed.getLocalPort();
        }
        HttpTarget target = Permits.target("http://127.0.0.1:" + port);

        failure(executor.execute(Permits.get(target, "/"), NEVER), FailureCode.CONNECT_FAILED);
    }

    @Test
    void cancellationBeforeTheExchangeSendsNothing() {
        service.respond("/hello", 200, Map.of(), new byte[0]);
        Cancellation cancelled = new Cancellation();
        cancelled.cancel();

        failure(executor.execute(Permits.get(Permits.target(base()), "/hello"), cancelled), FailureCode.CANCELLED);

        assertEquals(0, service.requestCount());
    }

    @Test
    void cancellationWhileWaitingForTheResponseAbortsIt() {
        service.stall("/slow", Duration.ofSeconds(10));
        Cancellation cancellation = new Cancellation();
        CompletableFuture.runAsync(() -> {
            service.takeRequest(Duration.ofSeconds(5));
            cancellation.cancel();
        });

        long start = System.nanoTime();
        Outcome outcome = executor.execute(Permits.get(Permits.target(base()), "/slow"), cancellation);
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        failure(outcome, FailureCode.CANCELLED);
        assertTrue(elapsedMs < 4000, "cancellation took " + elapsedMs + " ms");
    }

    @Test
    void cancellationMidBodyStopsTheTransfer() {
        service.stream("/drip", 4L * 1024 * 1024, Duration.ofMillis(20));
        Cancellation cancellation = new Cancellation();
        HttpTarget target = Permits.target(base(), Optional.empty(), Duration.ofSeconds(30), 8 * Permits.CAP, true);
        CompletableFuture.runAsync(() -> {
            service.takeRequest(Duration.ofSeconds(5));
            sleep(300);
            cancellation.cancel();
        });

        long start = System.nanoTime();
        Outcome outcome = executor.execute(Permits.get(target, "/drip"), cancellation);
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        failure(outcome, FailureCode.CANCELLED);
        assertTrue(elapsedMs < 5000, "the full body would take ~10 s; cancellation took " + elapsedMs + " ms");
    }

    @Test
    void missingCredentialFailsBeforeAnythingIsSent() {
        service.respond("/me", 200, Map.of(), new byte[0]);
        HttpTarget target = Permits.target(base(), Optional.of(auth("absent", HttpAuth.Scheme.BEARER)),
                Permits.TIMEOUT, Permits.CAP, true);

        ExecutionFailure f = failure(executor.execute(Permits.get(target, "/me"), NEVER), FailureCode.CREDENTIAL_UNAVAILABLE);

        assertTrue(f.message().contains("absent"), f.message());
        assertEquals(0, service.requestCount());
    }

    @Test
    void responseHeadersAreBoundedInCountAndLength() {
        Map<String, String> many = new LinkedHashMap<>();
        for (int i = 0; i < 150; i++) {
            many.put("X-H" + i, "v");
        }
        many.put("X-Long", "a".repeat(10_000));
        service.respond("/heads", 200, many, new byte[0]);

        HttpResponseOutcome r = response(executor.execute(Permits.get(Permits.target(base()), "/heads"), NEVER));

        assertEquals(HttpActionExecutor.MAX_RESPONSE_HEADERS, r.headers().size());
        assertTrue(r.headers().stream().allMatch(h -> h.value().length() <= HttpActionExecutor.MAX_HEADER_VALUE_CHARS));
    }

    @Test
    void hostNamesAreDialedOnlyAtTheAddressesTheResolverJudged() {
        service.respond("/hello", 200, Map.of(), "named".getBytes(StandardCharsets.UTF_8));
        InetAddress loopback = loopback();
        try (HttpActionExecutor named = new HttpActionExecutor(InMemoryCredentials.none(),
                host -> lookupTable(host, Map.of("service.test", new InetAddress[] {loopback})), tls())) {
            HttpTarget target = Permits.target("http://service.test:" + service.port());

            HttpResponseOutcome r = response(named.execute(Permits.get(target, "/hello"), NEVER));

            assertArrayEquals("named".getBytes(StandardCharsets.UTF_8), r.body());
            assertEquals("service.test:" + service.port(), service.takeRequest(Duration.ofSeconds(1)).header("Host").orElseThrow());
        }
    }

    @Test
    void nameMixingPublicAndPrivateAnswersIsRefusedAndNothingIsSent() throws UnknownHostException {
        service.respond("/hello", 200, Map.of(), new byte[0]);
        InetAddress publicAddress = InetAddress.getByAddress(new byte[] {8, 8, 8, 8});
        try (HttpActionExecutor named = new HttpActionExecutor(InMemoryCredentials.none(),
                host -> lookupTable(host, Map.of("rebind.test", new InetAddress[] {publicAddress, loopback()})), tls())) {
            HttpTarget target = Permits.target("http://rebind.test:" + service.port(), Optional.empty(),
                    Permits.TIMEOUT, Permits.CAP, false);

            failure(named.execute(Permits.get(target, "/hello"), NEVER), FailureCode.ADDRESS_REFUSED);

            assertEquals(0, service.requestCount());
        }
    }

    @Test
    void metadataAddressIsRefusedEvenForTargetsAllowingPrivateAddresses() throws UnknownHostException {
        InetAddress metadata = InetAddress.getByAddress(new byte[] {(byte) 169, (byte) 254, (byte) 169, (byte) 254});
        try (HttpActionExecutor named = new HttpActionExecutor(InMemoryCredentials.none(),
                host -> lookupTable(host, Map.of("metadata.test", new InetAddress[] {metadata})), tls())) {
            HttpTarget target = Permits.target("http://metadata.test", Optional.empty(), Permits.TIMEOUT, Permits.CAP, true);

            ExecutionFailure f = failure(named.execute(Permits.get(target, "/latest/meta-data/"), NEVER),
                    FailureCode.ADDRESS_REFUSED);

            assertTrue(f.message().contains("metadata"), f.message());
        }
    }

    @Test
    void proxySettingsOfTheJvmAreIgnored() {
        service.respond("/hello", 200, Map.of(), new byte[0]);
        ProxySelector saved = ProxySelector.getDefault();
        try (FakeHttpService proxy = FakeHttpService.start()) {
            InetSocketAddress proxyAddress = new InetSocketAddress(loopback(), proxy.port());
            ProxySelector.setDefault(new ProxySelector() {
                @Override
                public List<Proxy> select(URI uri) {
                    Proxy.Type type = uri.getScheme().startsWith("http") ? Proxy.Type.HTTP : Proxy.Type.SOCKS;
                    return List.of(new Proxy(type, proxyAddress));
                }

                @Override
                public void connectFailed(URI uri, SocketAddress sa, IOException ioe) {
                }
            });
            try (HttpActionExecutor fresh = new HttpActionExecutor(InMemoryCredentials.none(),
                    CheckingDnsResolver.SYSTEM, tls())) {
                response(fresh.execute(Permits.get(Permits.target(base()), "/hello"), NEVER));
            }
            assertEquals(0, proxy.requestCount());
            assertEquals(1, service.requestCount());
        } finally {
            ProxySelector.setDefault(saved);
        }
    }

    @Test
    void closedExecutorFailsWithoutSending() {
        service.respond("/hello", 200, Map.of(), new byte[0]);
        executor.close();

        failure(executor.execute(Permits.get(Permits.target(base()), "/hello"), NEVER), FailureCode.EXECUTOR_FAILED);

        assertEquals(0, service.requestCount());
    }

    @Test
    void permitTypeIsTheHttpPermit() {
        assertEquals(AuthorizedHttpRequest.class, executor.permitType());
    }

    private static InetAddress[] lookupTable(String host, Map<String, InetAddress[]> table) throws UnknownHostException {
        InetAddress[] found = table.get(host);
        if (found == null) {
            throw new UnknownHostException(host + " is not in the test table");
        }
        return found;
    }

    private static InetAddress loopback() {
        try {
            return InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private static SSLContext tls() {
        return SSLContexts.createDefault();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
