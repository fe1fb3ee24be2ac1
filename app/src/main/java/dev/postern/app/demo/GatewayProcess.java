package dev.postern.app.demo;

import dev.postern.app.Main;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code postern mcp-stdio} child process, started with this process's own java binary and
 * jar (or classpath), its stdout a pipe read line by line and its stderr a log file. Not
 * thread-safe: one caller sends and receives.
 */
final class GatewayProcess implements AutoCloseable {
    private final Process process;
    private final OutputStream stdin;
    /** stdout lines in order; an empty element marks the end of stdout and is put back when taken. */
    private final BlockingQueue<Optional<String>> lines = new LinkedBlockingQueue<>();
    private final List<String> command;

    private GatewayProcess(Process process, List<String> command) {
        this.process = process;
        this.command = command;
        this.stdin = process.getOutputStream();
        Thread reader = new Thread(this::readStdout, "demo-gateway-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    static GatewayProcess start(Path config, Path stderrLog) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(javaBinary());
        command.add("-XX:+UseSerialGC");
        command.add("-XX:-UsePerfData");
        command.add("-cp");
        command.add(classpath());
        command.add(Main.class.getName());
        command.add("mcp-stdio");
        command.add("--config");
        command.add(config.toString());
        Process p = new ProcessBuilder(command)
                .directory(config.getParent().toFile())
                .redirectError(stderrLog.toFile())
                .start();
        return new GatewayProcess(p, List.copyOf(command));
    }

    List<String> command() {
        return command;
    }

    /** Writes one line (a line end is added) and flushes it. */
    void send(String line) throws IOException {
        stdin.write((line + '\n').getBytes(StandardCharsets.UTF_8));
        stdin.flush();
    }

    /** The next stdout line, waiting up to {@code wait}; empty at end of stdout or when none came in time. */
    Optional<String> receive(Duration wait) throws InterruptedException {
        Optional<String> line = lines.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
        if (line == null) {
            return Optional.empty();
        }
        if (line.isEmpty()) {
            lines.add(line);
        }
        return line;
    }

    /** Closes stdin and waits up to {@code wait} for the exit status; empty if the child is still running. */
    Optional<Integer> awaitExit(Duration wait) throws InterruptedException {
        try {
            stdin.close();
        } catch (IOException e) {
            // The child may already have closed its end after ending the session; that is expected.
        }
        if (process.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS)) {
            return Optional.of(process.exitValue());
        }
        return Optional.empty();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }

    private void readStdout() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                lines.add(Optional.of(line));
            }
        } catch (IOException e) {
            // The child's stdout broke; the waiting side sees the end below.
        } finally {
            lines.add(Optional.empty());
        }
    }

    private static String javaBinary() {
        return ProcessHandle.current().info().command()
                .orElseGet(() -> Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /** The runnable jar this class came from; from a classes directory (tests, IDE), this JVM's classpath. */
    private static String classpath() {
        CodeSource source = Main.class.getProtectionDomain().getCodeSource();
        if (source != null && source.getLocation() != null) {
            try {
                Path location = Path.of(source.getLocation().toURI());
                if (Files.isRegularFile(location)) {
                    return location.toString();
                }
            } catch (URISyntaxException | IllegalArgumentException e) {
                // Not a file location; fall back to the classpath below.
            }
        }
        return System.getProperty("java.class.path");
    }
}
