package dev.postern.policy.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every policy record refuses a nonsensical value when built, with a message naming the field and the value. */
class ModelValidationTest {
    private static final String FINGERPRINT = "SHA256:" + "A".repeat(43);
    private static final SshAuth KEY = new SshAuth.Key(new CredentialRef("deploy-key"), Optional.empty());
    private static final Origin ORIGIN = new Origin("https", "api.example.com", 443);
    private static final HttpTarget TARGET = target("api", Set.of("GET"), List.of("/"));
    private static final SshHost HOST = host("web-1", Optional.of(Path.of("known_hosts")), Optional.empty());

    static Stream<Arguments> refusals() {
        return Stream.of(
                refusal("baseUrl with a path", () -> Origin.parseBaseUrl("https://api.example.com/v1"), "baseUrl", "path", "/v1"),
                refusal("baseUrl with a webhook path: only its first segment is repeated",
                        () -> Origin.parseBaseUrl("https://hooks.example.com/services/T0/B0/s3cretTok"), "baseUrl", "path", "\"/services/…\""),
                refusal("baseUrl with a query", () -> Origin.parseBaseUrl("https://api.example.com/?x=1"), "baseUrl", "query"),
                refusal("baseUrl with user info", () -> Origin.parseBaseUrl("https://me@api.example.com"), "baseUrl", "user info"),
                refusal("baseUrl with a fragment", () -> Origin.parseBaseUrl("https://api.example.com#top"), "baseUrl", "fragment"),
                refusal("baseUrl without scheme", () -> Origin.parseBaseUrl("api.example.com"), "baseUrl"),
                refusal("baseUrl without host", () -> Origin.parseBaseUrl("https:///x"), "baseUrl"),
                refusal("baseUrl not a URL", () -> Origin.parseBaseUrl("https://exa mple.com"), "baseUrl"),
                refusal("baseUrl with another scheme", () -> Origin.parseBaseUrl("ftp://example.com"), "scheme", "ftp"),
                refusal("baseUrl with an IPv6 zone id", () -> Origin.parseBaseUrl("http://[fe80::1%25eth0]:80"), "baseUrl", "zone"),
                refusal("baseUrl with a short IPv4 form", () -> Origin.parseBaseUrl("http://127.1:8080"), "baseUrl", "127.1", "IPv4"),
                refusal("baseUrl with a hex IPv4 part", () -> Origin.parseBaseUrl("http://0x7f.0.0.1"), "baseUrl", "0x7f.0.0.1", "IPv4"),
                refusal("baseUrl with an underscore in its host", () -> Origin.parseBaseUrl("http://a_b.example"), "baseUrl",
                        "a_b.example", "host name"),
                refusal("origin scheme upper-case", () -> new Origin("HTTPS", "a.example", 443), "scheme", "HTTPS"),
                refusal("origin host upper-case", () -> new Origin("https", "A.example", 443), "host", "A.example"),
                refusal("origin host with trailing dot", () -> new Origin("https", "a.example.", 443), "host"),
                refusal("origin host empty", () -> new Origin("https", "", 443), "host"),
                refusal("origin port zero", () -> new Origin("https", "a.example", 0), "port", "0"),
                refusal("origin port too big", () -> new Origin("https", "a.example", 65536), "port", "65536"),

                refusal("target without methods", () -> target("api", Set.of(), List.of("/")), "api", "methods"),
                refusal("target with lower-case method", () -> target("api", Set.of("get"), List.of("/")), "api", "methods", "get"),
                refusal("target with non-letter method", () -> target("api", Set.of("GET "), List.of("/")), "method"),
                refusal("target without prefixes", () -> target("api", Set.of("GET"), List.of()), "pathPrefixes"),
                refusal("prefix not absolute", () -> target("api", Set.of("GET"), List.of("api")), "pathPrefixes", "api"),
                refusal("prefix empty", () -> target("api", Set.of("GET"), List.of("")), "pathPrefixes"),
                refusal("prefix with empty segment", () -> target("api", Set.of("GET"), List.of("/a//b")), "pathPrefixes", "/a//b"),
                refusal("prefix with dot segment", () -> target("api", Set.of("GET"), List.of("/a/./b")), "pathPrefixes"),
                refusal("prefix with dot-dot segment", () -> target("api", Set.of("GET"), List.of("/a/../b")), "pathPrefixes"),
                refusal("prefix ending in dot", () -> target("api", Set.of("GET"), List.of("/a/.")), "pathPrefixes"),
                refusal("prefix ending in dot-dot", () -> target("api", Set.of("GET"), List.of("/a/..")), "pathPrefixes"),
                refusal("prefix with percent", () -> target("api", Set.of("GET"), List.of("/a%2fb")), "pathPrefixes"),
                refusal("prefix with backslash", () -> target("api", Set.of("GET"), List.of("/a\\b")), "pathPrefixes"),
                refusal("prefix with a query", () -> target("api", Set.of("GET"), List.of("/search?q=")), "pathPrefixes", "/search?q="),
                refusal("prefix with a fragment", () -> target("api", Set.of("GET"), List.of("/docs#top")), "pathPrefixes", "/docs#top"),
                refusal("prefix with a path parameter", () -> target("api", Set.of("GET"), List.of("/admin;jsessionid=1")),
                        "pathPrefixes", "/admin;jsessionid=1"),
                refusal("prefix with a space", () -> target("api", Set.of("GET"), List.of("/my files")), "pathPrefixes", "/my files"),
                refusal("prefix with a no-break space", () -> target("api", Set.of("GET"), List.of("/a\u00a0b")), "pathPrefixes"),
                refusal("prefix with a tab", () -> target("api", Set.of("GET"), List.of("/a\tb")), "pathPrefixes", "/a\\u0009b"),
                refusal("prefix with a line feed", () -> target("api", Set.of("GET"), List.of("/a\nb")), "pathPrefixes", "/a\\u000ab"),
                refusal("prefix with DEL", () -> target("api", Set.of("GET"), List.of("/a\u007fb")), "pathPrefixes", "/a\\u007fb"),
                refusal("target header not a token", () -> new HttpTarget("api", ORIGIN, Set.of("GET"), List.of("/"),
                        Set.of("X Bad"), Optional.empty(), Duration.ofSeconds(1), 1, false), "headers", "X Bad"),
                refusal("target timeout zero", () -> new HttpTarget("api", ORIGIN, Set.of("GET"), List.of("/"),
                        Set.of(), Optional.empty(), Duration.ZERO, 1, false), "timeout"),
                refusal("target maxResponseBytes zero", () -> new HttpTarget("api", ORIGIN, Set.of("GET"), List.of("/"),
                        Set.of(), Optional.empty(), Duration.ofSeconds(1), 0, false), "maxResponseBytes"),
                refusal("trust store on a plain http target", () -> withTrust(new Origin("http", "api.example.com", 80),
                        new TrustStore(Path.of("/etc/postern/ca.p12").toAbsolutePath(), TrustStore.Type.PKCS12, Optional.empty())),
                        "api", "trustStore", "https"),
                refusal("trust store with a relative path", () -> new TrustStore(Path.of("ca.p12"), TrustStore.Type.PKCS12,
                        Optional.empty()), "trustStore.file", "absolute", "ca.p12"),
                refusal("target name with space", () -> target("my api", Set.of("GET"), List.of("/")), "target name", "my api"),
                refusal("header auth without header name", () -> new HttpAuth(new CredentialRef("t"), HttpAuth.Scheme.HEADER,
                        Optional.empty()), "auth.header"),
                refusal("bearer auth with header name", () -> new HttpAuth(new CredentialRef("t"), HttpAuth.Scheme.BEARER,
                        Optional.of("X-Key")), "auth.header"),
                refusal("header auth with a header name that is not a token", () -> new HttpAuth(new CredentialRef("t"),
                        HttpAuth.Scheme.HEADER, Optional.of("X Key")), "auth.header", "token", "X Key"),
                refusal("credential name empty", () -> new CredentialRef(""), "credential name"),
                refusal("credential name too long", () -> new CredentialRef("c".repeat(65)), "credential name"),

                refusal("host without knownHosts or fingerprint", () -> host("web-1", Optional.empty(), Optional.empty()),
                        "web-1", "knownHosts", "hostKeyFingerprint"),
                refusal("host with a malformed fingerprint", () -> host("web-1", Optional.empty(), Optional.of("MD5:ab:cd")),
                        "hostKeyFingerprint", "MD5:ab:cd"),
                refusal("host with a short fingerprint", () -> host("web-1", Optional.empty(), Optional.of("SHA256:abc")),
                        "hostKeyFingerprint"),
                refusal("host with blank address", () -> new SshHost("web-1", " ", 22, "deploy", KEY,
                        Optional.of(Path.of("k")), Optional.empty(), Duration.ofSeconds(1), 1, List.of()), "address"),
                refusal("host with port zero", () -> new SshHost("web-1", "10.0.0.5", 0, "deploy", KEY,
                        Optional.of(Path.of("k")), Optional.empty(), Duration.ofSeconds(1), 1, List.of()), "port"),
                refusal("host with shell in user", () -> new SshHost("web-1", "10.0.0.5", 22, "root;id", KEY,
                        Optional.of(Path.of("k")), Optional.empty(), Duration.ofSeconds(1), 1, List.of()), "user"),
                refusal("host with zero timeout", () -> new SshHost("web-1", "10.0.0.5", 22, "deploy", KEY,
                        Optional.of(Path.of("k")), Optional.empty(), Duration.ZERO, 1, List.of()), "timeout"),
                refusal("host with zero output cap", () -> new SshHost("web-1", "10.0.0.5", 22, "deploy", KEY,
                        Optional.of(Path.of("k")), Optional.empty(), Duration.ofSeconds(1), 0, List.of()), "maxOutputBytes"),
                refusal("host with a command twice", () -> new SshHost("web-1", "10.0.0.5", 22, "deploy", KEY,
                        Optional.of(Path.of("k")), Optional.empty(), Duration.ofSeconds(1), 1,
                        List.of(uptime(), uptime())), "web-1", "uptime", "twice"),

                refusal("command with undeclared placeholder", () -> new SshCommandSpec("tail", List.of("tail", "-n", "{lines}"),
                        Map.of()), "tail", "undeclared", "lines"),
                refusal("command with unused param", () -> new SshCommandSpec("tail", List.of("tail"),
                        Map.of("lines", new ParamSpec.IntegerParam(1, 5))), "tail", "unused", "lines"),
                refusal("command with placeholder inside an element but another param", () -> new SshCommandSpec("j",
                        List.of("j", "--n={n}"), Map.of("m", new ParamSpec.IntegerParam(1, 5))), "undeclared", "n", "unused", "m"),
                refusal("command with empty argv", () -> new SshCommandSpec("nothing", List.of(), Map.of()), "argv"),
                refusal("command with NUL in argv", () -> new SshCommandSpec("nul", List.of("echo", "a\0b"), Map.of()), "argv", "NUL"),
                refusal("command name with slash", () -> new SshCommandSpec("a/b", List.of("x"), Map.of()), "command name", "a/b"),
                refusal("string param maxLength zero", () -> new ParamSpec.StringParam(Optional.empty(), Optional.empty(), 0), "maxLength"),
                refusal("string param maxLength huge", () -> new ParamSpec.StringParam(Optional.empty(), Optional.empty(), 65537), "maxLength"),
                refusal("integer param minimum over maximum", () -> new ParamSpec.IntegerParam(5, 1), "minimum", "maximum"),

                refusal("policy with a target twice", () -> Policy.of(List.of(TARGET, target("api", Set.of("POST"), List.of("/x"))),
                        List.of()), "http target", "api", "twice"),
                refusal("policy with a host twice", () -> Policy.of(List.of(), List.of(HOST, host("web-1", Optional.empty(),
                        Optional.of(FINGERPRINT)))), "ssh host", "web-1", "twice"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void badValueIsRefusedWithAMessageNamingTheField(String why, Executable build, List<String> named) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, build, why);

        for (String word : named) {
            assertTrue(e.getMessage().contains(word), () -> why + ": \"" + e.getMessage() + "\" does not name " + word);
        }
    }

    static Stream<Arguments> baseUrls() {
        return Stream.of(
                arguments("https://api.example.com", new Origin("https", "api.example.com", 443)),
                arguments("https://api.example.com/", new Origin("https", "api.example.com", 443)),
                arguments("HTTPS://API.Example.COM.", new Origin("https", "api.example.com", 443)),
                arguments("http://127.0.0.1:8080", new Origin("http", "127.0.0.1", 8080)),
                arguments("http://example.com", new Origin("http", "example.com", 80)),
                arguments("http://[::1]:8080", new Origin("http", "::1", 8080)));
    }

    @ParameterizedTest
    @MethodSource("baseUrls")
    void baseUrlParsesToItsOrigin(String baseUrl, Origin expected) {
        assertEquals(expected, Origin.parseBaseUrl(baseUrl));
    }

    static Stream<String> baseUrlsWithASecret() {
        return Stream.of("http://bob:s3cretTok@a_b.example", "http://bob:s3cretTok@127.1", "http://bob:s3cretTok@ex ample.com",
                "http://bob:s3cretTok@127.000.0.1", "https://bob:s3cretTok@api.example.com", "http://bob:s3cretTok@bücher.example",
                "http://a_b.example/?token=s3cretTok", "http://127.1?token=s3cretTok", "http://ex ample.com/?token=s3cretTok",
                "http://a_b.example#s3cretTok", "https://api.example.com/?token=s3cretTok");
    }

    @ParameterizedTest
    @MethodSource("baseUrlsWithASecret")
    void aRefusedBaseUrlNeverShowsItsUserInfoOrQuery(String baseUrl) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Origin.parseBaseUrl(baseUrl));

