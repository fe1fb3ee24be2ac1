package dev.postern.protocol.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.AuthorizedHttpRequest;
import dev.postern.policy.action.HeaderField;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.action.QueryParameter;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.HttpAuth;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Origin;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.RateLimit;
import dev.postern.policy.model.TrustStore;
import dev.postern.policy.outcome.HttpResponseOutcome;
import dev.postern.transport.Sha256;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What {@code http_request} writes for each surface: the check-config lines and postern_targets
 * entries of its targets (credential and trust-store names for the operator, neither for the agent),
 * explain's text for a permit, and the journal's intent, denial and outcome fields, with and
 * without redacted arguments (a digest of the exact URL asked, never the body, only its size).
 */
class HttpRequestKindPresentationTest {
    private static final HttpRequestKind KIND = new HttpRequestKind();

    /** Everything a target can carry: auth, a trust store opened with a credential, refusal of oversize responses, approval, a rate limit. */
    static final HttpTarget API = new HttpTarget("api", Origin.parseBaseUrl("https://api.example.com"), Set.of("POST", "GET", "DELETE"),
            List.of("/v2/", "/v1/"), Set.of("X-Trace", "Accept"),
            Optional.of(new HttpAuth(new CredentialRef("api-token"), HttpAuth.Scheme.BEARER, Optional.empty())),
            Duration.ofMillis(2500), 4096, false,
            Optional.of(new TrustStore(Path.of("/etc/postern/api.p12"), TrustStore.Type.PKCS12, Optional.of(new CredentialRef("store-pw")))),
            HttpTarget.OversizeResponse.REFUSE, Set.of("DELETE"), Optional.of(RateLimit.perSeconds(30, 60)));
    /** Nothing optional: no headers, no auth, the JVM's trust, oversize responses truncated, private addresses allowed. */
    static final HttpTarget LOCAL = new HttpTarget("local", Origin.parseBaseUrl("http://127.0.0.1:8080"), Set.of("GET"), List.of("/"),
            Set.of(), Optional.empty(), Duration.ofSeconds(5), 1024, true);
    /** A header-scheme credential and a trust store that needs no password. */
    static final HttpTarget KEYED = new HttpTarget("keyed", Origin.parseBaseUrl("https://keyed.example.com"), Set.of("GET"), List.of("/"),
            Set.of(), Optional.of(new HttpAuth(new CredentialRef("keyed-key"), HttpAuth.Scheme.HEADER, Optional.of("X-Api-Key"))),
            Duration.ofSeconds(1), 10, false,
            Optional.of(new TrustStore(Path.of("/etc/postern/keyed.jks"), TrustStore.Type.JKS, Optional.empty())),
            HttpTarget.OversizeResponse.TRUNCATE);
    private static final Policy POLICY = Policy.of(List.of(API, LOCAL, KEYED), List.of());

    private static ObjectNode row() {
        return JsonNodeFactory.instance.objectNode();
    }

    private static String sha256(String text) {
        return Sha256.of(text.getBytes(StandardCharsets.UTF_8));
    }

    private static AuthorizedHttpRequest postToApi() {
        // "héllo" is 5 characters and 6 bytes: sizes are counted in UTF-8 bytes.
        return Permits.permit(POLICY, new HttpRequestAction("POST", "https://api.example.com/v1/items", List.of(new QueryParameter("a", "1")),
                List.of(new HeaderField("X-Trace", "t1")), Optional.of("héllo")), AuthorizedHttpRequest.class);
    }

    @Test
    void theKindNamesItsToolTypesAndTargetsField() {
        assertEquals("http_request", KIND.toolName());
        assertEquals("http", KIND.targetsField());
        assertEquals("HTTP targets", KIND.allowancesNoun());
        assertEquals("HTTP targets (origin, methods, path prefixes, headers)", KIND.allowancesSummary());
        assertEquals(HttpRequestAction.class, KIND.actionType());
        assertEquals(AuthorizedHttpRequest.class, KIND.permitType());
        assertEquals(HttpResponseOutcome.class, KIND.outcomeType());
        assertEquals(HttpTarget.class, KIND.allowanceType());
    }

    @Test
    void checkConfigPrintsOneLinePerTargetWithEveryRuleAndTheCredentialNames() {
        assertEquals("http target api: [DELETE, GET, POST] https://api.example.com:443 under [/v2/, /v1/], headers [accept, x-trace],"
                + " auth bearer with credential api-token, trusting only the PKCS12 trust store /etc/postern/api.p12"
                + " (opened with credential store-pw), responses over 4096 bytes refused, [DELETE] only with a human's approval,"
                + " rate limit 30 calls per 60 s\n"
                + "http target local: [GET] http://127.0.0.1:8080 under [/], private addresses allowed\n"
                + "http target keyed: [GET] https://keyed.example.com:443 under [/], auth header with credential keyed-key,"
                + " trusting only the JKS trust store /etc/postern/keyed.jks\n",
                KIND.describeForOperator(POLICY));
        assertEquals("", KIND.describeForOperator(Policy.denyAll()), "no targets, no lines");
    }

