package dev.postern.app.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.policy.model.ParamSpec;
import java.net.InetAddress;
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
        assertEquals("is a string with no pattern or enum", DeepCheck.optionShaped(new ParamSpec.StringParam(Optional.empty(), Optional.empty(), 64)));
        assertEquals("has a pattern that accepts \"-x\"", DeepCheck.optionShaped(string("^-?[a-z]+$")));
        assertEquals("has a pattern that accepts \"-\"", DeepCheck.optionShaped(string(".*")));
        assertEquals("may be negative (minimum -3)", DeepCheck.optionShaped(new ParamSpec.IntegerParam(-3, 3)));
        assertNull(DeepCheck.optionShaped(string("^[a-z][a-z-]*$")));
        assertNull(DeepCheck.optionShaped(string("^/var/log/[a-z]+\\.log$")));
        assertNull(DeepCheck.optionShaped(new ParamSpec.StringParam(Optional.empty(), Optional.of(List.of("-v", "-q")), 8)));
        assertNull(DeepCheck.optionShaped(new ParamSpec.IntegerParam(0, 10)));
    }

    private static ParamSpec string(String pattern) {
        return new ParamSpec.StringParam(Optional.of(Pattern.compile(pattern)), Optional.empty(), 64);
    }

    @Test
    void nonPublicAddressesAreTheLoopbackPrivateLinkLocalAndSharedRanges() throws Exception {
        for (String a : List.of("127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0",
                "::1", "fe80::1", "fd00::1")) {
            assertFalse(DeepCheck.isPublic(InetAddress.getByName(a)), a);
        }
        for (String a : List.of("1.1.1.1", "93.184.216.34", "2606:4700::1111")) {
            assertTrue(DeepCheck.isPublic(InetAddress.getByName(a)), a);
        }
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
