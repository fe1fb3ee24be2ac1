package dev.postern.app.process;

import dev.postern.fixtures.GatewayProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs the packaged launcher {@code bin/postern} as a separate process (started by test-fixtures'
 * {@link GatewayProcess}), feeds it stdin bytes and collects stdout and stderr separately, as raw
 * bytes. Used only by process-level tests.
 */
final class LauncherProcess {
    final List<String> command;
    final byte[] stdout;
    final byte[] stderr;
    final int exitStatus;

    private LauncherProcess(List<String> command, byte[] stdout, byte[] stderr, int exitStatus) {
        this.command = command;
        this.stdout = stdout;
        this.stderr = stderr;
        this.exitStatus = exitStatus;
    }

    static Path launcher() {
        return GatewayProcess.launcher();
    }

    /** The runnable jar the launcher starts, for tests that start it without the launcher. */
    static Path jar() throws IOException {
        Path target = Path.of("").toAbsolutePath().resolve("target");
        try (var files = Files.list(target)) {
            return files.filter(f -> f.getFileName().toString().matches("postern-\\d.*\\.jar"))
                    .findFirst().orElseThrow(() -> new AssertionError("the packaged jar is missing under " + target));
        }
    }

    static LauncherProcess run(List<String> args, byte[] stdin, Path workingDir, Map<String, String> env) throws Exception {
        return exec(GatewayProcess.launcherCommand(args), stdin, workingDir, env);
    }

    /** Runs {@code command} as given (not through the launcher), feeding {@code stdin} and then end of input. */
    static LauncherProcess exec(List<String> command, byte[] stdin, Path workingDir, Map<String, String> env) throws Exception {
        return exec(command, stdin, workingDir, env, false);
    }

    /** As above; with {@code replaceEnvironment}, {@code env} is the whole environment (to remove a variable), through {@code env -i}. */
    static LauncherProcess exec(List<String> command, byte[] stdin, Path workingDir, Map<String, String> env,
                                boolean replaceEnvironment) throws Exception {
        if (replaceEnvironment) {
            List<String> wrapped = new java.util.ArrayList<>(List.of("env", "-i"));
            env.forEach((name, value) -> wrapped.add(name + "=" + value));
            wrapped.addAll(command);
            command = List.copyOf(wrapped);
            env = Map.of();
        }
        try (GatewayProcess p = GatewayProcess.start(command, workingDir, env, ProcessBuilder.Redirect.PIPE)) {
            CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> drain(p.stdout()));
            CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> drain(p.stderr()));
            try (OutputStream in = p.stdin()) {
                in.write(stdin);
            } catch (IOException e) {
                // The process may close stdin early (it ends the session on a protocol error); that is its right.
            }
            Optional<Integer> exit = p.awaitExit(Duration.ofSeconds(90));
            if (exit.isEmpty()) {
                throw new AssertionError("postern did not exit within 90 s: " + command + "\nstderr:\n"
                        + new String(err.getNow(new byte[0]), StandardCharsets.UTF_8));
            }
            return new LauncherProcess(command, out.get(30, TimeUnit.SECONDS), err.get(30, TimeUnit.SECONDS), exit.get());
        }
    }

    /** Starts the launcher and leaves stdin open, for tests that talk to it step by step. */
    static Running start(List<String> args, Path workingDir, Map<String, String> env) throws IOException {
        return new Running(GatewayProcess.start(GatewayProcess.launcherCommand(args), workingDir, env, ProcessBuilder.Redirect.PIPE));
    }

    /**
     * A launcher process in progress: lines are written to its stdin one at a time, its stdout is
     * read line by line (every byte kept for the transcript), stderr is collected in the background.
     */
    static final class Running implements AutoCloseable {
        final List<String> command;
        private final GatewayProcess process;
        private final OutputStream stdin;
        private final InputStream stdout;
        private final ByteArrayOutputStream stdoutSeen = new ByteArrayOutputStream();
        private final CompletableFuture<byte[]> stderr;

        private Running(GatewayProcess process) {
            this.command = process.command();
            this.process = process;
            this.stdin = process.stdin();
            this.stdout = process.stdout();
            this.stderr = CompletableFuture.supplyAsync(() -> drain(process.stderr()));
        }

        /** The launcher's process id (the launcher execs java, so the gateway's). */
        long pid() {
            return process.pid();
        }

        void send(String line) throws IOException {
            stdin.write(line.getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        }

        /** Blocks until one whole line has arrived on stdout and returns it without its LF. */
        String readLine() throws IOException {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            while (true) {
                int b = stdout.read();
                if (b < 0) {
                    throw new AssertionError("stdout ended before a whole line: " + line + "\n" + describe());
                }
                stdoutSeen.write(b);
                if (b == '\n') {
                    return line.toString(StandardCharsets.UTF_8);
                }
                line.write(b);
            }
        }

        /** Closes the reading end of stdout: the next protocol write fails with EPIPE. */
        void closeStdout() throws IOException {
            stdout.close();
        }

        void closeStdin() throws IOException {
            stdin.close();
        }

        /** Waits up to {@code seconds} for the exit status; fails if the process is still running. */
        int waitFor(long seconds) throws InterruptedException {
            return process.awaitExit(Duration.ofSeconds(seconds)).orElseThrow(
                    () -> new AssertionError("postern did not exit within " + seconds + " s\n" + describe()));
        }

        /** Everything stdout carried: what was read line by line, then the rest up to its end. */
        byte[] transcript() throws IOException {
            stdoutSeen.write(stdout.readAllBytes());
            return stdoutSeen.toByteArray();
        }

        byte[] stderr() {
            try {
                return stderr.get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                return ("(stderr not collected: " + e + ")").getBytes(StandardCharsets.UTF_8);
            }
        }

        String describe() {
            String err = process.isAlive() ? "(still running)" : new String(stderr(), StandardCharsets.UTF_8);
            return "command: " + String.join(" ", command) + "\nstderr:\n" + err;
        }

        @Override
        public void close() {
            process.close();
        }
    }

    String stderrText() {
        return new String(stderr, StandardCharsets.UTF_8);
    }

    String describe() {
        return "command: " + String.join(" ", command) + "\nexit: " + exitStatus + "\nstderr:\n" + stderrText();
    }

    private static byte[] drain(InputStream in) {
        try (in) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            in.transferTo(b);
            return b.toByteArray();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
