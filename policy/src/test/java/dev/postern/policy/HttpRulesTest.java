package dev.postern.policy;

import static dev.postern.policy.TestPolicies.denied;
import static dev.postern.policy.TestPolicies.get;
import static dev.postern.policy.TestPolicies.httpEngine;
import static dev.postern.policy.TestPolicies.permittedHttp;
import static dev.postern.policy.TestPolicies.request;
import static dev.postern.policy.TestPolicies.target;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.postern.policy.action.HeaderField;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.action.QueryParameter;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Policy;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The HTTP rules of DESIGN §4, proven through {@link PolicyEngine#decide}, allow and deny. */
class HttpRulesTest {
    private static final HttpTarget API = target("api", "https://api.example.com", Set.of("GET"),
            List.of("/repos/", "/user"), Set.of("Accept"));
    private static final PolicyEngine ENGINE = httpEngine(API);

    static Stream<Arguments> permittedRequests() {
        return Stream.of(
                arguments(get("https://api.example.com/repos/x"), "https://api.example.com:443/repos/x"),
                arguments(get("https://api.example.com/user"), "https://api.example.com:443/user"),
                arguments(get("https://api.example.com/user/keys"), "https://api.example.com:443/user/keys"),
                arguments(get("https://api.example.com:443/user"), "https://api.example.com:443/user"),
                arguments(get("https://API.Example.COM/user"), "https://api.example.com:443/user"),
                arguments(get("HTTPS://api.example.com./user"), "https://api.example.com:443/user"),
                arguments(get("https://api.example.com/repos/x?page=2"), "https://api.example.com:443/repos/x?page=2"),
                arguments(request("GET", "https://api.example.com/repos/x",
                                List.of(new QueryParameter("q", "a b&c=d"), new QueryParameter("λ", "é+/?#")), List.of()),
                        "https://api.example.com:443/repos/x?q=a%20b%26c%3Dd&%CE%BB=%C3%A9%2B%2F%3F%23"),
                arguments(request("GET", "https://api.example.com/repos/x?page=2",
                                List.of(new QueryParameter("per_page", "100")), List.of()),
                        "https://api.example.com:443/repos/x?page=2&per_page=100"),
                arguments(request("GET", "https://api.example.com/user",
                                List.of(), List.of(new HeaderField("Accept", "application/json"))),
                        "https://api.example.com:443/user"),
                arguments(request("GET", "https://api.example.com/user",
                                List.of(), List.of(new HeaderField("accept", "text/plain;\tq=0.5"))),
                        "https://api.example.com:443/user"),
                arguments(request("GET", "https://api.example.com/user",
                                List.of(), List.of(new HeaderField("Accept", "text/caf\u00e9; \u00ff"))),
                        "https://api.example.com:443/user"));
    }

    @ParameterizedTest
    @MethodSource("permittedRequests")
    void allowedRequestIsPermittedWithTheCanonicalUri(HttpRequestAction request, String expectedUri) {
        AuthorizedHttpRequest permit = permittedHttp(ENGINE.decide(request));

        assertEquals(URI.create(expectedUri), permit.uri());
        assertEquals(expectedUri, permit.uri().toString());
        assertEquals("http.target:api", permit.rule());
        assertSame(API, permit.target());
        assertSame(request, permit.action());
        assertEquals(request.method(), permit.method());
        assertEquals(request.headers(), permit.headers());
        assertEquals(request.body(), permit.body());
    }

    static Stream<Arguments> deniedRequests() {
        return Stream.of(
                arguments("path on no segment boundary", get("https://api.example.com/userx"), "http.path"),
                arguments("path under no prefix", get("https://api.example.com/orgs/x"), "http.path"),
                arguments("prefix with slash needs more", get("https://api.example.com/repos"), "http.path"),
                arguments("root path", get("https://api.example.com"), "http.path"),
                arguments("method not listed", request("POST", "https://api.example.com/user", List.of(), List.of()), "http.method"),
                arguments("lower-case method", request("get", "https://api.example.com/user", List.of(), List.of()), "http.method"),
                arguments("empty method", request("", "https://api.example.com/user", List.of(), List.of()), "http.method"),
                arguments("method with CRLF", request("GET\r\n", "https://api.example.com/user", List.of(), List.of()), "http.method"),
                arguments("other host", get("https://evil.example.com/user"), "http.target"),
                arguments("other scheme", get("http://api.example.com/user"), "http.target"),
                arguments("other port", get("https://api.example.com:8443/user"), "http.target"),
                arguments("port 0", get("https://api.example.com:0/user"), "http.url.port"),
                arguments("port 99999", get("https://api.example.com:99999/user"), "http.url.port"),
                arguments("port 65536", get("http://127.0.0.1:65536/user"), "http.url.port"),
                arguments("header not listed", withHeader("X-Api-Key", "k"), "http.header"),
                arguments("header value with CR", withHeader("Accept", "a\rb"), "http.header.syntax"),
                arguments("header value with LF", withHeader("Accept", "a\nX-Injected: 1"), "http.header.syntax"),
                arguments("header value with CRLF", withHeader("Accept", "a\r\nb"), "http.header.syntax"),
                arguments("header value with NUL", withHeader("Accept", "a\0b"), "http.header.syntax"),
                arguments("header value with DEL", withHeader("Accept", "a\u007fb"), "http.header.syntax"),
                arguments("header name with space", withHeader("Accept Language", "en"), "http.header.syntax"),
                arguments("header name with colon", withHeader("Accept:", "en"), "http.header.syntax"),
                arguments("empty header name", withHeader("", "en"), "http.header.syntax"),
                arguments("header name with CRLF", withHeader("Accept\r\nX", "en"), "http.header.syntax"),
                arguments("non-ASCII header name", withHeader("Accépt", "en"), "http.header.syntax"),
                arguments("header name with slash", withHeader("Accept/x", "en"), "http.header.syntax"),
                arguments("header value above U+00FF", withHeader("Accept", "text/λ"), "http.header.syntax"),
                arguments("header value with an emoji", withHeader("Accept", "a\uD83D\uDE00"), "http.header.syntax"),
                arguments("header value with a C1 control", withHeader("Accept", "a\u0085b"), "http.header.syntax"),
                arguments("header value with U+0100", withHeader("Accept", "\u0100"), "http.header.syntax"),
                arguments("empty query name", withQuery("", "v"), "http.query"),
                arguments("query value with LF", withQuery("q", "a\nb"), "http.query"),
                arguments("query name with NUL", withQuery("q\0", "v"), "http.query"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("deniedRequests")
    void requestOutsideTheTargetIsDeniedByItsRule(String why, HttpRequestAction request, String rule) {
        Decision.Deny deny = denied(ENGINE.decide(request));

        assertEquals(rule, deny.rule(), () -> why + ": " + deny.reason());
        assertFalse(deny.reason().isBlank());
    }

    static Stream<String> forbiddenHeaders() {
        return Stream.of("Host", "Authorization", "Cookie", "Content-Length", "Transfer-Encoding", "Connection",
                "X-Forwarded-For", "X-Forwarded-Host", "Forwarded", "Proxy-Authorization", "Proxy-Connection",
                "TE", "Upgrade", "Expect", "Keep-Alive", "Trailer", "host", "AUTHORIZATION", "x-forwarded-proto");
    }

    @ParameterizedTest
    @MethodSource("forbiddenHeaders")
    void forbiddenHeaderIsDeniedEvenWhenTheTargetListsIt(String header) {
        HttpTarget permissive = target("loose", "https://api.example.com", Set.of("GET"), List.of("/"),
                Set.of("Accept", header));
        for (PolicyEngine engine : List.of(ENGINE, httpEngine(permissive))) {
            Decision.Deny deny = denied(engine.decide(request("GET", "https://api.example.com/user", List.of(),
                    List.of(new HeaderField("Accept", "*/*"), new HeaderField(header, "x")))));

            assertEquals("http.header.forbidden", deny.rule(), deny.reason());
            assertTrue(deny.reason().contains(header), deny.reason());
        }
    }

    static Stream<Arguments> hostileHeaderNames() {
        String longToken = "X-" + "a".repeat(100_000);
        return Stream.of(
                arguments(longToken, "v", "http.header"),
                arguments("X-Forwarded-" + "a".repeat(100_000), "v", "http.header.forbidden"),
                arguments(longToken, "bad\r\nvalue", "http.header.syntax"),
                arguments("bad\r\n" + longToken, "v", "http.header.syntax"));
    }

    @ParameterizedTest
    @MethodSource("hostileHeaderNames")
    void headerDenialReasonIsBoundedAndPrintable(String name, String value, String rule) {
        Decision.Deny deny = denied(ENGINE.decide(withHeader(name, value)));

        assertEquals(rule, deny.rule());
        assertTrue(deny.reason().length() < 1000, () -> "reason of " + deny.reason().length() + " chars");
        assertTrue(deny.reason().chars().noneMatch(c -> c < 0x20), deny.reason());
    }

    private static final HttpTarget LOOPBACK = target("local", "http://127.0.0.1:8080", Set.of("GET"),
            List.of("/api"), Set.of());

    static Stream<Arguments> ssrfCorpus() {
        return Stream.of(
                arguments("http://2130706433:8080/api", "http.url.host"),
                arguments("http://0177.0.0.1:8080/api", "http.url.host"),
                arguments("http://127.1:8080/api", "http.url.host"),
                arguments("http://127.0.1:8080/api", "http.url.host"),
                arguments("http://0x7f.0.0.1:8080/api", "http.url.host"),
                arguments("http://0x7f000001:8080/api", "http.url.host"),
                arguments("http://127.000.000.001:8080/api", "http.url.host"),
                arguments("http://127.0.0.1:8080/api/../admin", "http.url.path"),
                arguments("http://127.0.0.1:8080/api/./admin", "http.url.path"),
                arguments("http://127.0.0.1:8080/api/..", "http.url.path"),
                arguments("http://127.0.0.1:8080/api/%2e%2e/admin", "http.url.path"),
                arguments("http://127.0.0.1:8080/api/.%2E/admin", "http.url.path"),
                arguments("http://127.0.0.1:8080/api%2fadmin", "http.url.path"),
                arguments("http://127.0.0.1:8080/api%2Fadmin", "http.url.path"),
                arguments("http://127.0.0.1:8080/api/%2E/x", "http.url.path"),
                arguments("http://127.0.0.1:8080/api/%5c..%5cadmin", "http.url.path"),
                arguments("http://127.0.0.1:8080/api/..;/admin", "http.url.path"),
                arguments("http://127.0.0.1:8080/api/.;x/admin", "http.url.path"),
                arguments("http://127.0.0.1:8080/api//admin", "http.url.path"),
                arguments("http://127.0.0.1:8080/api/%252e%252e/admin", "http.url.path"),
                arguments("http://127.0.0.1:8080/api/%252E%252E/admin", "http.url.path"),
                arguments("http://127.0.0.1:8080/api/%252f", "http.url.path"),
                arguments("http://127.0.0.1:8080/api/%25", "http.url.path"),
                arguments("http://127.0.0.1:8080/api/%25%32%65%25%32%65/admin", "http.url.path"),
                arguments("http://127.0.0.1:8080/api/%c0%ae%c0%ae/admin", "http.url.path"),
                arguments("http://127.0.0.1:8080/api/%C0%AE/admin", "http.url.path"),
                arguments("http://127.0.0.1:8080/api/%e0%80%ae", "http.url.path"),
                arguments("http://127.0.0.1:8080/api/%c0%af", "http.url.path"),
                arguments("http://127.0.0.1:8080/api/%ff", "http.url.path"),
                arguments("http://127.0.0.1:8080/api/caf%e9", "http.url.path"),
                arguments("http://127.0.0.1:8080/api/%ed%a0%80", "http.url.path"),
                arguments("http://127.0.0.1:8080/api/x%00.json", "http.url.path"),
                arguments("http://127.0.0.1:8080/api/%00", "http.url.path"),
                arguments("http://127.0.0.1:8080/api/a%0d%0aX-Injected:%201", "http.url.path"),
                arguments("http://127.0.0.1:8080/api/%7f", "http.url.path"),
                arguments("http://127.0.0.1:0/api", "http.url.port"),
                arguments("http://127.0.0.1:99999/api", "http.url.port"),
                arguments("http://127.0.0.1:65536/api", "http.url.port"),
                arguments("http://user@127.0.0.1:8080/api", "http.url.userinfo"),
                arguments("http://user:pw@127.0.0.1:8080/api", "http.url.userinfo"),
                arguments("http://user@127.0.0.1.:8080/api", "http.url.userinfo"),
                arguments("http://127.0.0.1..:8080/api", "http.url.host"),
                arguments("http://127.0.0.1.:8080/api#x", "http.url.fragment"),
                arguments("http://127.0.0.1.:8080/api/../admin", "http.url.path"),
                arguments("http://127.1.:8080/api", "http.url.host"),
                arguments("http://2130706433.:8080/api", "http.url.host"),
                arguments("http://127.0.0.1:8080/api#frag", "http.url.fragment"),
                arguments("http://127.0.0.1:8080/api#", "http.url.fragment"),
                arguments("ftp://127.0.0.1:8080/api", "http.url.scheme"),
                arguments("file:///etc/passwd", "http.url.scheme"),
                arguments("gopher://127.0.0.1:8080/api", "http.url.scheme"),
                arguments("http://[::1%25eth0]:8080/api", "http.url.host"),
                arguments("http://[::1]:8080/api", "http.target"),
                arguments("http://[::ffff:127.0.0.1]:8080/api", "http.target"),
                arguments("http://localhost:8080/api", "http.target"),
                arguments("http://127.0.0.1:8080/a pi", "http.url.syntax"),
                arguments("http://127.0.0.1:8080/api\t", "http.url.syntax"),
                arguments("http://127.0.0.1:8080/api\n", "http.url.syntax"),
                arguments("http://127.0.0.1:8080/api\\..\\admin", "http.url.syntax"),
                arguments("http://127.0.0.1\\@evil.example.com:8080/api", "http.url.syntax"),
                arguments("http://127.0.0.1:8080/api/é", "http.url.syntax"),
                arguments("http://127。0。0。1:8080/api", "http.url.syntax"),
                arguments("http://127.0.0.1:8080/api/%zz", "http.url.syntax"),
                arguments("http://127.0.0.1:8080/api/%2", "http.url.syntax"),
                arguments("http:/127.0.0.1:8080/api", "http.url.host"),
                arguments("//127.0.0.1:8080/api", "http.url.syntax"),
                arguments("/api", "http.url.syntax"),
                arguments("", "http.url.syntax"),
                arguments("http://127.0.0.1:8080/" + "a".repeat(HttpRules.MAX_URL_LENGTH), "http.url.syntax"),
                arguments("http://127.0.0.1:8081/api", "http.target"),
                arguments("http://127.0.0.1/api", "http.target"),
                arguments("https://127.0.0.1:8080/api", "http.target"),
                arguments("http://127.0.0.1:8080/apix", "http.path"),
                arguments("http://127.0.0.1:8080/Api", "http.path"),
                arguments("http://127.0.0.1:8080/", "http.path"));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("ssrfCorpus")
    void ssrfFormDoesNotMatchTheLoopbackTarget(String url, String rule) {
        Decision.Deny deny = denied(httpEngine(LOOPBACK).decide(get(url)));

        assertEquals(rule, deny.rule(), deny.reason());
        assertFalse(deny.reason().isBlank());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "http://127.0.0.1:8080/api",
        "http://127.0.0.1:8080/api/",
        "http://127.0.0.1:8080/api/x/y",
        "HTTP://127.0.0.1:8080/api",
        "hTtP://127.0.0.1:8080/api",
        "http://127.0.0.1.:8080/api",
        "http://127.0.0.1:8080/api?x=%2e%2e",
        "http://127.0.0.1:8080/api/..x/.y",
        "http://127.0.0.1:8080/api/caf%C3%A9",
        "http://127.0.0.1:8080/api/a%20b",
        "http://127.0.0.1:8080/api/%E2%82%AC",
    })
    void equivalentSpellingOfTheLoopbackTargetMatches(String url) {
        AuthorizedHttpRequest permit = permittedHttp(httpEngine(LOOPBACK).decide(get(url)));

        assertEquals("http", permit.uri().getScheme());
        assertEquals("127.0.0.1", permit.uri().getHost());
        assertEquals(8080, permit.uri().getPort());
        assertTrue(permit.uri().getRawPath().startsWith("/api"), permit.uri().toString());
    }

    @Test
    void ipv6TargetMatchesItsOwnSpelling() {
        HttpTarget v6 = target("v6", "http://[::1]:8080", Set.of("GET"), List.of("/api"), Set.of());

        AuthorizedHttpRequest permit = permittedHttp(httpEngine(v6).decide(get("http://[::1]:8080/api")));

        assertEquals("http://[::1]:8080/api", permit.uri().toString());
    }

    @Test
    void laterTargetWithTheSameOriginCanPermitWhatAnEarlierOneDenies() {
        HttpTarget reader = target("reader", "https://api.example.com", Set.of("GET"), List.of("/a"), Set.of());
        HttpTarget writer = target("writer", "https://api.example.com", Set.of("POST"), List.of("/b"), Set.of());
        PolicyEngine engine = httpEngine(reader, writer);

        AuthorizedHttpRequest permit = permittedHttp(engine.decide(request("POST", "https://api.example.com/b/1", List.of(), List.of())));
        Decision.Deny deny = denied(engine.decide(request("POST", "https://api.example.com/a/1", List.of(), List.of())));

        assertEquals("http.target:writer", permit.rule());
        assertSame(writer, permit.target());
        assertEquals("http.method", deny.rule(), "the first target's reason is reported");
    }

    @Test
    void emptyPolicyDeniesEverything() {
        Decision.Deny deny = denied(new PolicyEngine(Policy.denyAll()).decide(get("https://api.example.com/user")));

        assertEquals("http.target", deny.rule());
    }

    @Test
    void permitCarriesTheBody() {
        HttpTarget poster = target("poster", "https://api.example.com", Set.of("POST"), List.of("/"), Set.of("Content-Type"));
        HttpRequestAction post = new HttpRequestAction("POST", "https://api.example.com/x", List.of(),
                List.of(new HeaderField("Content-Type", "application/json")), Optional.of("{\"a\":1}"));

        AuthorizedHttpRequest permit = permittedHttp(httpEngine(poster).decide(post));

        assertEquals(Optional.of("{\"a\":1}"), permit.body());
        assertEquals(List.of(new HeaderField("Content-Type", "application/json")), permit.headers());
    }

    private static HttpRequestAction withHeader(String name, String value) {
        return request("GET", "https://api.example.com/user", List.of(), List.of(new HeaderField(name, value)));
    }

    private static HttpRequestAction withQuery(String name, String value) {
        return request("GET", "https://api.example.com/user", List.of(new QueryParameter(name, value)), List.of());
    }
}
