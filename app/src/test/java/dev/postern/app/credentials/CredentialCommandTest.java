package dev.postern.app.credentials;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.app.config.CredentialSource;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.port.CredentialUnavailableException;
import dev.postern.policy.port.Secret;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code command} credential run by real {@code /bin/sh} scripts: its stdout is the secret with
 * one line end stripped; no shell reads the argv; it sees only the inherited variables and a closed
 * stdin; a failure, an empty or oversized output and a timeout (which kills the whole tree) each say
 * what went wrong, naming the credential and the program and never a byte of stdout or stderr.
 */
class CredentialCommandTest {
    private static final String VALUE = "cmd-S3cret-Value-7e1d";
    private static final CredentialRef DB = new CredentialRef("db-password");

    @TempDir
    Path dir;

    private final Map<String, String> environment = Map.of(
            "PATH", "/usr/bin:/bin", "HOME", "/home/operator", "GNUPGHOME", "/home/operator/.gnupg",
            "GITHUB_TOKEN", "ghp_not-for-the-command", "LD_PRELOAD", "/tmp/evil.so");

    private Path script(String name, String body) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, "#!/bin/sh\n" + body + "\n", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwx------"));
        return f;
    }

    private static CredentialSource.Command command(Duration timeout, String... argv) {
        return new CredentialSource.Command(List.of(argv), timeout, Duration.ofSeconds(300));
    }

    private static CredentialSource.Command command(String... argv) {
        return command(Duration.ofSeconds(20), argv);
    }

    private CredentialCommand runner() {
        return new CredentialCommand(environment::get);
    }

    private static void assertShowsNothingOf(String text, String... values) {
        for (String v : values) {
            assertFalse(text.contains(v), "must not show \"" + v + "\": " + text);
        }
    }

    @Test
    void itsStdoutIsTheSecretWithOneTrailingLineEndStripped() throws Exception {
        Path s = script("print", "printf '%s\\n\\n' '" + VALUE + "'");
        Path crlf = script("crlf", "printf '%s\\r\\n' '" + VALUE + "'");
        Path none = script("none", "printf '%s' '" + VALUE + "'");

        assertEquals(VALUE + "\n", runner().run(DB, command(s.toString())).revealAsString(), "only one line end goes");
        assertEquals(VALUE, runner().run(DB, command(crlf.toString())).revealAsString());
        assertEquals(VALUE, runner().run(DB, command(none.toString())).revealAsString());
    }

    @Test
    void theArgvReachesTheProgramAsItIsWithNoShellInBetween() throws Exception {
        Path args = script("args", "for a in \"$@\"; do printf '[%s]' \"$a\"; done");

        Secret got = runner().run(DB, command(args.toString(), "$HOME", "a b", "; rm -rf /", "`id`", ""));

        assertEquals("[$HOME][a b][; rm -rf /][`id`][]", got.revealAsString());
    }

    @Test
    void aBareNameIsFoundOnThePathAndRunsWithOnlyTheInheritedVariables() throws Exception {
        Secret got = new CredentialCommand(environment::get).run(DB, command("env"));

        Set<String> names = Set.copyOf(got.revealAsString().lines().map(l -> l.substring(0, l.indexOf('='))).toList());
        assertEquals(Set.of("PATH", "HOME", "GNUPGHOME"), names, got.revealAsString());
        assertTrue(CredentialSource.Command.INHERITED_ENV.containsAll(names));
    }

    @Test
    void itsStdinIsClosedSoACommandThatReadsItSeesTheEndAtOnce() throws Exception {
        Path reads = script("reads", "if read -r line; then echo \"read:$line\"; else echo eof; fi");

        assertEquals("eof", runner().run(DB, command(reads.toString())).revealAsString());
    }

    @Test
    void aNonZeroExitNamesTheCredentialAndProgramButNeitherStreamNorAnArgument() throws Exception {
        Path fails = script("fails", "printf '%s' '" + VALUE + "'; echo \"token was " + VALUE + "\" >&2; exit 3");

        CredentialCommand.Failed e = assertThrows(CredentialCommand.Failed.class,
                () -> runner().run(DB, command(fails.toString(), "--token-arg-x9")));

        assertEquals(CredentialCommand.Reason.FAILED, e.reason());
        assertEquals("credential db-password: its command failed", e.getMessage(), "the agent learns no path");
        assertTrue(e.detail().startsWith("credential db-password: command " + fails + " exited with status 3"), e.detail());
        assertTrue(e.detail().contains("bytes to stderr, not shown"), e.detail());
        assertShowsNothingOf(e.getMessage() + e.detail(), VALUE, "token was", "--token-arg-x9");
        CredentialUnavailableException u = e.unavailable();
        assertEquals(e.getMessage(), u.getMessage());
        assertEquals(e.detail(), u.detail());
    }

    @Test
    void aCommandThatPrintsNothingGivesNoSecret() throws Exception {
        Path silent = script("silent", "echo");

        CredentialCommand.Failed e = assertThrows(CredentialCommand.Failed.class, () -> runner().run(DB, command(silent.toString())));

        assertEquals(CredentialCommand.Reason.FAILED, e.reason());
        assertTrue(e.detail().contains("printed nothing"), e.detail());
    }

    @Test
    void anOutputPastTheBoundFailsRatherThanBeingCut() throws Exception {
        Path big = script("big", "head -c " + (CredentialCommand.MAX_OUTPUT_BYTES + 1) + " /dev/zero | tr '\\0' x; sleep 30");

        CredentialCommand.Failed e = assertThrows(CredentialCommand.Failed.class, () -> runner().run(DB, command(big.toString())));

        assertEquals(CredentialCommand.Reason.FAILED, e.reason());
        assertTrue(e.detail().contains("printed more than 65536 bytes"), e.detail());
    }

    @Test
    void pastItsTimeoutTheCommandAndEveryProcessItStartedAreKilled() throws Exception {
        Path pids = dir.resolve("pids");
        Path hangs = script("hangs", "sleep 120 & echo $! > " + pids + "; echo $$ >> " + pids + "; wait");

        CredentialCommand.Failed e = assertThrows(CredentialCommand.Failed.class,
                () -> runner().run(DB, command(Duration.ofMillis(1500), hangs.toString())));

        assertEquals(CredentialCommand.Reason.TIMED_OUT, e.reason());
        assertTrue(e.detail().contains("did not finish within 1500 ms and was killed"), e.detail());
        List<Long> started = Files.readAllLines(pids).stream().map(Long::parseLong).toList();
        assertEquals(2, started.size(), "the script and its sleep");
        for (long pid : started) {
            ProcessHandle.of(pid).ifPresent(h -> h.onExit().orTimeout(10, java.util.concurrent.TimeUnit.SECONDS).join());
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "pid " + pid + " still runs");
        }
    }

    @Test
    void aProgramNotOnThePathOrNotExecutableIsNotFound() throws Exception {
        Path plain = Files.writeString(dir.resolve("not-executable"), "#!/bin/sh\necho x\n");

        CredentialCommand.Failed missing = assertThrows(CredentialCommand.Failed.class,
                () -> runner().run(DB, command("postern-no-such-program")));
        CredentialCommand.Failed notExecutable = assertThrows(CredentialCommand.Failed.class,
                () -> runner().run(DB, command(plain.toString())));

        assertEquals(CredentialCommand.Reason.NOT_FOUND, missing.reason());
        assertEquals("credential db-password: command postern-no-such-program is not found on PATH", missing.detail());
        assertEquals(CredentialCommand.Reason.NOT_FOUND, notExecutable.reason());
        assertEquals("credential db-password: command " + plain + " is not an executable file", notExecutable.detail());
    }

    @Test
    void theStoreResolvesACommandCredentialAndMasksWithIt() throws Exception {
        Path s = script("print", "printf '%s\\n' '" + VALUE + "'");
        EnvironmentAndFileCredentialStore store = new EnvironmentAndFileCredentialStore(
                Map.of(DB, command(s.toString())), environment::get);

        assertArrayEquals(VALUE.getBytes(StandardCharsets.UTF_8), store.resolve(DB).reveal());
        assertEquals(Set.of(Secret.of(VALUE)), store.all());
    }

    @Test
    void theStoreReportsAFailedCommandAsAnUnavailableCredential() throws Exception {
        Path fails = script("fails", "echo '" + VALUE + "' >&2; exit 1");
        EnvironmentAndFileCredentialStore store = new EnvironmentAndFileCredentialStore(
                Map.of(DB, command(fails.toString())), environment::get);

        CredentialUnavailableException e = assertThrows(CredentialUnavailableException.class, () -> store.resolve(DB));

        assertEquals("credential db-password: its command failed", e.getMessage());
        assertTrue(e.detail().contains("exited with status 1"), e.detail());
        assertShowsNothingOf(e.getMessage() + e.detail(), VALUE);
        assertEquals(Set.of(), store.all(), "nothing to mask from a command that failed");
    }

    @Test
    void readmeNamesEveryVariableTheCommandSees() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        int at = readme.indexOf("and it sees only these variables of the gateway's environment");
        assertTrue(at >= 0, "README says which variables a command credential sees");
        String passage = readme.substring(at, readme.indexOf("nothing\n  else", at));
        for (String name : CredentialSource.Command.INHERITED_ENV) {
            assertTrue(passage.contains("`" + name + "`"), "README's list lacks " + name);
        }
        assertEquals(CredentialSource.Command.INHERITED_ENV.size(), passage.split("`[A-Z_]+`", -1).length - 1,
                "README lists exactly the inherited variables: " + passage);
    }
}
