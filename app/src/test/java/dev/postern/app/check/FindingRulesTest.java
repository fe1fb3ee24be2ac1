package dev.postern.app.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.policy.model.ParamSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The small judgements behind the deep-check findings, each against an outside reference where one exists. */
class FindingRulesTest {
    @TempDir
    Path dir;

    @Test
    void aParameterIsOptionShapedUnlessItsPatternEnumOrMinimumRulesOutALeadingDash() {
        assertEquals("is a string with no pattern or enum", SshHostCheck.optionShaped(new ParamSpec.StringParam(Optional.empty(), Optional.empty(), 64)));
        assertEquals("has a pattern that accepts \"-x\"", SshHostCheck.optionShaped(string("^-?[a-z]+$")));
        assertEquals("has a pattern that accepts \"-\"", SshHostCheck.optionShaped(string(".*")));
        assertEquals("may be negative (minimum -3)", SshHostCheck.optionShaped(new ParamSpec.IntegerParam(-3, 3)));
        assertNull(SshHostCheck.optionShaped(string("^[a-z][a-z-]*$")));
        assertNull(SshHostCheck.optionShaped(string("^/var/log/[a-z]+\\.log$")));
        assertNull(SshHostCheck.optionShaped(new ParamSpec.StringParam(Optional.empty(), Optional.of(List.of("-v", "-q")), 8)));
        assertNull(SshHostCheck.optionShaped(new ParamSpec.IntegerParam(0, 10)));
    }

    private static ParamSpec string(String pattern) {
        return new ParamSpec.StringParam(Optional.of(Pattern.compile(pattern)), Optional.empty(), 64);
    }

    @Test
    void addressesAreJudgedByTheExecutorsTableNotAnApproximation() {
        // Without the opt-in: every non-public row of AddressRanges, the ranges the old approximation
        // called public (documentation, benchmarking, reserved) included; cloud metadata has its own id.
        for (String a : List.of("127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "100.64.0.1", "0.0.0.0",
                "192.0.2.1", "198.18.0.1", "240.0.0.1", "::1", "fe80::1", "fd00::1", "2001:db8::1")) {
            assertEquals(List.of("private-address-without-opt-in"), ids(a, false), a);
            assertEquals(List.of(), ids(a, true), a + " with the opt-in");
        }
        for (String a : List.of("169.254.169.254", "fd00:ec2::254")) {
            assertEquals(List.of("metadata-address"), ids(a, false), a);
            assertEquals(List.of("metadata-address"), ids(a, true), a + ": the opt-in does not reach cloud metadata");
        }
        for (String a : List.of("1.1.1.1", "93.184.216.34", "2606:4700::1111")) {
            assertEquals(List.of(), ids(a, false), a);
        }
    }

    private static List<String> ids(String address, boolean allowPrivateAddresses) {
        return AddressFindings.judged(address, allowPrivateAddresses, HostNames.ALL, "/x", "target", "t").stream()
                .map(Finding::id).toList();
    }

    @Test
    void theMessageSaysWhatTheAddressIsAndHowToOptIn() {
        assertEquals("error [private-address-without-opt-in] /sql/databases/0/host: database shop: 127.0.0.1 is a non-public"
                        + " address; calls are refused at connect time unless the database says \"allowPrivateAddresses\": true",
                AddressFindings.judged("127.0.0.1", false, HostNames.ALL, "/sql/databases/0/host", "database", "shop").get(0).line());
        assertEquals("error [metadata-address] /http/targets/0/baseUrl: target meta: 169.254.169.254 is in 169.254.169.254/32"
                        + " (cloud metadata: AWS, GCP, Azure, OCI and others), which calls never reach, \"allowPrivateAddresses\" or not",
                AddressFindings.judged("169.254.169.254", true, HostNames.ALL, "/http/targets/0/baseUrl", "target", "meta").get(0).line());
    }

    @Test
    void onlyTheNamesAskedForAreResolved() {
        assertEquals(List.of(), AddressFindings.judged("127.0.0.1", false, HostNames.DNS, "/x", "target", "t"));
        assertEquals(List.of(), AddressFindings.judged("no-such-host.invalid", false, HostNames.LITERAL, "/x", "target", "t"));
        assertEquals("address-unresolved",
                AddressFindings.judged("no-such-host.invalid", false, HostNames.DNS, "/x", "target", "t").get(0).id());
    }

    @Test
    void aHostHashedByOpenSshIsMatchedAndAnotherHostIsNot() throws Exception {
        Path knownHosts = Files.writeString(dir.resolve("known_hosts"),
                "[127.0.0.1]:2222 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKn8+/b4wtbSEYm6f9JVd+0Pcv0n7jAB8dlsvPYvCeQT\n");
        Process keygen = new ProcessBuilder("ssh-keygen", "-H", "-f", knownHosts.toString()).redirectErrorStream(true).start();
        keygen.getInputStream().readAllBytes();
        org.junit.jupiter.api.Assumptions.assumeTrue(keygen.waitFor() == 0, "ssh-keygen -H is needed for this test");
        String hashed = Files.readString(knownHosts, StandardCharsets.UTF_8).split("\\s+")[0];

        assertTrue(hashed.startsWith("|1|"), hashed);
        assertTrue(KnownHosts.hostMatches(hashed, "[127.0.0.1]:2222"));
        assertFalse(KnownHosts.hostMatches(hashed, "[127.0.0.1]:2223"));
        assertTrue(KnownHosts.hostMatches("web,[127.0.0.1]:2222", "[127.0.0.1]:2222"));
        assertFalse(KnownHosts.hostMatches("web", "[127.0.0.1]:2222"));
        assertTrue(KnownHosts.hostMatches("*.example.com", "web.example.com"));
        assertFalse(KnownHosts.hostMatches("*.example.com,!db.example.com", "db.example.com"));
        assertTrue(KnownHosts.hostMatches("10.0.0.?", "10.0.0.5"));
    }

    @Test
    void aFindingIdIsLowerCaseWordsAndTheLineShowsSeverityIdAndPlace() {
        assertEquals("warning [address-unresolved] /x: y", Finding.warning("address-unresolved", "/x", "y").line());
        assertThrows(IllegalArgumentException.class, () -> Finding.error("Bad Id", "/x", "y"));
    }
}