    @Test
    void posternTargetsShowsEachTargetsRulesSortedButNoCredentialOrTrustStore() {
        String agent = KIND.describeForAgent(POLICY).toString();
        assertEquals("[{\"name\":\"api\",\"baseUrl\":\"https://api.example.com:443\",\"methods\":[\"DELETE\",\"GET\",\"POST\"],"
                + "\"pathPrefixes\":[\"/v2/\",\"/v1/\"],\"headers\":[\"accept\",\"x-trace\"],\"authenticated\":true,\"timeoutMs\":2500,"
                + "\"maxResponseBytes\":4096,\"onOversizeResponse\":\"refuse\",\"confirm\":[\"DELETE\"],"
                + "\"rateLimit\":{\"calls\":30,\"perSeconds\":60}},"
                + "{\"name\":\"local\",\"baseUrl\":\"http://127.0.0.1:8080\",\"methods\":[\"GET\"],\"pathPrefixes\":[\"/\"],\"headers\":[],"
                + "\"authenticated\":false,\"timeoutMs\":5000,\"maxResponseBytes\":1024,\"onOversizeResponse\":\"truncate\",\"confirm\":[]},"
                + "{\"name\":\"keyed\",\"baseUrl\":\"https://keyed.example.com:443\",\"methods\":[\"GET\"],\"pathPrefixes\":[\"/\"],"
                + "\"headers\":[],\"authenticated\":true,\"timeoutMs\":1000,\"maxResponseBytes\":10,\"onOversizeResponse\":\"truncate\","
                + "\"confirm\":[]}]", agent);
        for (String secret : List.of("api-token", "store-pw", "api.p12", "keyed-key", "X-Api-Key")) {
            assertFalse(agent.contains(secret), secret);
        }
    }

    @Test
    void explainShowsTheCanonicalRequestHeadersBodySizeCredentialNameAndLimits() {
        assertEquals("would send: POST https://api.example.com:443/v1/items?a=1\n"
                + "  target: api\n"
                + "  header: X-Trace: t1\n"
                + "  body: 6 bytes\n"
                + "  auth: bearer with credential api-token, added by the executor\n"
                + "  limits: timeout 2500 ms, at most 4096 response bytes; non-public addresses refused at connect time",
                KIND.explain(postToApi()));
    }

    @Test
    void explainOfABareRequestToAPrivateTargetHasOnlyTargetAndLimits() {
        AuthorizedHttpRequest get = Permits.permit(POLICY, new HttpRequestAction("GET", "http://127.0.0.1:8080/health", List.of(),
                List.of(), Optional.empty()), AuthorizedHttpRequest.class);
        assertEquals("would send: GET http://127.0.0.1:8080/health\n"
                + "  target: local\n"
                + "  limits: timeout 5000 ms, at most 1024 response bytes", KIND.explain(get));
    }

    @Test
    void anIntentRowHoldsTargetMethodUrlPreviewAndBodySizeInThatOrder() {
        ObjectNode row = row();
        KIND.journalIntent(postToApi(), row, false);
        assertEquals("{\"target\":\"api\",\"method\":\"POST\",\"url\":\"https://api.example.com:443/v1/items?a=1\","
                + "\"preview\":\"POST https://api.example.com:443/v1/items?a=1\",\"bodyBytes\":6}", row.toString());
    }

    @Test
    void aRedactedIntentRowShowsNoQueryOnlyTheDigestOfTheWholeUrl() {
        ObjectNode row = row();
        KIND.journalIntent(postToApi(), row, true);
        assertEquals("{\"target\":\"api\",\"method\":\"POST\",\"preview\":\"POST https://api.example.com:443/v1/items\","
                + "\"argumentsSha256\":\"" + sha256("https://api.example.com:443/v1/items?a=1") + "\",\"bodyBytes\":6}", row.toString());
    }

    @Test
    void anIntentRowWithoutABodyHasNoBodySize() {
        AuthorizedHttpRequest get = Permits.permit(POLICY, new HttpRequestAction("GET", "http://127.0.0.1:8080/health", List.of(),
                List.of(), Optional.empty()), AuthorizedHttpRequest.class);
        ObjectNode row = row();
        KIND.journalIntent(get, row, false);
        assertEquals("{\"target\":\"local\",\"method\":\"GET\",\"url\":\"http://127.0.0.1:8080/health\","
                + "\"preview\":\"GET http://127.0.0.1:8080/health\"}", row.toString());
    }

