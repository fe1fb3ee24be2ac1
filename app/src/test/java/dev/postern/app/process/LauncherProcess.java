package dev.postern.app.process;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs the packaged launcher {@code bin/postern} as a separate process, feeds it stdin bytes and
 * collects stdout and stderr separately, as raw bytes. Used only by process-level tests.
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
        Path moduleDir = Path.of("").toAbsolutePath();
        Path launcher = moduleDir.getParent().resolve("bin").resolve("postern");
        if (!Files.isExecutable(launcher)) {
            throw new AssertionError("the packaged launcher is missing: " + launcher);
        }
        return launcher;
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
        List<String> command = new ArrayList<>();
        command.add(launcher().toString());
        command.addAll(args);
        return exec(command, stdin, workingDir, env);
    }

    /** Runs {@code command} as given (not through the launcher), feeding {@code stdin} and then end of input. */
    static LauncherProcess exec(List<String> command, byte[] stdin, Path workingDir, Map<String, String> env) throws Exception {
        return exec(command, stdin, workingDir, env, false);
    }

    /** As above; with {@code replaceEnvironment}, {@code env} is the whole environment (to remove a variable). */
    static LauncherProcess exec(List<String> command, byte[] stdin, Path workingDir, Map<String, String> env,
                                boolean replaceEnvironment) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).directory(workingDir.toFile());
        if (replaceEnvironment) {
            pb.environment().clear();
        }
        pb.environment().putAll(env);
        Process p = pb.start();
        CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> drain(p.getInputStream()));
        CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> drain(p.getErrorStream()));
        try (OutputStream in = p.getOutputStream()) {
            in.write(stdin);
        } catch (IOException e) {
            // The process may close stdin early (it ends the session on a protocol error); that is its right.
        }
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("postern did not exit within 90 s: " + command + "\nstderr:\n"
                    + new String(err.getNow(new byte[0]), StandardCharsets.UTF_8));
        }
        return new LauncherProcess(command, out.get(30, TimeUnit.SECONDS), err.get(30, TimeUnit.SECONDS), p.exitValue());
    }

    /** Starts the launcher and leaves stdin open, for tests that talk to it step by step. */
    static Running start(List<String> args, Path workingDir, Map<String, String> env) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(launcher().toString());
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command).directory(workingDir.toFile());
        pb.environment().putAll(env);
        return new Running(command, pb.start());
    }

    /**
     * A launcher process in progress: lines are written to its stdin one at a time, its stdout is
     * read line by line (every byte kept for the transcript), stderr is collected in the background.
     */
    static final class Running implements AutoCloseable {
        final List<String> command;
        private final Process process;
        private final OutputStream stdin;
        private final InputStream stdout;
        private final ByteArrayOutputStream stdoutSeen = new ByteArrayOutputStream();
        private final CompletableFuture<byte[]> stderr;

        private Running(List<String> command, Process process) {
            this.command = command;
            this.process = process;
            this.stdin = process.getOutputStream();
            this.stdout = process.getInputStream();
            this.stderr = CompletableFuture.supplyAsync(() -> drain(process.getErrorStream()));
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
            if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
                throw new AssertionError("postern did not exit within " + seconds + " s\n" + describe());
            }
            return process.exitValue();
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
            process.destroyForcibly();
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