        assertTrue(e.getMessage().startsWith("baseUrl"), e.getMessage());
        assertFalse(e.getMessage().contains("s3cretTok"), e.getMessage());
    }

    @Test
    void originWritesItsPortAndBracketsIpv6() {
        assertEquals("https://api.example.com:443", Origin.parseBaseUrl("https://api.example.com").toUrl());
        assertEquals("http://[::1]:8080", Origin.parseBaseUrl("http://[::1]:8080").toUrl());
    }

    @Test
    void hostWithOnlyAPinnedFingerprintIsAccepted() {
        SshHost pinned = host("web-2", Optional.empty(), Optional.of(FINGERPRINT));

        assertEquals(Optional.of(FINGERPRINT), pinned.hostKeyFingerprint());
    }

    @Test
    void targetHeadersAreHeldLowerCase() {
        HttpTarget t = new HttpTarget("api", ORIGIN, Set.of("GET"), List.of("/"), Set.of("Accept", "X-GitHub-Api-Version"),
                Optional.empty(), Duration.ofSeconds(1), 1, false);

        assertEquals(Set.of("accept", "x-github-api-version"), t.headers());
    }

    @Test
    void theShortConstructorTrustsTheJvmDefaultsAndTruncates() {
        assertEquals(Optional.empty(), TARGET.trustStore());
        assertEquals(HttpTarget.OversizeResponse.TRUNCATE, TARGET.onOversizeResponse());
    }

    @Test
    void anHttpsTargetKeepsItsTrustStoreAndOversizeChoice() {
        TrustStore store = new TrustStore(Path.of("ca.jks").toAbsolutePath(), TrustStore.Type.JKS,
                Optional.of(new CredentialRef("ca-pass")));
        HttpTarget t = withTrust(ORIGIN, store);

        assertEquals(Optional.of(store), t.trustStore());
        assertEquals(HttpTarget.OversizeResponse.REFUSE, t.onOversizeResponse());
    }

    @Test
    void recordsCopyTheirCollections() {
        List<String> argv = new ArrayList<>(List.of("echo", "{s}"));
        SshCommandSpec spec = new SshCommandSpec("echo", argv,
                Map.of("s", new ParamSpec.StringParam(Optional.of(Pattern.compile("[a-z]+")), Optional.empty(), 8)));
        argv.add("--injected");

        assertEquals(List.of("echo", "{s}"), spec.argv());
        assertThrows(UnsupportedOperationException.class, () -> spec.argv().add("x"));
    }

    @Test
    void httpTargetAndSshHostMayShareAName() {
        Policy p = Policy.of(List.of(target("web-1", Set.of("GET"), List.of("/"))), List.of(HOST));

        assertEquals(Optional.of(HOST), p.allowance(SshHost.class, "web-1"));
    }

    @Test
    void aBaseUrlWithAWebhookPathIsRefusedWithoutRepeatingThePathsSecretPart() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Origin.parseBaseUrl("https://hooks.example.com/services/T0/B0/s3cretTok"));
        assertFalse(e.getMessage().contains("s3cretTok") || e.getMessage().contains("B0"), e.getMessage());
    }

    private static Arguments refusal(String why, Executable build, String... named) {
        return arguments(why, build, Arrays.asList(named));
    }

    private static HttpTarget target(String name, Set<String> methods, List<String> prefixes) {
        return new HttpTarget(name, ORIGIN, methods, prefixes, Set.of(), Optional.empty(), Duration.ofSeconds(1), 1, false);
    }

    private static HttpTarget withTrust(Origin origin, TrustStore store) {
        return new HttpTarget("api", origin, Set.of("GET"), List.of("/"), Set.of(), Optional.empty(), Duration.ofSeconds(1), 1,
                false, Optional.of(store), HttpTarget.OversizeResponse.REFUSE);
    }

    private static SshHost host(String name, Optional<Path> knownHosts, Optional<String> fingerprint) {
        return new SshHost(name, "10.0.0.5", 22, "deploy", KEY, knownHosts, fingerprint, Duration.ofSeconds(30), 1024, List.of());
    }

    private static SshCommandSpec uptime() {
        return new SshCommandSpec("uptime", List.of("uptime"), Map.of());
    }
}
