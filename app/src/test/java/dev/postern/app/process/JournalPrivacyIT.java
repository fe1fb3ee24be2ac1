package dev.postern.app.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.fixtures.FakeHttpService;
import dev.postern.fixtures.GatewayProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal is private whatever the umask: the packaged gateway started under {@code umask 022}
 * makes its directory 0700 and every file in it 0600 (journals, rotated segments, lock files,
 * rate-limit counts); it makes an older 0644 journal private, refuses one others can write, and
 * {@code check-config --deep} reports both.
 */
class JournalPrivacyIT {
    @TempDir
    Path dir;

    FakeHttpService http;

    @BeforeEach
    void start() {
        http = FakeHttpService.start();
        http.respond("/v1/item", 200, Map.of(), "item".getBytes(StandardCharsets.UTF_8));
    }

    @AfterEach
    void stop() {
        http.close();
    }

    /** The launcher with {@code args}, started by a shell that sets umask 022 first. */
    private LauncherProcess underUmask022(List<String> args, byte[] stdin) throws Exception {
        List<String> command = new ArrayList<>(List.of("sh", "-c", "umask 022; exec \"$0\" \"$@\""));
        command.addAll(GatewayProcess.launcherCommand(args));
        return LauncherProcess.exec(command, stdin, dir, Map.of());
    }

    private Path config() throws Exception {
        return Files.writeString(dir.resolve("postern.json"), """
                {
                  "journal": { "directory": "journal", "rotateBytes": 4096 },
                  "http": { "targets": [
                    { "name": "loopback", "baseUrl": "%s", "methods": ["GET"], "pathPrefixes": ["/v1"],
                      "allowPrivateAddresses": true, "rateLimit": { "calls": 100, "perSeconds": 60 } } ] }
                }
                """.formatted(http.baseUri()));
    }

    private byte[] calls(int n) {
        StringBuilder in = new StringBuilder(SessionBehaviourIT.HANDSHAKE);
        for (int i = 0; i < n; i++) {
            in.append("{\"jsonrpc\":\"2.0\",\"id\":").append(i + 2).append(",\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
                    + "\"arguments\":{\"method\":\"GET\",\"url\":\"").append(http.baseUri()).append(i % 2 == 0 ? "/v1/item" : "/admin")
                    .append("?q=secret\"}}}\n");
        }
        return in.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    private static List<Path> files(Path journal) throws Exception {
        try (Stream<Path> all = Files.list(journal)) {
            return all.sorted().toList();
        }
    }

    private LauncherProcess serve(int calls) throws Exception {
        return underUmask022(List.of("mcp-stdio", "--config", config().toString()), calls(calls));
    }

    @Test
    void underUmask022TheDirectoryIs0700AndEveryFileInIt0600RotatedSegmentsAndLocksIncluded() throws Exception {
        LauncherProcess probe = LauncherProcess.exec(List.of("sh", "-c", "umask 022; umask"), new byte[0], dir, Map.of());
        assertEquals("0022", new String(probe.stdout, StandardCharsets.UTF_8).trim(), "the shell really runs under umask 022");

        LauncherProcess p = serve(40);
        assertEquals(0, p.exitStatus, p.describe());
        Path journal = dir.resolve("journal");
        assertEquals("rwx------", mode(journal));
        List<Path> files = files(journal);
        List<String> names = files.stream().map(f -> f.getFileName().toString()).toList();
        assertTrue(names.contains("actions.jsonl") && names.contains("decisions.jsonl") && names.contains("journal.lock"), names.toString());
        assertTrue(names.stream().anyMatch(n -> n.matches("actions\\.[0-9]{6}\\.jsonl")), "the journal rotated: " + names);
        assertTrue(names.stream().anyMatch(n -> n.startsWith("rate-limits.")), "the rate-limit counts are kept here: " + names);
        for (Path f : files) {
            assertEquals("rw-------", mode(f), f.toString());
        }
    }

    @Test
    void anOlder0644JournalIsMadePrivateAndTheOperatorTold() throws Exception {
        assertEquals(0, serve(2).exitStatus);
        Path journal = dir.resolve("journal");
        Path actions = journal.resolve("actions.jsonl");
        Files.setPosixFilePermissions(journal, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(actions, PosixFilePermissions.fromString("rw-r--r--"));

        LauncherProcess deep = underUmask022(List.of("check-config", "--deep", "--config", config().toString()), new byte[0]);
        String report = new String(deep.stdout, StandardCharsets.UTF_8);
        assertEquals(0, deep.exitStatus, "warnings alone: " + deep.describe() + report);
        assertTrue(report.contains("warning [journal-readable-by-others] /journal/directory: " + actions
                + " is readable by group or others (rw-r--r--); the gateway makes it private when it starts"), report);
        assertTrue(report.contains("warning [journal-readable-by-others] /journal/directory: " + journal + " is readable"), report);

        LauncherProcess p = serve(2);
        assertEquals(0, p.exitStatus, p.describe());
        assertTrue(p.stderrText().contains(actions + " was readable by group or others (rw-r--r--); made rw-------"), p.describe());
        assertEquals("rw-------", mode(actions));
        assertEquals("rwx------", mode(journal));
    }

    @Test
    void aJournalFileOrDirectoryOthersCanWriteIsRefusedNamingIt() throws Exception {
        assertEquals(0, serve(2).exitStatus);
        Path journal = dir.resolve("journal");
        Path decisions = journal.resolve("decisions.jsonl");
        long size = Files.size(decisions);
        Files.setPosixFilePermissions(decisions, PosixFilePermissions.fromString("rw-rw-r--"));

        LauncherProcess deep = underUmask022(List.of("check-config", "--deep", "--config", config().toString()), new byte[0]);
        String report = new String(deep.stdout, StandardCharsets.UTF_8);
        assertEquals(6, deep.exitStatus, deep.describe() + report);
        assertTrue(report.contains("error [journal-writable-by-others] /journal/directory: " + decisions
                + " is writable by group or others (rw-rw-r--); the gateway would not start"), report);

        LauncherProcess refused = serve(2);
        assertEquals(5, refused.exitStatus, refused.describe());
        assertTrue(refused.stderrText().contains(decisions + " is writable by group or others (rw-rw-r--)"), refused.describe());
        assertEquals(0, refused.stdout.length, "nothing was answered");
        assertEquals(size, Files.size(decisions), "nothing was appended");
        assertEquals("rw-rw-r--", mode(decisions), "a file others could have changed is left as found, for the operator");

        Files.setPosixFilePermissions(decisions, PosixFilePermissions.fromString("rw-------"));
        Files.setPosixFilePermissions(journal, PosixFilePermissions.fromString("rwxrwxrwx"));
        LauncherProcess openDirectory = serve(2);
        assertEquals(5, openDirectory.exitStatus, openDirectory.describe());
        assertTrue(openDirectory.stderrText().contains(journal + " is writable by group or others (rwxrwxrwx)"), openDirectory.describe());
    }
}
