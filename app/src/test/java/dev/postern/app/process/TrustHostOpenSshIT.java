package dev.postern.app.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/postern trust-host} bootstrapping a host against a real OpenSSH sshd: the config has no
 * pin yet; stdout holds only the fingerprint and the known_hosts line, stderr a clean explanation
 * without the SSH library's warning; the printed line, once pinned, is what the deep connect check accepts.
 */
class TrustHostOpenSshIT {
    @TempDir
    Path dir;

    private OpenSshd sshd;
    private Path config;

    @BeforeEach
    void start() throws Exception {
        sshd = OpenSshd.start(dir);
        Path key = Files.writeString(dir.resolve("id"), "not used: trust-host never logs in\n");
        Files.setPosixFilePermissions(key, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        config = dir.resolve("postern.json");
        Files.writeString(config, hostConfig(""));
    }

    private String hostConfig(String pin) {
        return """
                { "journal": { "directory": "./journal" },
                  "credentials": { "key": { "file": "./id" } },
                  "ssh": { "hosts": [ { "name": "box", "address": "127.0.0.1", "port": %d, "user": "deploy",
                    "identity": "key", "timeoutSeconds": 10 %s,
                    "commands": [ { "name": "uptime", "argv": ["uptime"] } ] } ] } }
                """.formatted(sshd.port, pin);
    }

    @AfterEach
    void stop() throws Exception {
        if (sshd != null) {
            sshd.close();
        }
    }

    @Test
    void withNoPinItPrintsOnlyTheFingerprintAndTheLineToPinAndExplainsOnStderr() throws Exception {
        LauncherProcess p = LauncherProcess.run(List.of("trust-host", "--config", config.toString(), "box"), new byte[0], dir, Map.of());

        assertEquals(0, p.exitStatus, p.describe());
        String fingerprint = sshd.fingerprint();
        String hostPub = Files.readString(sshd.hostKey.resolveSibling("host_key.pub")).split("\\s+")[1];
        assertEquals("# " + fingerprint + "\n[127.0.0.1]:" + sshd.port + " ssh-ed25519 " + hostPub + "\n",
                new String(p.stdout, StandardCharsets.UTF_8), p.describe());
        assertTrue(p.stderrText().contains("\"hostKeyFingerprint\": \"" + fingerprint + "\""), p.describe());
        assertTrue(p.stderrText().contains("Nothing was trusted"), p.describe());
        assertFalse(p.stderrText().contains("WARN"), "no warning from the SSH library: " + p.describe());
        assertFalse(p.stderrText().contains("did not validate"), p.describe());
        assertTrue(sshd.logLines().stream().noneMatch(l -> l.startsWith("Accepted ") || l.contains("Failed ")), "no login attempted");
        assertFalse(Files.exists(dir.resolve("journal")), "trust-host writes no journal");
    }

    @Test
    void thePrintedLinePinnedInKnownHostsPassesTheDeepConnectCheckAndAWrongPinFailsIt() throws Exception {
        LauncherProcess trust = LauncherProcess.run(List.of("trust-host", "--config", config.toString(), "box"), new byte[0], dir, Map.of());
        // stdout appended to known_hosts as it is (`>> known_hosts`) pins the host.
        assertEquals(0, trust.exitStatus, trust.describe());
        Files.write(dir.resolve("known_hosts"), trust.stdout);
        Files.writeString(config, hostConfig(", \"knownHosts\": \"./known_hosts\""));

        LauncherProcess pinned = LauncherProcess.run(List.of("check-config", "--deep", "--connect", "--config", config.toString()),
                new byte[0], dir, Map.of());

        assertEquals(0, pinned.exitStatus, pinned.describe());
        assertTrue(new String(pinned.stdout, StandardCharsets.UTF_8).contains("deep check with connections: no findings"), pinned.describe());

        Files.writeString(config, hostConfig(", \"hostKeyFingerprint\": \"SHA256:" + "A".repeat(43) + "\""));
        LauncherProcess wrong = LauncherProcess.run(List.of("check-config", "--deep", "--connect", "--config", config.toString()),
                new byte[0], dir, Map.of());

        assertEquals(6, wrong.exitStatus, wrong.describe());
        assertTrue(new String(wrong.stdout, StandardCharsets.UTF_8).contains("error [host-key-not-pinned] /ssh/hosts/0: host box offered "
                + sshd.fingerprint() + ", which is not the pinned SHA256:" + "A".repeat(43)), wrong.describe());
        assertFalse(wrong.stderrText().contains("WARN"), wrong.describe());
    }
}
