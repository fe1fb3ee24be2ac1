package dev.postern.policy.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The model's numeric limits at their exact edges (both ends accepted, one past refused), NUL at the
 * very start of an argv element, duplicate command names, and where a non-ASCII URL is refused.
 */
class ModelBoundariesTest {
    private static final SshAuth AUTH = new SshAuth.Key(new CredentialRef("deploy-key"), Optional.empty());
    private static final Optional<String> FINGERPRINT = Optional.of("SHA256:" + "A".repeat(43));

    private static SshHost host(int port, List<SshCommandSpec> commands) {
        return new SshHost("web", "127.0.0.1", port, "deploy", AUTH, Optional.empty(), FINGERPRINT,
                Duration.ofSeconds(5), 1024, commands);
    }

    private static SshCommandSpec command(String name) {
        return new SshCommandSpec(name, List.of("uptime"), Map.of());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 22, 65535})
    void anSshPortFrom1To65535IsKept(int port) {
        assertEquals(port, host(port, List.of()).port());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, 65536})
    void anSshPortOutside1To65535IsRefused(int port) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> host(port, List.of()));
        assertEquals("host web: port must be 1..65535, got " + port, e.getMessage());
    }

    @Test
    void distinctCommandNamesOnOneHostAreKeptInOrder() {
        SshHost h = host(22, List.of(command("uptime"), command("df")));
        assertEquals(List.of("uptime", "df"), h.commands().stream().map(SshCommandSpec::name).toList());
    }

    @Test
    void aCommandNameDefinedTwiceOnOneHostIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> host(22, List.of(command("uptime"), command("df"), command("uptime"))));
        assertEquals("host web: command \"uptime\" is defined twice", e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"\0", "\0uptime", "up\0time", "uptime\0"})
    void anArgvElementHoldingNulAnywhereIsRefused(String element) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new SshCommandSpec("bad", List.of("echo", element), Map.of()));
        assertEquals("command bad: argv must not contain NUL", e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 65536})
    void aStringParamLengthFrom1To65536IsKept(int maxLength) {
        assertEquals(maxLength, new ParamSpec.StringParam(Optional.empty(), Optional.empty(), maxLength).maxLength());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, 65537})
    void aStringParamLengthOutside1To65536IsRefused(int maxLength) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ParamSpec.StringParam(Optional.empty(), Optional.empty(), maxLength));
        assertEquals("maxLength must be 1..65536, got " + maxLength, e.getMessage());
    }

    @Test
    void anIntegerParamMayAllowExactlyOneValue() {
        ParamSpec.IntegerParam p = new ParamSpec.IntegerParam(7, 7);
        assertEquals(7, p.minimum());
        assertEquals(7, p.maximum());
        assertThrows(IllegalArgumentException.class, () -> new ParamSpec.IntegerParam(8, 7));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 80, 65535})
    void anOriginPortFrom1To65535IsKept(int port) {
        assertEquals(port, new Origin("https", "example.com", port).port());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, 65536})
    void anOriginPortOutside1To65535IsRefused(int port) {
        assertThrows(IllegalArgumentException.class, () -> new Origin("https", "example.com", port));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        // U+0080 is the first character that is not ASCII: in the path it must be percent-encoded.
        "http://b\u00fccher.example/\u0080|only the host may hold non-ASCII characters; percent-encode the rest",
        "http://b\u00fccher.example:8\u00e40/|only the host may hold non-ASCII characters; percent-encode the rest",
        "http://@b\u00fccher.example/|only a host name may hold non-ASCII characters",
        "http://user@b\u00fccher.example/|only a host name may hold non-ASCII characters",
        "http://[::1]/\u00fc|only a host name may hold non-ASCII characters",
        "http://:\u00fc/|only the host may hold non-ASCII characters; percent-encode the rest",
        "b\u00fccher.example/|a URL with non-ASCII characters must be absolute",
        "http://b\u00fccher\u3002127/|an internationalized host must be a domain name, not an address"})
    void aNonAsciiUrlIsRefusedForTheFirstRuleItBreaks(String url, String why) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HostSyntax.withAsciiHost(url));
        assertEquals(why, e.getMessage());
    }

    @Test
    void aUrlWithTheFirstNonAsciiControlCharacterInItsHostIsNotPassedThrough() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HostSyntax.withAsciiHost("http://a\u0080b.example/"));
        assertEquals("the host is not a valid internationalized domain name", e.getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "http://example.com/a?b#c|http://example.com/a?b#c",
        "https://b\u00fccher.example:8443/p|https://xn--bcher-kva.example:8443/p",
        "https://b\u00fccher.example|https://xn--bcher-kva.example",
        "://b\u00fccher.example/|://xn--bcher-kva.example/"})
    void onlyTheHostIsRewrittenAndAllAsciiUrlsAreUntouched(String url, String expected) {
        assertEquals(expected, HostSyntax.withAsciiHost(url));
    }
}
