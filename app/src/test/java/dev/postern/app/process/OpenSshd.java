package dev.postern.app.process;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real OpenSSH {@code sshd} on loopback for process tests, as executor-ssh's OpenSshServerIT starts
 * one: a fresh ed25519 host key in a temporary directory, no login possible (no authorized keys),
 * stopped by {@link #close}. Fails, rather than skips, when sshd is missing and {@code CI=true}.
 */
final class OpenSshd implements AutoCloseable {
    private static final Path SSHD = Path.of("/usr/sbin/sshd");

    final int port;
    final Path hostKey;
    final Path log;
    private final Process process;

    private OpenSshd(int port, Path hostKey, Path log, Process process) {
        this.port = port;
        this.hostKey = hostKey;
        this.log = log;
        this.process = process;
    }

    static void requireInstalled() {
        boolean installed = Files.isExecutable(SSHD);
        if (!installed && "true".equals(System.getenv("CI"))) {
            fail(SSHD + " is missing and CI=true: install Debian's openssh-server so this test runs");
        }
        assumeTrue(installed, SSHD + " is missing; install openssh-server to run this test");
    }

    static OpenSshd start(Path dir) throws IOException, InterruptedException {
        requireInstalled();
        Path hostKey = dir.resolve("host_key");
        run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "postern-it-host", "-f", hostKey.toString());
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        Path config = Files.writeString(dir.resolve("sshd_config"), String.join("\n",
                "ListenAddress 127.0.0.1", "Port " + port, "HostKey " + hostKey,
                "AuthorizedKeysFile none", "PidFile " + dir.resolve("sshd.pid"), "UsePAM no", "StrictModes no",
                "PasswordAuthentication no", "KbdInteractiveAuthentication no", "LogLevel VERBOSE", ""));
        try {
            Files.createDirectories(Path.of("/run/sshd"));
        } catch (IOException e) {
            System.err.println("OpenSshd: cannot create /run/sshd (" + e + "); sshd run as a user does not need it");
        }
        Path log = dir.resolve("sshd.log");
        Process process = new ProcessBuilder(SSHD.toString(), "-D", "-e", "-f", config.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())).start();
        OpenSshd sshd = new OpenSshd(port, hostKey, log, process);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Files.readString(log).contains("Server listening on 127.0.0.1 port " + port)) {
            if (!process.isAlive() || System.nanoTime() > end) {
                sshd.close();
                throw new AssertionError("sshd did not start listening on " + port + ":\n" + Files.readString(log));
            }
            Thread.sleep(20);
        }
        return sshd;
    }

    /** The host key's fingerprint as OpenSSH itself prints it ({@code ssh-keygen -lf}). */
    String fingerprint() throws IOException, InterruptedException {
        return run("ssh-keygen", "-l", "-E", "sha256", "-f", hostKey + ".pub").split("\\s+")[1];
    }

    List<String> logLines() throws IOException {
        return Files.readAllLines(log, StandardCharsets.UTF_8);
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + " failed:\n" + out);
        }
        return out;
    }

    @Override
    public void close() throws InterruptedException {
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
