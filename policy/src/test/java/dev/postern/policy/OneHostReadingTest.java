package dev.postern.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import dev.postern.policy.model.Origin;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A target's baseUrl and a request URL read their host the same way (both through
 * {@code HostSyntax}): for every host in the table, either both are refused or both give the same
 * origin, so no target can be configured that no request could ever reach, and no request host is
 * read differently from the baseUrl written the same way.
 */
class OneHostReadingTest {
    static Stream<String> authorities() {
        List<String> hosts = List.of("example.com", "EXAMPLE.com", "Example.COM.", "example.com..", "a", "1", "123",
                "2130706433", "127.0.0.1", "127.0.0.1.", "127.0.0.1..", "127.000.0.1", "0177.0.0.1", "127.1", "0x7f.0.0.1",
                "0x7f000001", "256.1.1.1", "01.2.3.4", "a.1", "a.b1", "-a.example", "a_b.example",
                "xn--bcher-kva.example", "bücher.example", "BÜCHER.example.", "bad_host_ü.example", "127。0。0。1",
                "[::1]", "[::1%25eth0]", "[FE80::1]", "[::ffff:1.2.3.4]", "a".repeat(63) + ".example",
                "a".repeat(64) + ".example", "LOCALHOST.", "0", "0x", "a..b");
        List<String> out = new ArrayList<>();
        for (String h : hosts) {
            for (String scheme : List.of("http", "HTTPS")) {
                for (String port : List.of("", ":8080", ":")) {
                    out.add(scheme + "://" + h + port);
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest
    @MethodSource("authorities")
    void aBaseUrlAndARequestUrlWithTheSameAuthorityGiveTheSameOriginOrAreBothRefused(String authority) {
        Origin base;
        try {
            base = Origin.parseBaseUrl(authority);
        } catch (IllegalArgumentException e) {
            assertThrows(HttpRules.Refusal.class, () -> HttpRules.canonicalize(authority + "/p"),
                    "refused as a baseUrl (" + e.getMessage() + ") but read as a request host");
            return;
        }
        try {
            assertEquals(base, HttpRules.canonicalize(authority + "/p").origin());
        } catch (HttpRules.Refusal r) {
            fail("accepted as a baseUrl (" + base + ") but refused as a request host: " + r.rule + ": " + r.getMessage());
        }
    }
}
