package dev.postern.policy;

import static dev.postern.policy.TestPolicies.denied;
import static dev.postern.policy.TestPolicies.get;
import static dev.postern.policy.TestPolicies.httpEngine;
import static dev.postern.policy.TestPolicies.permittedHttp;
import static dev.postern.policy.TestPolicies.request;
import static dev.postern.policy.TestPolicies.target;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.postern.policy.action.HeaderField;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The HTTP rules at their edges, through {@link PolicyEngine#decide}: the URL length limit exactly,
 * the first and last characters a URL may not hold, a backslash as the very first character, a
 * trailing host dot with and without a query, spaces in header values and names, and the
 * method list a denial names.
 */
class HttpRulesEdgesTest {
    private static final PolicyEngine API = httpEngine(
            target("api", "https://api.example.com", Set.of("HEAD", "GET"), List.of("/repos/"), Set.of("Accept")));
    private static final PolicyEngine LOCAL = httpEngine(
            target("local", "http://127.0.0.1:8080", Set.of("GET"), List.of("/v1"), Set.of()));

    private static String urlOfLength(int length) {
        String start = "https://api.example.com/repos/";
        return start + "a".repeat(length - start.length());
    }

    @Test
    void aUrlOfExactlyTheLimitIsJudgedAndOneCharacterMoreIsRefused() {
        String atLimit = urlOfLength(HttpRules.MAX_URL_LENGTH);
        assertEquals(atLimit.replace("api.example.com/", "api.example.com:443/"),
                permittedHttp(API.decide(get(atLimit))).uri().toString());
        Decision.Deny deny = denied(API.decide(get(urlOfLength(HttpRules.MAX_URL_LENGTH + 1))));
        assertEquals("http.url.syntax", deny.rule());
        assertEquals("url is longer than 8192 characters", deny.reason());
    }

    @ParameterizedTest
    @ValueSource(strings = {"https://api.example.com/repos/a b", "https://api.example.com/repos/a\u007fb",
        "https://api.example.com/repos/a\u001fb"})
    void aSpaceOrControlCharacterInAUrlIsRefusedAsNotPrintable(String url) {
        Decision.Deny deny = denied(API.decide(get(url)));
        assertEquals("http.url.syntax", deny.rule());
        assertEquals("url must be printable ASCII without spaces (percent-encode the rest)", deny.reason());
    }

    @ParameterizedTest
    @ValueSource(strings = {"\\\\api.example.com\\repos\\x", "https://api.example.com/repos/a\\b"})
    void aBackslashAnywhereInAUrlIsRefusedByName(String url) {
        Decision.Deny deny = denied(API.decide(get(url)));
        assertEquals("http.url.syntax", deny.rule());
        assertEquals("url must not contain a backslash", deny.reason());
    }

    @ParameterizedTest
    @CsvSource({
        "http://127.0.0.1.:8080/v1?a=b, http://127.0.0.1:8080/v1?a=b",
        "http://127.0.0.1.:8080/v1, http://127.0.0.1:8080/v1",
        "http://127.0.0.1./v1/x?q=1, ''"})
    void aTrailingDotAfterAnAddressIsDroppedAndTheRestKeptExactly(String url, String expected) {
        Decision d = LOCAL.decide(get(url));
        if (expected.isEmpty()) {
            // Port 80, not the target's 8080: no target, but the URL itself was understood.
            assertEquals("http.target", denied(d).rule());
        } else {
            assertEquals(expected, permittedHttp(d).uri().toString());
        }
    }

    @Test
    void aHeaderValueMayHoldSpacesAndTabs() {
        AuthorizedHttpRequest permit = permittedHttp(API.decide(request("GET", "https://api.example.com/repos/x", List.of(),
                List.of(new HeaderField("Accept", "application/json, text/plain;\tq=0.5")))));
        assertEquals("application/json, text/plain;\tq=0.5", permit.headers().get(0).value());
    }

    @Test
    void aHeaderNameWithASpaceIsNamedAsTypedInTheDenial() {
        Decision.Deny deny = denied(API.decide(request("GET", "https://api.example.com/repos/x", List.of(),
                List.of(new HeaderField("X Y", "1")))));
        assertEquals("http.header.syntax", deny.rule());
        assertEquals("header name must be an RFC 9110 token, got \"X Y\"", deny.reason());
    }

    @Test
    void aMethodDenialNamesTheAllowedMethodsInOrder() {
        Decision.Deny deny = denied(API.decide(request("POST", "https://api.example.com/repos/x", List.of(), List.of())));
        assertEquals("http.method", deny.rule());
        assertEquals("target api allows methods [GET, HEAD], not POST", deny.reason());
    }
}
