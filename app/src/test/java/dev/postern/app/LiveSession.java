package dev.postern.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.app.config.GatewayConfig;
import dev.postern.journal.FileAuditJournal;
import dev.postern.policy.model.Policy;
import dev.postern.policy.port.ActionExecutor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The real gateway ({@link Gateway}'s own wiring of McpServer, ToolCallService, PolicyEngine,
 * Dispatcher, FileAuditJournal, frame reader and writer) driven line by line over a pipe, so a test can
 * send, read an answer, and send again while calls are still running. The executors are the test's,
 * substituted at the registration point.
 */
final class LiveSession implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final PipedOutputStream input = new PipedOutputStream();
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final LineSink stdout = new LineSink(lines);
    final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    final AtomicBoolean fatalHookRan = new AtomicBoolean();
    private final FileAuditJournal journal;
    private final CompletableFuture<ExitStatus> exit = new CompletableFuture<>();
    final Thread thread;

    LiveSession(Path journalDir, Policy policy, int maxInFlight, long maxResultBytes, List<ActionExecutor<?>> executors) throws IOException {
        this(SessionHarness.config(journalDir, policy, maxInFlight), maxResultBytes, executors);
    }

    /** A session on a config the test built (its own credentials, say). */
    LiveSession(GatewayConfig config, long maxResultBytes, List<ActionExecutor<?>> executors) throws IOException {
        PipedInputStream in = new PipedInputStream(input, 1 << 20);
        PrintStream diagnostics = new PrintStream(stderr, true, StandardCharsets.UTF_8);
        journal = Gateway.journal(config, diagnostics);
        thread = new Thread(() -> {
            try {
                exit.complete(Gateway.run(config, journal, executors, maxResultBytes, in, stdout, diagnostics,
                        session -> session.onFatal(() -> fatalHookRan.set(true))));
            } catch (Throwable e) {
                exit.completeExceptionally(e);
            }
        }, "live-session");
        thread.setDaemon(true);
        thread.start();
    }

    LiveSession handshake() throws IOException {
        send(SessionHarness.INIT + SessionHarness.INITIALIZED);
        next();
        return this;
    }

    void send(String lines) throws IOException {
        input.write(lines.getBytes(StandardCharsets.UTF_8));
        input.flush();
    }

    /** The next line the session writes, waiting up to 20 s (far longer than any answer here takes). */
    JsonNode next() {
        try {
            return JSON.readTree(nextLine());
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** The next line the session writes as written, without its line end, waiting up to 20 s. */
    String nextLine() {
        try {
            String line = lines.poll(20, TimeUnit.SECONDS);
            if (line == null) {
                throw new AssertionError("no line from the session within 20 s; stderr: " + stderr.toString(StandardCharsets.UTF_8));
            }
            return line;
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /** Every byte the session wrote on its stdout so far, exactly as written. */
    byte[] rawStdout() {
        return stdout.raw();
    }

    /** Whatever else was written, without waiting. */
    List<String> rest() {
        List<String> out = new java.util.ArrayList<>();
        lines.drainTo(out);
        return out;
    }

    /** The exit status, waiting up to {@code within}, without ending the input. */
    ExitStatus exit(Duration within) throws Exception {
        return exit.get(within.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Ends the input and waits for the exit status. */
    ExitStatus finish(Duration within) throws Exception {
        input.close();
        return exit.get(within.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() throws IOException {
        input.close();
        try {
            exit.get(30, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // the test has already failed or finished; closing must not hide that
        }
        journal.close();
    }

    static String ping(int id) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"ping\"}\n";
    }

    static String cancel(int id) {
        return "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":" + id + "}}\n";
    }
}
