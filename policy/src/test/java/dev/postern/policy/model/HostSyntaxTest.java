package dev.postern.policy.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.URI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The one host canonicalization, as a table: each host as {@link URI#getHost()} gives it, and its
 * canonical form or the reason it is refused. {@code OneHostReadingTest} shows that a baseUrl and a
 * request URL are read by it alike.
 */
class HostSyntaxTest {
    private static final String IPV4 = "IPv4 addresses must be four decimal parts without leading zeros";
    private static final String NAME = "host must be an ASCII host name (IDNA form for others)";

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "example.com|example.com",
        "EXAMPLE.COM|example.com",
        "Api.Example.Com|api.example.com",
        "example.com.|example.com",
        "Example.COM.|example.com",
        "localhost|localhost",
        "a|a",
        "a-b.example|a-b.example",
        "a--b.example|a--b.example",
        "1a.example|1a.example",
        "a.b1|a.b1",
        "xn--bcher-kva.example|xn--bcher-kva.example",
        "XN--BCHER-KVA.EXAMPLE|xn--bcher-kva.example",
        "127.0.0.1|127.0.0.1",
        "127.0.0.1.|127.0.0.1",
        "0.0.0.0|0.0.0.0",
        "255.255.255.255|255.255.255.255",
        "[::1]|::1",
        "[FE80::1]|fe80::1",
        "[0:0:0:0:0:0:0:1]|0:0:0:0:0:0:0:1",
        "[::FFFF:1.2.3.4]|::ffff:1.2.3.4"})
    void aHostIsLowerCasedWithoutItsTrailingDotOrBrackets(String uriHost, String canonical) {
        assertEquals(canonical, HostSyntax.canonical(uriHost));
    }

    @Test
    void labelsOfSixtyThreeCharactersAreTheLongestNames() {
        String label = "a".repeat(63);
        assertEquals(label + ".example", HostSyntax.canonical(label.toUpperCase() + ".example"));
        assertEquals(NAME, assertThrows(IllegalArgumentException.class,
                () -> HostSyntax.canonical("a" + label + ".example")).getMessage());
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', value = {
        "[::1%25eth0]|IPv6 zone ids are not allowed",
        "[fe80::1%eth0]|IPv6 zone ids are not allowed",
        "[|an IPv6 address must be one literal in brackets",
        "[]|an IPv6 address must be one literal in brackets",
        "[::1|an IPv6 address must be one literal in brackets",
        "1|" + IPV4,
        "0|" + IPV4,
        "2130706433|" + IPV4,
        "127.1|" + IPV4,
        "127.0.1|" + IPV4,
        "127.000.0.1|" + IPV4,
        "0177.0.0.1|" + IPV4,
        "01.2.3.4|" + IPV4,
        "0x7f.0.0.1|" + IPV4,
        "0x7f000001|" + IPV4,
        "0X1|" + IPV4,
        "0x|" + IPV4,
        "256.1.1.1|" + IPV4,
        "1.2.3.4.5|" + IPV4,
        "a.1|" + IPV4,
        "a.0x1|" + IPV4,
        "127.0.0.1..|" + NAME,
        "example.com..|" + NAME,
        "a..b|" + NAME,
        ".a|" + NAME,
        "-a.example|" + NAME,
        "a-.example|" + NAME,
        "a_b.example|" + NAME,
        "ex ample.com|" + NAME,
        "ex%41mple.com|" + NAME,
        "bücher.example|" + NAME,
        "127。0。0。1|" + NAME})
    void aHostThatIsNotCanonicalizableIsRefusedWithTheRuleItBreaks(String uriHost, String reason) {
        assertEquals(reason, assertThrows(IllegalArgumentException.class, () -> HostSyntax.canonical(uriHost)).getMessage());
    }

    @Test
    void anEmptyHostIsRefused() {
        assertEquals(NAME, assertThrows(IllegalArgumentException.class, () -> HostSyntax.canonical("")).getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "http://127.0.0.1./a?b#c|http://127.0.0.1/a?b#c",
        "http://127.0.0.1.:8080/a|http://127.0.0.1:8080/a",
        "http://127.0.0.1.:/a|http://127.0.0.1:/a",
        "https://10.0.0.1.|https://10.0.0.1"})
    void theTrailingDotTheUriParserCannotReadIsDroppedAndTheRestKept(String url, String expected) throws Exception {
        URI read = HostSyntax.withoutTrailingDot(new URI(url));
        assertEquals(expected, read.toString());
        assertEquals(expected.substring(expected.indexOf("//") + 2).split("[:/]")[0], read.getHost());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "http://example.com./a", "http://[::1]/a", "http://127.0.0.1/a", "http://127.0.0.1../a", "http://a_b/a", "mailto:x@y"})
    void aUriWithAHostOrWithoutThatOneDotIsReturnedAsItCame(String url) throws Exception {
        URI uri = new URI(url);
        assertSame(uri, HostSyntax.withoutTrailingDot(uri));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "example.com|example.com",
        "127.0.0.1|127.0.0.1",
        "::1|[::1]",
        "fe80::1|[fe80::1]",
        "[::1]|[::1]",
        "db.internal|db.internal"})
    void anIpv6LiteralIsBracketedBeforeAPortAndNothingElseIs(String host, String written) {
        assertEquals(written, HostSyntax.inAuthority(host));
    }
}
