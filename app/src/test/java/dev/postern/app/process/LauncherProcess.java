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

    static LauncherProcess run(List<String> args, byte[] stdin, Path workingDir, Map<String, String> env) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(launcher().toString());
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command).directory(workingDir.toFile());
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
