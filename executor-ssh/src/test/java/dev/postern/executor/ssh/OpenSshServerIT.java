package dev.postern.executor.ssh;

import dev.postern.fixtures.InMemoryCredentials;
import static dev.postern.executor.ssh.SshOutcomes.assertFailure;
import static dev.postern.executor.ssh.SshOutcomes.exited;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.postern.policy.AuthorizedSshCommand;
import dev.postern.policy.Decision;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.action.Argument;
import dev.postern.policy.action.SshCommandAction;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SshAuth;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.SshExitOutcome;
import dev.postern.policy.port.Cancellation;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;
import org.junit.jupiter.api.io.TempDir;

/**
 * The executor against a real OpenSSH {@code sshd} on loopback: each test starts its own sshd with
 * a freshly generated ed25519 host key, an ed25519 client key in its authorized_keys and a locked-down
 * config, all in a temporary directory, and stops it afterwards. It fails, rather than skips, when
 * {@code /usr/sbin/sshd} is missing and {@code CI=true}; elsewhere a missing sshd skips it.
 */
class OpenSshServerIT {
    private static final Path SSHD = Path.of("/usr/sbin/sshd");
    private static final Duration START_LIMIT = Duration.ofSeconds(10);
    private static final Duration LOG_LIMIT = Duration.ofSeconds(10);
    private static final String USER = System.getProperty("user.name");
    private static final String HOST = "openssh";
    private static final Pattern ACCEPTED_LOGIN = Pattern.compile("^Accepted [a-z-]+ for ");

    @TempDir
    Path dir;

    @RegisterExtension
    final SshdLogOnFailure sshdLog = new SshdLogOnFailure();

    private int port;
    private Path log;
    private Process sshd;
    private Path hostKey;
    private SshActionExecutor executor;

    @BeforeAll
    static void sshdIsInstalled() {
        boolean installed = Files.isExecutable(SSHD);
        if (!installed && "true".equals(System.getenv("CI"))) {
            fail(SSHD + " is missing and CI=true: install Debian's openssh-server (.ci/run does) so this test runs");
        }
        assumeTrue(installed, SSHD + " is missing; install openssh-server to run the OpenSSH integration tests");
    }

