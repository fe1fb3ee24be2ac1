package dev.postern.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.app.config.GatewayConfig;
import dev.postern.journal.FileAuditJournal;
import dev.postern.fixtures.RecordingExecutor;
import dev.postern.policy.AuthorizedHttpRequest;
import dev.postern.policy.AuthorizedSqlStatement;
import dev.postern.policy.AuthorizedSshCommand;
import dev.postern.policy.model.Policy;
import dev.postern.policy.outcome.SqlRowsOutcome;
import dev.postern.policy.port.ActionExecutor;
import dev.postern.protocol.approval.RequestStateCodec;
import dev.postern.protocol.tools.ToolResults;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The real gateway ({@link Gateway}'s own wiring, with this test's {@link Approvals} on a clock the
 * test moves) on its own thread, driven line by line like a live client: the test writes a
 * line, reads what the gateway wrote, and answers questions by the ids the gateway chose. Recording
 * executors sit at the seam under execution (for SQL, unless the test asks for the real executor).
 * Not thread-safe; one test at a time.
 */
final class ApprovalLiveSession implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final Duration WAIT = Duration.ofSeconds(10);

    final RecordingExecutor<AuthorizedHttpRequest> http = RecordingExecutor.http();
    final RecordingExecutor<AuthorizedSshCommand> ssh = RecordingExecutor.ssh();
    /** Answers every statement with no columns, no rows and one row affected. */
    final RecordingExecutor<AuthorizedSqlStatement> sql = new RecordingExecutor<>(AuthorizedSqlStatement.class,
            permit -> new SqlRowsOutcome(permit.database().name(), permit.statement().name(), List.of(), List.of(), 1, false));
    final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    private final BlockingQueue<String> out = new LinkedBlockingQueue<>();
    private final PipedOutputStream in;
    private final CompletableFuture<ExitStatus> exit;
    private final FileAuditJournal journal;

    ApprovalLiveSession(Path journalDir, Policy policy, RequestStateCodec states, Duration approvalTimeout) throws IOException {
        this(journalDir, policy, states, approvalTimeout, 4);
    }

    ApprovalLiveSession(Path journalDir, Policy policy, RequestStateCodec states, Duration approvalTimeout, int maxInFlight)
            throws IOException {
        this(SessionHarness.config(journalDir, policy, maxInFlight), states, approvalTimeout, true);
    }

    /**
     * A session on {@code config}; with {@code recordSql} false, SQL permits go to the registered
     * executor, which connects to the config's database with the config's credentials.
     */
    ApprovalLiveSession(GatewayConfig config, RequestStateCodec states, Duration approvalTimeout, boolean recordSql)
            throws IOException {
        PipedInputStream stdin = new PipedInputStream(1 << 16);
        this.in = new PipedOutputStream(stdin);
        PrintStream diagnostics = new PrintStream(stderr, true, StandardCharsets.UTF_8);
        this.journal = Gateway.journal(config, diagnostics);
        Approvals approvals = new Approvals(states, approvalTimeout, journal);
        List<ActionExecutor<?>> executors = recordSql ? List.of(http, ssh, sql) : List.of(http, ssh);
        this.exit = CompletableFuture.supplyAsync(() -> Gateway.run(config, journal, executors, ToolResults.DEFAULT_MAX_RESULT_BYTES,
                approvals, stdin, new LineSink(out), diagnostics, session -> { }));
    }

    /** A session on {@code config} whose approvals are wired as the gateway wires them: its channels, page and files. */
    ApprovalLiveSession(GatewayConfig config) throws IOException {
        PipedInputStream stdin = new PipedInputStream(1 << 16);
        this.in = new PipedOutputStream(stdin);
        PrintStream diagnostics = new PrintStream(stderr, true, StandardCharsets.UTF_8);
        this.journal = Gateway.journal(config, diagnostics);
        Approvals approvals = Gateway.approvals(config, journal, java.time.Clock.systemUTC(), diagnostics);
        List<ActionExecutor<?>> executors = List.of(http, ssh, sql);
        this.exit = CompletableFuture.supplyAsync(() -> Gateway.run(config, journal, executors, ToolResults.DEFAULT_MAX_RESULT_BYTES,
                approvals, stdin, new LineSink(out), diagnostics, session -> { }));
    }

    /**
     * The groups of the first stderr line that matches {@code pattern} and was not returned before,
     * waiting for it up to {@link #WAIT}.
     */
    java.util.regex.Matcher awaitStderr(java.util.regex.Pattern pattern) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            for (String line : stderr().split("\n")) {
                java.util.regex.Matcher m = pattern.matcher(line);
                if (m.find() && seen.add(line)) {
                    return m;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("stderr has no new line matching " + pattern + ":\n" + stderr());
            }
            Thread.sleep(20);
        }
    }

    private final java.util.Set<String> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Writes one line (the line end is added). */
    ApprovalLiveSession send(String line) {
        try {
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** The next line the gateway wrote, parsed; fails after {@link #WAIT}. */
    JsonNode receive() {
        try {
            String line = out.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            if (line == null) {
                throw new AssertionError("the gateway wrote nothing within " + WAIT + "\nstderr:\n" + stderr());
            }
            return JSON.readTree(line);
        } catch (InterruptedException | IOException e) {
            throw new AssertionError(e);
        }
    }

    /** Whether the gateway writes nothing more within {@code quiet}. */
    boolean silentFor(Duration quiet) throws InterruptedException {
        String line = out.poll(quiet.toMillis(), TimeUnit.MILLISECONDS);
        if (line != null) {
            out.add(line);
            return false;
        }
        return true;
    }

    /** Ends the input and returns the session's exit status. */
    ExitStatus endInput() throws Exception {
        in.close();
        return exit.get(WAIT.toSeconds() * 3, TimeUnit.SECONDS);
    }

    String stderr() {
        return stderr.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws Exception {
        try {
            in.close();
            exit.get(WAIT.toSeconds() * 3, TimeUnit.SECONDS);
        } finally {
            journal.close();
        }
    }
}
