package dev.postern.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.app.ExitStatus;
import dev.postern.fixtures.FakeSshServer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code postern trust-host} against MINA's in-process server: it reports the key and trusts, writes and logs in to nothing. */
class TrustHostCommandTest {
    private FakeSshServer server;

    @TempDir
    Path dir;

    private Path config;
    private Path knownHosts;

    @BeforeEach
    void start() {
        server = FakeSshServer.start();
        config = dir.resolve("postern.json");
        knownHosts = dir.resolve("known_hosts");
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private void writeConfig(String hostKeyRule) throws Exception {
        Files.writeString(config, """
                { "journal": { "directory": "./journal" },
                  "credentials": { "key": { "file": "./id" } },
                  "ssh": { "hosts": [ { "name": "web", "address": "127.0.0.1", "port": %d, "user": "deploy",
                    "identity": "key", %s, "timeoutSeconds": 10,
                    "commands": [ { "name": "uptime", "argv": ["uptime"] } ] } ] } }
                """.formatted(server.port(), hostKeyRule));
    }

    @Test
    void printsTheFingerprintAndKnownHostsLineAndTrustsNothing() throws Exception {
        writeConfig("\"knownHosts\": \"./known_hosts\"");

        CliRun run = CliRun.of("trust-host", "--config", config.toString(), "web");

        assertEquals(ExitStatus.OK, run.exit, run.toString());
        assertTrue(run.out().contains("# " + server.hostKeyFingerprint() + "\n"), run.out());
        assertTrue(run.out().contains(server.knownHostsLine() + "\n"), run.out());
        assertEquals("# " + server.hostKeyFingerprint() + "\n" + server.knownHostsLine() + "\n",
                run.out(), "stdout carries only the result");
        assertTrue(run.err().contains("Nothing was trusted"), run.err());
        assertEquals(0, server.authCount(), "trust-host must never log in");
        assertEquals(0, server.commandCount());
        assertFalse(Files.exists(knownHosts), "trust-host must not write the known_hosts file");
        assertFalse(Files.exists(dir.resolve("journal")));
    }

    @Test
    void saysWhenTheKeyMatchesThePinnedFingerprint() throws Exception {
        writeConfig("\"hostKeyFingerprint\": \"" + server.hostKeyFingerprint() + "\"");
        CliRun run = CliRun.of("trust-host", "--config", config.toString(), "web");
        assertEquals(ExitStatus.OK, run.exit, run.toString());
        assertTrue(run.err().contains("matches the fingerprint the config already pins"), run.err());
        assertEquals(0, server.authCount());
    }

    @Test
    void warnsAndFailsWhenTheKeyDiffersFromThePin() throws Exception {
        String other = "SHA256:" + "B".repeat(43);
        writeConfig("\"hostKeyFingerprint\": \"" + other + "\"");
        CliRun run = CliRun.of("trust-host", "--config", config.toString(), "web");
        assertEquals(ExitStatus.CHECK_FAILED, run.exit, run.toString());
        assertTrue(run.err().contains("WARNING: this differs from the fingerprint the config pins (" + other + ")"), run.err());
        assertTrue(run.out().contains("# " + server.hostKeyFingerprint()), run.out());
        assertEquals(0, server.authCount());
    }

    @Test
    void worksBeforeAnyPinExistsAndSaysHowToPin() throws Exception {
        writeConfig("\"maxOutputBytes\": 1024");

        CliRun run = CliRun.of("trust-host", "--config=" + config, "web");

        assertEquals(ExitStatus.OK, run.exit, run.toString());
        assertEquals("# " + server.hostKeyFingerprint() + "\n" + server.knownHostsLine() + "\n",
                run.out());
        assertTrue(run.err().contains("\"hostKeyFingerprint\": \"" + server.hostKeyFingerprint() + "\""), run.err());
        assertEquals(0, server.authCount());
    }

    @Test
    void theBootstrapWaiverCoversOnlyTheNamedHostAndNeverTheGateway() throws Exception {
        writeConfig("\"maxOutputBytes\": 1024");

        CliRun check = CliRun.of("check-config", "--config", config.toString());
        CliRun other = CliRun.of("trust-host", "--config", config.toString(), "db");

        assertEquals(ExitStatus.CONFIG_ERROR, check.exit, check.toString());
        assertTrue(check.err().contains("needs knownHosts or hostKeyFingerprint"), check.err());
        assertEquals(ExitStatus.CONFIG_ERROR, other.exit, other.toString());
    }

    @Test
    void anUnknownHostNameIsAUsageErrorListingTheConfiguredHosts() throws Exception {
        writeConfig("\"knownHosts\": \"./known_hosts\"");
        CliRun run = CliRun.of("trust-host", "--config", config.toString(), "db");
        assertEquals(ExitStatus.USAGE, run.exit, run.toString());
        assertTrue(run.err().contains("no SSH host named \"db\"") && run.err().contains("configured hosts: web"), run.err());
        assertEquals("", run.out());
    }

    @Test
    void anUnreachableHostFailsTheCheckOnStderr() throws Exception {
        writeConfig("\"knownHosts\": \"./known_hosts\"");
        server.close();
        CliRun run = CliRun.of("trust-host", "--config", config.toString(), "web");
        assertEquals(ExitStatus.CHECK_FAILED, run.exit, run.toString());
        assertEquals("", run.out());
        assertTrue(run.err().contains("postern trust-host: web: "), run.err());
    }

    @Test
    void usageErrorsAndHelp() throws Exception {
        writeConfig("\"knownHosts\": \"./known_hosts\"");
        assertEquals(ExitStatus.USAGE, CliRun.of("trust-host", "--config", config.toString()).exit);
        assertEquals(ExitStatus.USAGE, CliRun.of("trust-host", "web").exit);
        assertEquals(ExitStatus.USAGE, CliRun.of("trust-host", "--config", config.toString(), "web", "db").exit);
        CliRun help = CliRun.of("trust-host", "--help");
        assertEquals(ExitStatus.OK, help.exit);
        assertTrue(help.out().startsWith("usage: postern trust-host --config FILE HOST"), help.out());
        assertTrue(help.out().contains("trusts nothing by itself"), help.out());
    }
}
