package dev.postern.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Origin;
import dev.postern.policy.model.Policy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Non-ASCII hosts are compared in their IDNA ASCII form, in requests and in a target's baseUrl. */
class IdnaHostTest {
    private static PolicyEngine engine(String baseUrl) {
        HttpTarget t = new HttpTarget("shop", Origin.parseBaseUrl(baseUrl), Set.of("GET"), List.of("/api"), Set.of(),
                Optional.empty(), Duration.ofSeconds(5), 1024, false);
        return new PolicyEngine(Policy.of(List.of(t), List.of()));
    }

    private static Decision get(PolicyEngine engine, String url) {
        return engine.decide(new HttpRequestAction("GET", url, List.of(), List.of(), Optional.empty()));
    }

    @Test
    void aUnicodeBaseUrlIsStoredInPunycode() {
        assertEquals("xn--bcher-kva.example", Origin.parseBaseUrl("https://bücher.example").host());
    }

    @ParameterizedTest
    @ValueSource(strings = {"https://bücher.example/api/x", "https://xn--bcher-kva.example/api/x", "https://BÜCHER.example/api/x"})
    void unicodeAndPunycodeSpellingsOfOneHostMatchOneTarget(String url) {
        Decision d = get(engine("https://bücher.example"), url);
        assertEquals("https://xn--bcher-kva.example:443/api/x",
                ((AuthorizedHttpRequest) assertInstanceOf(Decision.Permit.class, d).permit()).uri().toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"https://bücher.example/api/é", "https://usér@bücher.example/api", "https://bücher.example/api?q=é"})
    void nonAsciiOutsideTheHostIsRefused(String url) {
        Decision.Deny deny = assertInstanceOf(Decision.Deny.class, get(engine("https://bücher.example"), url));
        assertEquals("http.url.syntax", deny.rule());
    }

    @Test
    void aLookAlikeHostDoesNotMatch() {
        // Cyrillic "а" (U+0430) in place of Latin "a": a different IDNA name, so no target.
        Decision.Deny deny = assertInstanceOf(Decision.Deny.class, get(engine("https://paypal.example"), "https://p\u0430ypal.example/api"));
        assertEquals("http.target", deny.rule());
    }

    @Test
    void anInvalidInternationalNameIsRefusedAtLoad() {
        assertThrows(IllegalArgumentException.class, () -> Origin.parseBaseUrl("https://bad_host_ü.example"));
    }
}