    @Test
    void aDenialRowShowsTheUrlAsAskedWithItsQueryAppendedAndTheHost() {
        ObjectNode row = row();
        KIND.journalDenial(new HttpRequestAction("GET", "https://evil.example:8443/p", List.of(new QueryParameter("q", "1"),
                new QueryParameter("r", "x y")), List.of(new HeaderField("X-Secret", "s")), Optional.empty()), row, false);
        assertEquals("{\"host\":\"evil.example:8443\",\"refused\":\"GET https://evil.example:8443/p?q=1&r=x y\"}", row.toString());
    }

    @Test
    void aDenialOfAUrlThatHasAQueryAlreadyAppendsWithAnAmpersandAndCountsTheBody() {
        ObjectNode row = row();
        KIND.journalDenial(new HttpRequestAction("POST", "https://api.example.com/v9?x=1", List.of(new QueryParameter("a", "2")),
                List.of(), Optional.of("héllo")), row, false);
        assertEquals("{\"host\":\"api.example.com\",\"refused\":\"POST https://api.example.com/v9?x=1&a=2\",\"bodyBytes\":6}", row.toString());

        ObjectNode leading = row();
        KIND.journalDenial(new HttpRequestAction("GET", "?x=1", List.of(new QueryParameter("a", "2")), List.of(), Optional.empty()),
                leading, false);
        assertEquals("{\"refused\":\"GET ?x=1&a=2\"}", leading.toString(), "a URL that is only a query: no host, still one '?'");
    }

    @Test
    void aRedactedDenialShowsOnlyMethodAndOriginAndTheDigestOfTheUrlAsAsked() {
        ObjectNode row = row();
        KIND.journalDenial(new HttpRequestAction("GET", "https://evil.example:8443/p/secret", List.of(new QueryParameter("q", "1")),
                List.of(), Optional.of("body")), row, true);
        assertEquals("{\"host\":\"evil.example:8443\",\"refused\":\"GET https://evil.example:8443\",\"argumentsSha256\":\""
                + sha256("https://evil.example:8443/p/secret?q=1") + "\",\"bodyBytes\":4}", row.toString());
    }

    /**
     * {@code mailto:someone@example.com} has no authority, but {@code user:pass@host} reads the same way
     * (a scheme, then no {@code //}): everything before the {@code @} is dropped from both, scheme included,
     * rather than keep a password that looks like a scheme.
     */
    @Test
    void aDenialOfAnOpaqueUrlWithAnAtSignDropsEverythingBeforeIt() {
        ObjectNode plain = row();
        KIND.journalDenial(new HttpRequestAction("GET", "mailto:someone@example.com", List.of(), List.of(), Optional.empty()), plain, false);
        assertEquals("{\"userInfoDropped\":true,\"refused\":\"GET example.com\"}", plain.toString());
    }

    @Test
    void aDenialOfAUrlWithoutSchemeOrAuthorityOrThatDoesNotParseNamesNoHost() {
        for (String url : List.of("http://exa mple.com/", "/relative/path")) {
            ObjectNode plain = row();
            KIND.journalDenial(new HttpRequestAction("GET", url, List.of(), List.of(), Optional.empty()), plain, false);
            assertEquals("{\"refused\":\"GET " + url + "\"}", plain.toString());

            ObjectNode redacted = row();
            KIND.journalDenial(new HttpRequestAction("GET", url, List.of(), List.of(), Optional.empty()), redacted, true);
            assertEquals("{\"refused\":\"GET (a URL that does not parse)\",\"argumentsSha256\":\"" + sha256(url) + "\"}", redacted.toString());
        }
    }

    @Test
    void anOutcomeRowHoldsStatusBodySizeAndTruncationButNoBody() {
        ObjectNode row = row();
        KIND.journalOutcome(new HttpResponseOutcome("api", 404, List.of(new HeaderField("Content-Type", "text/plain")),
                "héllo".getBytes(StandardCharsets.UTF_8), true), row);
        assertEquals("{\"status\":404,\"bytes\":6,\"truncated\":true}", row.toString());
    }

    @Test
    void theToolSaysCallsMayWaitForAHumanOnlyWhenATargetConfirmsAMethod() {
        String asking = KIND.tool(POLICY).describe().get("description").textValue();
        String quiet = KIND.tool(Policy.of(List.of(LOCAL, KEYED), List.of())).describe().get("description").textValue();
        assertTrue(asking.startsWith(quiet), asking);
        assertTrue(asking.endsWith(ToolCatalog.WAITS_FOR_A_HUMAN), asking);
        assertEquals("Send one HTTP request to a target the operator allows. Postern adds credentials itself; "
                + "redirects are returned, not followed. Call postern_targets to see what is allowed. "
                + "A body too large for the result as text comes back base64 (bodyEncoding says which); a body of up to "
                + "3000000 bytes within the target's maxResponseBytes always comes back whole, and one "
                + "past what a result can carry is cut to fit with truncated: true.", quiet);
    }
}
