package dev.postern.app.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.postern.fixtures.FakeHttpService;
import dev.postern.fixtures.StdoutTranscript;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher started as its own user, as README's "Run Postern as its own user" says: root (the
 * client here) creates the stdin/stdout/stderr pipes, {@code runuser} starts {@code bin/postern} as
 * a system user that alone can read the credential file, and stdout still carries only protocol
 * lines. Such a pipe cannot be reopened through {@code /proc/self/fd} by the other user, so this
 * proves the launcher's relay. Runs only as root with {@code useradd} and {@code runuser} (CI);
 * creates the user if missing and removes it again.
 */
class OwnUserIT {
    private static final String USER = "postern-it";
    private static final Path USERADD = Path.of("/usr/sbin/useradd");
    private static final Path USERDEL = Path.of("/usr/sbin/userdel");
    private static final Path RUNUSER = Path.of("/usr/sbin/runuser");
    private static final String SECRET = "own-user-token-5c1e";

    private static boolean created;

    @TempDir
    Path dir;

    @BeforeAll
    static void createTheUser() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")),
                "only root can create a user and start the gateway as it (CI runs as root)");
        assumeTrue(Files.isExecutable(USERADD) && Files.isExecutable(USERDEL) && Files.isExecutable(RUNUSER),
                "needs " + USERADD + ", " + USERDEL + " and " + RUNUSER + " (util-linux, passwd)");
        if (run("id", "-u", USER) != 0) {
            assertEquals(0, run(USERADD.toString(), "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER),
                    "useradd " + USER);
            created = true;
        }
    }

    @AfterAll
    static void removeTheUser() throws Exception {
        if (created) {
            run(USERDEL.toString(), USER);
        }
    }

    @Test
    void aGatewayRunAsItsOwnUserServesOverTheClientsPipes() throws Exception {
        try (FakeHttpService http = FakeHttpService.start()) {
            http.respond("/v1/hello", 200, Map.of(), "hello".getBytes(StandardCharsets.UTF_8));
            UserPrincipal postern = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(USER);
            Path home = installCopy();
            // The config and journal belong to the gateway's user; the credential file is readable by it alone.
            Path config = home.resolve("etc");
            Files.createDirectories(config.resolve("journal"));
            Files.setOwner(config.resolve("journal"), postern);
            Path token = Files.writeString(config.resolve("token"), SECRET);
            Files.setOwner(token, postern);
            Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("r--------"));
            Path file = Files.writeString(config.resolve("postern.json"), """
                    {
                      "journal": { "directory": "journal" },
                      "credentials": { "token": { "file": "token" } },
                      "http": { "targets": [
                        { "name": "loopback", "baseUrl": "%s", "methods": ["GET"], "pathPrefixes": ["/v1"],
                          "auth": { "credential": "token", "scheme": "bearer" },
                          "allowPrivateAddresses": true, "timeoutMs": 10000 } ] }
                    }
                    """.formatted(http.baseUri()));
            openUp(home);
            String input = SessionBehaviourIT.HANDSHAKE
                    + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n"
                    + "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
                    + "\"arguments\":{\"method\":\"GET\",\"url\":\"" + http.baseUri() + "/v1/hello\"}}}\n";

            // ProcessBuilder's pipes are root's, mode 0600: the gateway's user cannot reopen them.
            LauncherProcess p = LauncherProcess.exec(List.of(RUNUSER.toString(), "-u", USER, "--",
                            home.resolve("bin/postern").toString(), "mcp-stdio", "--config", file.toString()),
                    input.getBytes(StandardCharsets.UTF_8), dir,
                    Map.of("JAVA_HOME", System.getProperty("java.home")));

            List<JsonNode> messages = StdoutTranscript.assertProtocolOnly(p.stdout, String.join(" ", p.command), p.stderr);
            assertEquals(0, p.exitStatus, p.describe());
            assertEquals(3, messages.size(), p.describe());
            assertEquals(1, messages.get(0).get("id").asInt());
            assertEquals("postern", messages.get(0).get("result").get("serverInfo").get("name").asText(), messages.get(0).toString());
            List<String> tools = new ArrayList<>();
            messages.get(1).get("result").get("tools").forEach(t -> tools.add(t.get("name").asText()));
            assertEquals(List.of("http_request", "postern_targets"), tools.stream().sorted().toList(), messages.get(1).toString());
            assertFalse(messages.get(2).get("result").get("isError").asBoolean(), messages.get(2).toString());
            assertEquals("Bearer " + SECRET, http.takeRequest(java.time.Duration.ofSeconds(5)).header("Authorization").orElseThrow(),
                    "the gateway read the credential only its own user may read");
            assertEquals(postern, Files.getOwner(config.resolve("journal").resolve("actions.jsonl")),
                    "the gateway ran as " + USER);
        }
    }

    @Test
    void auditCommandsOnAJournalDirectoryTheUserCannotReadSaySoAndFailTheCheck() throws Exception {
        Path home = installCopy();
        openUp(home);
        Path journal = Files.createDirectories(dir.resolve("root-only-journal"));
        Files.writeString(journal.resolve("actions.jsonl"), "");
        Files.setPosixFilePermissions(journal, PosixFilePermissions.fromString("rwx--x--x")); // others may traverse, not list
        for (List<String> command : List.of(List.of("audit", "verify"), List.of("audit", "show"), List.of("audit", "show", "--follow"))) {
            List<String> argv = new ArrayList<>(List.of(RUNUSER.toString(), "-u", USER, "--", home.resolve("bin/postern").toString()));
            argv.addAll(command.subList(0, 2));
            argv.add(journal.toString());
            argv.addAll(command.subList(2, command.size()));
            LauncherProcess p = LauncherProcess.exec(argv, new byte[0], dir, Map.of("JAVA_HOME", System.getProperty("java.home")));
            assertEquals(6, p.exitStatus, p.describe());
            assertTrue(new String(p.stderr, StandardCharsets.UTF_8).contains("no journal here: " + journal
                    + " cannot be read by this user (" + USER + ")"), p.describe());
        }
    }

    /** bin/postern and the jar, laid out as the launcher expects, in a copy the gateway's user can read. */
    private Path installCopy() throws IOException {
        Path home = dir.resolve("postern");
        Files.createDirectories(home.resolve("bin"));
        Files.createDirectories(home.resolve("app/target"));
        Path jar = LauncherProcess.jar();
        Files.copy(LauncherProcess.launcher(), home.resolve("bin/postern"));
        Files.copy(jar, home.resolve("app/target").resolve(jar.getFileName()));
        return home;
    }

    /** Lets every user traverse the temporary directories and read the copy (the token keeps its own mode). */
    private void openUp(Path home) throws IOException {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        try (var paths = Files.walk(home)) {
            for (Path path : paths.toList()) {
                if (path.getFileName().toString().equals("token")) {
                    continue;
                }
                boolean executable = Files.isDirectory(path) || path.endsWith(Path.of("bin", "postern"));
                Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(executable ? "rwxr-xr-x" : "rw-r--r--"));
            }
        }
    }

    private static int run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish within 30 s");
        }
        return process.exitValue();
    }
}
