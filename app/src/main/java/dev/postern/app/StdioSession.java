package dev.postern.app;

import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.Decision;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.AuditJournal;
import dev.postern.policy.port.Cancellation;
import dev.postern.policy.port.JournalUnavailableException;
import dev.postern.policy.port.Rejection;
import dev.postern.policy.port.Stage;
import dev.postern.protocol.jsonrpc.ErrorCode;
import dev.postern.protocol.jsonrpc.RequestId;
import dev.postern.protocol.mcp.Inbound;
import dev.postern.protocol.mcp.McpServer;
import dev.postern.transport.EndOfInput;
import dev.postern.transport.Frame;
import dev.postern.transport.FrameReader;
import dev.postern.transport.FrameWriter;
import dev.postern.transport.FramingError;
import dev.postern.transport.ReadResult;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One stdio connection: the reader loop on the calling thread, tool calls on a pool of at most
 * {@code maxInFlight} workers, and one writer that emits whole lines. When every slot is busy the
 * reader waits (backpressure: nothing queues unboundedly). A framing, JSON or JSON-RPC error writes
 * one error line, cancels what is in flight and ends the session; nothing is written after it.
 */
public final class StdioSession {
    static final Duration EOF_GRACE = Duration.ofSeconds(10);
    static final Duration CANCEL_GRACE = Duration.ofSeconds(2);

    private final McpServer mcp;
    private final PolicyEngine engine;
    private final RateLimits rateLimits;
    private final Dispatcher dispatcher;
    private final AuditJournal journal;
    private final FrameReader reader;
    private final FrameWriter writer;
    private final PrintStream diagnostics;
    private final Semaphore slots;
    private final int maxInFlight;
    private final ExecutorService workers;
    private final Map<RequestId, Cancellation> inFlight = new ConcurrentHashMap<>();
    private final Object writeLock = new Object();
    private volatile Runnable onOutputBroken = () -> { };
    private boolean closed;
    private boolean broken;

    public StdioSession(McpServer mcp, PolicyEngine engine, Dispatcher dispatcher, AuditJournal journal,
            FrameReader reader, FrameWriter writer, int maxInFlight, PrintStream diagnostics) {
        this(mcp, engine, RateLimits.none(), dispatcher, journal, reader, writer, maxInFlight, diagnostics);
    }