    @BeforeEach
    void startSshd() throws IOException, InterruptedException {
        hostKey = keygen("host_key");
        Path clientKey = keygen("client_key");
        Files.copy(pub(clientKey), dir.resolve("authorized_keys"));
        log = dir.resolve("sshd.log");
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        Path config = Files.writeString(dir.resolve("sshd_config"), String.join("\n",
                "ListenAddress 127.0.0.1",
                "Port " + port,
                "HostKey " + hostKey,
                "AuthorizedKeysFile " + dir.resolve("authorized_keys"),
                "PidFile " + dir.resolve("sshd.pid"),
                "UsePAM no",
                "StrictModes no",
                "PubkeyAuthentication yes",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "AllowUsers " + USER,
                "PermitRootLogin prohibit-password",
                "AllowAgentForwarding no",
                "AllowTcpForwarding no",
                "X11Forwarding no",
                "PermitUserEnvironment no",
                "LogLevel VERBOSE",
                ""));
        try {
            // The privilege separation directory sshd insists on when started as root.
            Files.createDirectories(Path.of("/run/sshd"));
        } catch (IOException e) {
            System.err.println("OpenSshServerIT: cannot create /run/sshd (" + e + "); sshd run as a user does not need it");
        }
        sshd = new ProcessBuilder(SSHD.toString(), "-D", "-e", "-f", config.toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                .start();
        // sshd's own word that it listens proves this sshd holds the port (not whoever took it after
        // the probe closed) and, unlike a probe connection, adds nothing to the log the tests read.
        awaitLog(line -> line.contains("Server listening on 127.0.0.1 port " + port), START_LIMIT, "sshd listening on port " + port);

        executor = new SshActionExecutor(new InMemoryCredentials().put("key", Files.readString(clientKey)));
    }

    @AfterEach
    void stopSshd() throws InterruptedException {
        if (executor != null) {
            executor.close();
        }
        if (sshd != null) {
            sshd.descendants().forEach(ProcessHandle::destroy);
            sshd.destroy();
            if (!sshd.waitFor(10, TimeUnit.SECONDS)) {
                sshd.descendants().forEach(ProcessHandle::destroyForcibly);
                sshd.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        if (log != null && Files.exists(log)) {
            sshdLog.capture(log);
        }
    }

    @Test
    void hostileArgumentReachesTheRemoteShellAsExactlyOneArgumentAndRunsNothing() throws IOException {
        Path marker = dir.resolve("MARKER");
        String hostile = "a b ; | & $( touch " + marker + " ) ' \" \\";

        SshExitOutcome exit = exited(executor.execute(
                permit(knownHosts(pub(hostKey)), Optional.empty(), "print", Map.of("x", new Argument.Text(hostile))),
                new Cancellation()));

        assertEquals(hostile + "\n", text(exit.stdout()), "printf '%s\\n' printed its one argument verbatim");
        assertEquals("", text(exit.stderr()));
        assertEquals(0, exit.exitStatus().getAsInt());
        assertFalse(Files.exists(marker), "the $( touch ) inside the argument never ran");
        assertEquals(fingerprint(hostKey), exit.hostKeyFingerprint());
        assertEquals(1, acceptedEd25519Logins(), "sshd accepted the ed25519 client key once");
    }

    @Test
    void changedHostKeyIsRefusedBeforeAuthenticationAndRunsNothing() throws IOException {
        Path marker = dir.resolve("MARKER");
        Path impostor = knownHosts(pub(keygen("other_host_key")));
        String before = Files.readString(impostor);

        assertFailure(FailureCode.HOST_KEY_REJECTED, executor.execute(
                permit(impostor, Optional.empty(), "touch", Map.of("path", new Argument.Text(marker.toString()))),
                new Cancellation()));

        assertFalse(Files.exists(marker), "the refused call's command never ran");
        assertEquals(before, Files.readString(impostor), "the known_hosts file is never rewritten");
        awaitLog(line -> line.endsWith("[preauth]")
                        && (line.startsWith("Connection closed by 127.0.0.1") || line.startsWith("Disconnected from")),
                LOG_LIMIT, "sshd to log the refused connection ending before authentication");
        assertEquals(0, acceptedLogins(), "sshd accepted no login for the refused call");

        // The same server, the right key: proves the log would have shown an accepted login.
        exited(executor.execute(permit(knownHosts(pub(hostKey)), Optional.empty(), "print",
                Map.of("x", new Argument.Text("control"))), new Cancellation()));
        assertEquals(1, acceptedLogins());
        assertFalse(Files.exists(marker));
    }

    @Test
    void fingerprintPinnedFromSshKeygenVerifiesTheHost() throws IOException {
        String pinned = fingerprint(hostKey);

        SshExitOutcome exit = exited(executor.execute(
                permit(null, Optional.of(pinned), "print", Map.of("x", new Argument.Text("pinned"))),
                new Cancellation()));

        assertEquals("pinned\n", text(exit.stdout()));
        assertEquals(pinned, exit.hostKeyFingerprint());
    }

    @Test
    void fingerprintOfAnotherKeyIsRefused() throws IOException {
        Path marker = dir.resolve("MARKER");

        assertFailure(FailureCode.HOST_KEY_REJECTED, executor.execute(
                permit(null, Optional.of(fingerprint(keygen("other_host_key"))), "touch",
                        Map.of("path", new Argument.Text(marker.toString()))),
                new Cancellation()));
        assertFalse(Files.exists(marker));
    }

    @Test
    void exitStatusOfTheRemoteCommandComesBack() throws IOException {
        SshExitOutcome exit = exited(executor.execute(
                permit(knownHosts(pub(hostKey)), Optional.empty(), "exit", Map.of("code", new Argument.Whole(3))),
                new Cancellation()));

        assertEquals(3, exit.exitStatus().getAsInt());
        assertEquals(Optional.empty(), exit.exitSignal());
    }

    @Test
    void clientKeyMissingFromAuthorizedKeysIsAuthFailed() throws IOException {
        Path stranger = keygen("stranger_key");
        SshActionExecutor other = new SshActionExecutor(new InMemoryCredentials().put("key", Files.readString(stranger)));
        try {
            assertFailure(FailureCode.AUTH_FAILED, other.execute(
                    permit(knownHosts(pub(hostKey)), Optional.empty(), "print", Map.of("x", new Argument.Text("x"))),
                    new Cancellation()));
        } finally {
            other.close();
        }
        assertEquals(0, acceptedLogins());
    }

    @Test
    void aTimedOutSleepIsGoneWithinTheGraceAfterTheAnswer() throws IOException {
        String seconds = marker();
        assertStoppedAfter(FailureCode.TIMEOUT, "sleep " + seconds, "sleep", Map.of("seconds", new Argument.Text(seconds)), null);
    }

    @Test
    void aTimedOutCommandThatIgnoresTermIsKilledWithinTheGraceAfterTheAnswer() throws IOException {
        String seconds = marker();
        assertStoppedAfter(FailureCode.TIMEOUT, "sleep " + seconds, "script",
                Map.of("script", new Argument.Text("trap '' TERM; sleep " + seconds + "; echo late")), null);
    }

    @Test
    void aCancelledCommandThatIgnoresTermIsKilledWithinTheGraceAfterTheAnswer() throws IOException {
        String seconds = marker();
        assertStoppedAfter(FailureCode.CANCELLED, "sleep " + seconds, "script",
                Map.of("script", new Argument.Text("trap '' TERM; sleep " + seconds + "; echo late")), new Cancellation());
    }

    @Test
    void anExitSignalAndStderrComeBackUnderTheStopWrapper() throws IOException {
        SshExitOutcome exit = exited(executor.execute(permit(knownHosts(pub(hostKey)), Optional.empty(), "script",
                Map.of("script", new Argument.Text("echo out; echo err >&2; kill -KILL $$"))), new Cancellation()));

        assertEquals("out\n", text(exit.stdout()));
        assertEquals("err\n", text(exit.stderr()));
        assertEquals(Optional.of("KILL"), exit.exitSignal());
        assertTrue(exit.exitStatus().isEmpty());
    }

    /** A duration no other process on this machine has on its command line, to find this call's sleep by. */
    private static String marker() {
        return "600." + (100000 + new java.security.SecureRandom().nextInt(900000));
    }

    /**
     * Runs a command that would sleep 600 s with a 2 s timeout (or cancels it once its sleep runs) and
     * proves that the answer is {@code code} and that no process of it is left within the stop-wrapper's
     * grace after the answer (polled, with slack for a loaded machine; no speed is asserted).
     */
    private void assertStoppedAfter(FailureCode code, String sleepLine, String command, Map<String, Argument> args,
                                    Cancellation cancellation) throws IOException {
        AuthorizedSshCommand permit = permit(knownHosts(pub(hostKey)), Optional.empty(),
                cancellation == null ? Duration.ofSeconds(8) : Duration.ofSeconds(60), command, args);
        try {
            if (cancellation != null) {
                Thread canceller = new Thread(() -> {
                    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (running(sleepLine).isEmpty() && System.nanoTime() < end) {
                        sleepFor(Duration.ofMillis(50));
                    }
                    cancellation.cancel();
                });
                canceller.start();
            }
            ExecutionFailure failure = assertFailure(code, executor.execute(permit, cancellation == null ? new Cancellation() : cancellation));
            assertTrue(failure.message().contains("stop-wrapper"), failure.message());
            long end = System.nanoTime() + StopWrapper.GRACE.plusSeconds(10).toNanos();
            while (!ofThisCall(sleepLine).isEmpty() && System.nanoTime() < end) {
                sleepFor(Duration.ofMillis(50));
            }
            assertEquals(List.of(), running(sleepLine).stream().map(ProcessHandle::pid).toList(),
                    "no " + sleepLine + " is left on the host after the " + code + " answer");
            assertEquals(List.of(), ofThisCall(sleepLine), "neither the stop-wrapper's watcher nor the command is left");
        } finally {
            running(sleepLine).forEach(ProcessHandle::destroyForcibly);
        }
    }

    /** Every process on this machine whose command line holds {@code marker} (the command, its shell, the watcher). */
    private static List<String> ofThisCall(String marker) {
        return ProcessHandle.allProcesses()
                .map(p -> p.info().commandLine().orElse(""))
                .filter(line -> line.contains(marker))
                .toList();
    }

    /** The processes on this machine whose command line is exactly {@code commandLine}. */
    private static List<ProcessHandle> running(String commandLine) {
        return ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine().map(line -> line.equals(commandLine) || line.endsWith("/" + commandLine)
                                || line.contains("-c trap '' TERM; " + commandLine))
                        .orElse(false))
                .toList();
    }

    private static void sleepFor(Duration pause) {
        try {
            Thread.sleep(pause.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted");
        }
    }

    /** A permit from the real engine for one host on this sshd that allows print, touch, exit and sleep. */
    private AuthorizedSshCommand permit(Path knownHosts, Optional<String> fingerprint, String command, Map<String, Argument> args) {
        return permit(knownHosts, fingerprint, Duration.ofSeconds(20), command, args);
    }

    private AuthorizedSshCommand permit(Path knownHosts, Optional<String> fingerprint, Duration timeout, String command,
                                        Map<String, Argument> args) {
        ParamSpec.StringParam text = new ParamSpec.StringParam(Optional.empty(), Optional.empty(), 1000);
        SshHost host = new SshHost(HOST, "127.0.0.1", port, USER, new SshAuth.Key(new CredentialRef("key"), Optional.empty()),
                Optional.ofNullable(knownHosts), fingerprint, timeout, 1 << 20, List.of(
                        new SshCommandSpec("sleep", List.of("sleep", "{seconds}"), Map.of("seconds", text)),
                        new SshCommandSpec("script", List.of("sh", "-c", "{script}"), Map.of("script", text)),
                        new SshCommandSpec("print", List.of("printf", "%s\\n", "{x}"), Map.of("x", text)),
                        new SshCommandSpec("touch", List.of("touch", "{path}"), Map.of("path", text)),
                        new SshCommandSpec("exit", List.of("sh", "-c", "exit {code}"), Map.of("code", new ParamSpec.IntegerParam(0, 255)))));
        SshCommandAction action = new SshCommandAction(HOST, command, args);
        Decision decision = new PolicyEngine(Policy.of(List.of(), List.of(host))).decide(action);
        if (decision instanceof Decision.Permit permit && permit.permit() instanceof AuthorizedSshCommand ssh) {
            return ssh;
        }
        throw new AssertionError("the test policy denied " + action + ": " + decision);
    }

    /** A known_hosts file listing the given public key for this sshd's {@code [127.0.0.1]:port}. */
    private Path knownHosts(Path publicKey) throws IOException {
        String[] fields = Files.readString(publicKey).trim().split(" ");
        Path file = dir.resolve("known_hosts_" + publicKey.getFileName());
        return Files.writeString(file, "[127.0.0.1]:" + port + ' ' + fields[0] + ' ' + fields[1] + '\n');
    }

    /** The SHA256 fingerprint as {@code ssh-keygen -lf} prints it for the key's public half. */
    private String fingerprint(Path key) throws IOException {
        String[] fields = run("ssh-keygen", "-l", "-E", "sha256", "-f", pub(key).toString()).trim().split(" ");
        assertTrue(fields.length >= 2 && fields[1].startsWith("SHA256:"), () -> "ssh-keygen -lf printed " + String.join(" ", fields));
        return fields[1];
    }

    private Path keygen(String name) throws IOException {
        Path key = dir.resolve(name);
        run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "postern-it-" + name, "-f", key.toString());
        return key;
    }

    private static Path pub(Path key) {
        return key.resolveSibling(key.getFileName() + ".pub");
    }

    private long acceptedLogins() throws IOException {
        // "Accepted publickey for USER ..." (or password, keyboard-interactive): a finished login, not a key lookup.
        return logLines().stream().filter(line -> ACCEPTED_LOGIN.matcher(line).find()).count();
    }

    private long acceptedEd25519Logins() throws IOException {
        return logLines().stream().filter(line -> line.contains("Accepted publickey for " + USER) && line.contains("ED25519")).count();
    }

    private List<String> logLines() throws IOException {
        return Files.readAllLines(log, StandardCharsets.UTF_8);
    }

    private void awaitLog(Predicate<String> wanted, Duration limit, String what) throws IOException {
        long end = System.nanoTime() + limit.toNanos();
        while (logLines().stream().noneMatch(wanted)) {
            if (!sshd.isAlive()) {
                throw new AssertionError("sshd exited with status " + sshd.exitValue() + " before " + what);
            }
            if (System.nanoTime() > end) {
                throw new AssertionError("not within " + limit.toMillis() + " ms: " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what);
            }
        }
    }

    /** Runs a local tool to completion and returns its output, failing the test if it fails. */
    private static String run(String... command) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())).start();
        try {
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new AssertionError(String.join(" ", command) + " failed: " + output);
            }
            return output;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted running " + String.join(" ", command));
        } finally {
            process.destroyForcibly();
        }
    }



    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * Prints sshd's log to stderr when a test fails, so a CI failure shows what the server saw. The
     * log is read at tear-down, while the temporary directory still exists. Not thread-safe.
     */
    static final class SshdLogOnFailure implements TestWatcher {
        private String text = "(sshd was not started)";

        void capture(Path file) {
            try {
                text = Files.readString(file);
            } catch (IOException e) {
                text = "(" + file + " unreadable: " + e + ")";
            }
        }

        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
            System.err.println("---- sshd log of " + context.getDisplayName() + "\n" + text + "---- end of sshd log");
        }
    }
}