    /** A session whose permits also pass {@code rateLimits} before their intent row. */
    StdioSession(McpServer mcp, PolicyEngine engine, RateLimits rateLimits, Dispatcher dispatcher, AuditJournal journal,
            FrameReader reader, FrameWriter writer, int maxInFlight, PrintStream diagnostics) {
        this.mcp = mcp;
        this.engine = engine;
        this.rateLimits = rateLimits;
        this.dispatcher = dispatcher;
        this.journal = journal;
        this.reader = reader;
        this.writer = writer;
        this.diagnostics = diagnostics;
        this.maxInFlight = maxInFlight;
        this.slots = new Semaphore(maxInFlight);
        AtomicInteger n = new AtomicInteger();
        this.workers = Executors.newFixedThreadPool(maxInFlight, r -> {
            Thread t = new Thread(r, "postern-action-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** Called (once, from any thread) when stdout breaks, so the process can exit promptly. */
    public void onOutputBroken(Runnable action) {
        this.onOutputBroken = action;
    }

    /** Runs the session to its end and returns the exit status. */
    public ExitStatus run() {
        try {
            while (true) {
                ReadResult read = reader.next();
                if (read instanceof EndOfInput) {
                    drain(EOF_GRACE);
                    return isBroken() ? ExitStatus.OUTPUT_BROKEN : ExitStatus.OK;
                }
                Inbound inbound = read instanceof Frame frame ? mcp.receive(frame) : mcp.receive((FramingError) read);
                if (!handle(inbound)) {
                    return ExitStatus.PROTOCOL_ERROR;
                }
                if (isBroken()) {
                    cancelAll();
                    return ExitStatus.OUTPUT_BROKEN;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            cancelAll();
            return ExitStatus.STARTUP_FAILED;
        } finally {
            workers.shutdownNow();
        }
    }

    /** Carries out one inbound step; false when the session must end. */
    private boolean handle(Inbound inbound) throws InterruptedException {
        if (inbound instanceof Inbound.Respond r) {
            r.rejection().ifPresent(journal::rejected);
            emit(r.line());
            return true;
        }
        if (inbound instanceof Inbound.Close c) {
            journal.rejected(c.rejection());
            closeWith(c.line());
            return false;
        }
        if (inbound instanceof Inbound.Execute e) {
            return start(e, this::emit);
        }
        if (inbound instanceof Inbound.Batch b) {
            return batch(b);
        }
        if (inbound instanceof Inbound.Cancel c) {
            Cancellation cancellation = inFlight.get(c.id());
            if (cancellation != null) {
                cancellation.cancel();
            }
            return true;
        }
        Inbound.Ignore ignore = (Inbound.Ignore) inbound;
        if (ignore.unexpected()) {
            diagnostics.println("postern: ignored a notification: " + ignore.why());
        }
        return true;
    }

    /** Starts a tool call on a worker once a slot is free; false (session over) on a duplicate id. */
    private boolean start(Inbound.Execute e, Answer answer) throws InterruptedException {
        if (inFlight.containsKey(e.id())) {
            journal.rejected(new Rejection(Stage.JSONRPC, "DUPLICATE_ID", Optional.empty(), e.frameSha256()));
            closeWith(mcp.errorLine(e.id(), ErrorCode.INVALID_REQUEST, "invalid request: id is already in flight"));
            return false;
        }
        slots.acquire();
        Cancellation cancellation = new Cancellation();
        inFlight.put(e.id(), cancellation);
        workers.execute(() -> perform(e, cancellation, answer));
        return true;
    }

    /**
     * A 2025-03-26 batch: responses collected and written as one array line once the last part is
     * answered; nothing is written when no part has a response.
     */
    private boolean batch(Inbound.Batch batch) throws InterruptedException {
        int expected = 0;
        for (Inbound part : batch.parts()) {
            if (part instanceof Inbound.Respond || part instanceof Inbound.Execute) {
                expected++;
            }
        }
        BatchResponse response = new BatchResponse(expected, this::emit);
        for (Inbound part : batch.parts()) {
            if (part instanceof Inbound.Respond r) {
                r.rejection().ifPresent(journal::rejected);
                response.accept(r.line());
            } else if (part instanceof Inbound.Execute e) {
                if (!start(e, response)) {
                    return false;
                }
            } else if (!handle(part)) {
                return false;
            }
        }
        return true;
    }

    /** Where a tool call's response line goes: straight out, or into its batch. {@code null} means suppressed. */
    @FunctionalInterface
    interface Answer {
        void accept(String lineOrNull);
    }

    /** Decides, journals and executes one tool call on a worker thread, then answers it. */
    private void perform(Inbound.Execute call, Cancellation cancellation, Answer answer) {
        String line;
        try {
            Decision decision = engine.decide(call.action());
            if (decision instanceof Decision.Deny deny) {
                journal.rejected(new Rejection(Stage.POLICY, "POLICY_DENIED", Optional.of(deny.rule()), call.frameSha256(),
                        Optional.of(call.action())));
                line = mcp.renderDenial(call.id(), deny);
            } else {
                AuthorizedAction permit = ((Decision.Permit) decision).permit();
                Optional<RateLimits.Refusal> limited = rateLimits.admit(permit);
                if (limited.isPresent()) {
                    journal.rejected(new Rejection(Stage.POLICY, RateLimits.CODE, Optional.of(limited.get().rule()), call.frameSha256(),
                            Optional.of(call.action())));
                    line = mcp.renderOutcome(call.id(), limited.get().answer());
                } else {
                    line = mcp.renderOutcome(call.id(), execute(permit, call, cancellation));
                }
            }
        } catch (RuntimeException e) {
            diagnostics.println("postern: internal error on a tool call: " + e);
            line = mcp.errorLine(call.id(), ErrorCode.INTERNAL_ERROR, "internal error");
        } finally {
            inFlight.remove(call.id());
        }
        try {
            answer.accept(cancellation.isCancelled() ? null : line);
        } finally {
            slots.release();
        }
    }

    private Outcome execute(dev.postern.policy.AuthorizedAction permit, Inbound.Execute call, Cancellation cancellation) {
        long intent;
        try {
            intent = journal.intent(permit, call.frameSha256());
        } catch (JournalUnavailableException e) {
            diagnostics.println("postern: " + e.getMessage());
            return new ExecutionFailure(FailureCode.JOURNAL_UNAVAILABLE, "the actions journal could not be written, so nothing ran");
        }
        Outcome outcome = cancellation.isCancelled()
                ? new ExecutionFailure(FailureCode.CANCELLED, "cancelled before it started")
                : dispatcher.dispatch(permit, cancellation);
        journal.outcome(intent, outcome);
        return outcome;
    }

    private void emit(String line) {
        if (line == null) {
            return;
        }
        boolean justBroke = false;
        synchronized (writeLock) {
            if (closed || broken) {
                return;
            }
            try {
                writer.write(line);
            } catch (IOException e) {
                broken = true;
                justBroke = true;
            }
        }
        if (justBroke) {
            diagnostics.println("postern: protocol output is broken; stopping");
            cancelAll();
            onOutputBroken.run();
        }
    }

    private void closeWith(String line) {
        synchronized (writeLock) {
            if (!closed && !broken) {
                try {
                    writer.write(line);
                } catch (IOException e) {
                    broken = true;
                }
            }
            closed = true;
        }
        cancelAll();
        awaitIdle(CANCEL_GRACE);
    }

    private boolean isBroken() {
        synchronized (writeLock) {
            return broken;
        }
    }

    private void drain(Duration grace) {
        if (!awaitIdle(grace)) {
            diagnostics.println("postern: in-flight calls did not finish within " + grace.toSeconds() + " s; cancelling them");
            cancelAll();
            awaitIdle(CANCEL_GRACE);
        }
    }

    private boolean awaitIdle(Duration timeout) {
        try {
            if (slots.tryAcquire(maxInFlight, timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                slots.release(maxInFlight);
                return true;
            }
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void cancelAll() {
        inFlight.values().forEach(Cancellation::cancel);
    }
}
