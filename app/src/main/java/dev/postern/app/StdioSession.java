package dev.postern.app;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.Decision;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.AuditJournal;
import dev.postern.policy.port.Cancellation;
import dev.postern.policy.port.Rejection;
import dev.postern.policy.port.Stage;
import dev.postern.protocol.mcp.CatalogRefused;
import dev.postern.protocol.jsonrpc.ErrorCode;
import dev.postern.protocol.jsonrpc.RequestId;
import dev.postern.protocol.mcp.ClientFacts;
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
import java.util.function.Consumer;

/**
 * One stdio connection: the reader loop on the calling thread, tool calls on a pool of at most
 * {@code maxInFlight} workers, and one writer that emits whole lines. Up to {@code maxInFlight} more
 * calls may wait, read but not started, so that {@code ping} and {@code notifications/cancelled}
 * are served while every worker is busy (a waiting call that is cancelled never runs); past that
 * the reader waits (backpressure: nothing queues unboundedly). A framing, JSON or JSON-RPC error
 * writes one error line, cancels what is in flight and ends the session; nothing is written after it.
 *
 * <p>A call waiting for a human's answer ({@code elicitation/create}) gives its place back while it
 * waits, so the reader keeps reading and the answer, which comes in on stdin, is read; at most
 * {@code maxInFlight} calls wait at once, each on its worker.
 *
 * <p>Every {@link Throwable} on a worker becomes an answer for its call and releases its place; a
 * fatal {@link VirtualMachineError} then ends the session ({@link ExitStatus#INTERNAL_ERROR}), as
 * does any exception on the reader thread.
 */
public final class StdioSession {
    static final Duration EOF_GRACE = Duration.ofSeconds(10);
    static final Duration CANCEL_GRACE = Duration.ofSeconds(2);

    private final McpServer mcp;
    private final ToolCallService calls;
    private final AuditJournal journal;
    private final FrameReader reader;
    /** The protocol stream's one writer: whole lines, held lines coalesced, closed once. */
    private final SessionOutput output;
    private final PrintStream diagnostics;
    /** Calls admitted, running or waiting for a worker: at most twice maxInFlight. */
    private final Semaphore admitted;
    private final int capacity;
    /** Calls waiting for a human, their admitted place given back: at most maxInFlight. */
    private final Semaphore waits;
    private final int maxInFlight;
    private final ExecutorService workers;
    private final Map<RequestId, Running> inFlight = new ConcurrentHashMap<>();
    /** Completed at end of input: calls waiting for the page or the terminal end then, as those waiting for the client do. */
    private final java.util.concurrent.CompletableFuture<Void> inputEnded = new java.util.concurrent.CompletableFuture<>();
    /** The approval questions put to the client and the waits for their answers. */
    private final ClientQuestions questions;
    private volatile Runnable onOutputBroken = () -> { };
    private volatile Runnable onFatal = () -> { };
    private volatile Consumer<ClientFacts> onClient = c -> { };
    private boolean clientReported;
    private volatile boolean fatal;

    public StdioSession(McpServer mcp, ToolCallService calls, AuditJournal journal,
            FrameReader reader, FrameWriter writer, int maxInFlight, PrintStream diagnostics) {
        this.mcp = mcp;
        this.calls = calls;
        this.journal = journal;
        this.reader = reader;
        this.diagnostics = diagnostics;
        this.output = new SessionOutput(writer, diagnostics, () -> {
            cancelAll();
            onOutputBroken.run();
        });
        this.questions = new ClientQuestions(mcp, output, inputEnded);
        this.capacity = 2 * maxInFlight;
        this.maxInFlight = maxInFlight;
        this.waits = new Semaphore(maxInFlight);
        this.admitted = new Semaphore(capacity);
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

    /** Called (once, from the reader thread) when the era is fixed, with who the client is. */
    public void onClient(Consumer<ClientFacts> action) {
        this.onClient = action;
    }

    private void reportClient() {
        if (!clientReported) {
            mcp.client().ifPresent(c -> {
                clientReported = true;
                onClient.accept(c);
            });
        }
    }

    /**
     * Called (once, from the worker that hit it) after a fatal VM error was answered and in-flight
     * calls were cancelled, so the process can flush the journals and exit with
     * {@link ExitStatus#INTERNAL_ERROR} even while the reader is blocked on input.
     */
    public void onFatal(Runnable action) {
        this.onFatal = action;
    }

    /** Runs the session to its end and returns the exit status. */
    public ExitStatus run() {
        try {
            while (true) {
                ReadResult read = reader.next();
                if (fatal) {
                    return ExitStatus.INTERNAL_ERROR;
                }
                if (read instanceof EndOfInput) {
                    // No answer can come any more: calls waiting for a human end now (approval.timeout).
                    mcp.serverRequests().endAll();
                    inputEnded.complete(null);
                    drain(EOF_GRACE);
                    return fatal ? ExitStatus.INTERNAL_ERROR : isBroken() ? ExitStatus.OUTPUT_BROKEN : ExitStatus.OK;
                }
                Inbound inbound = read instanceof Frame frame ? mcp.receive(frame) : mcp.receive((FramingError) read);
                reportClient();
                if (!handle(inbound)) {
                    return ExitStatus.PROTOCOL_ERROR;
                }
                if (!reader.hasBufferedLine()) {
                    // The reader is about to wait for input: nothing it answered may wait with it.
                    release();
                }
                if (isBroken()) {
                    cancelAll();
                    return ExitStatus.OUTPUT_BROKEN;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            diagnostics.println("postern: the session was interrupted; cancelling in-flight calls");
            cancelAll();
            return ExitStatus.INTERRUPTED;
        } catch (CatalogRefused e) {
            // Not a fault: the config failed its deferred check before this frame was served; the frame is
            // answered with why (McpServer), and Gateway.serve reports it and exits 4 (ConfigGate).
            cancelAll();
            // A notification cannot be answered: the next request is, within a bound (ConfigRefusal).
            e.answer().or(() -> ConfigRefusal.nextAnswer(reader, mcp, e, diagnostics)).ifPresent(this::closeWith);
            throw e;
        } catch (RuntimeException | Error e) {
            // No stack trace: stderr gets one line, stdout one error line, then the documented close.
            diagnostics.println("postern: internal error while reading: " + e + "; closing the session");
            closeWith(mcp.errorLine(null, ErrorCode.INTERNAL_ERROR, "internal error; the session is closed"));
            return ExitStatus.INTERNAL_ERROR;
        } finally {
            release();
            // Not shutdownNow: in-flight calls were cancelled through their Cancellation, and an
            // interrupt would land in a worker's journal write (ChainedJsonLines), failing its row.
            workers.shutdown();
        }
    }

    /** Carries out one inbound step; false when the session must end. */
    private boolean handle(Inbound inbound) throws InterruptedException {
        if (inbound instanceof Inbound.Respond r) {
            r.rejection().ifPresent(journal::rejected);
            if (mcp.catalogReady() && reader.hasBufferedLines(FrameWriter.MAX_HELD_LINES)) {
                hold(r.line());
            } else {
                emit(r.line());
            }
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
            Running running = inFlight.get(c.id());
            if (running != null) {
                running.byClient = true;
                running.cancellation.cancel();
            }
            return true;
        }
        Inbound.Ignore ignore = (Inbound.Ignore) inbound;
        if (ignore.unexpected()) {
            diagnostics.println("postern: ignored a notification: " + ignore.why());
        }
        return true;
    }

    /** Admits a tool call (waiting while the queue is full) and hands it to the workers; false (session over) on a duplicate id. */
    private boolean start(Inbound.Execute e, Answer answer) throws InterruptedException {
        if (inFlight.containsKey(e.id())) {
            journal.rejected(new Rejection(Stage.JSONRPC, "DUPLICATE_ID", Optional.empty(), e.frameSha256()));
            closeWith(mcp.errorLine(e.id(), ErrorCode.INVALID_REQUEST, "invalid request: id is already in flight"));
            return false;
        }
        if (!admitted.tryAcquire()) {
            // Every place is taken: the answers held so far go out before the reader waits for one.
            release();
            admitted.acquire();
        }
        Running running = new Running(progressOf(e), mcp.span(e.id()).calls());
        inFlight.put(e.id(), running);
        try {
            workers.execute(() -> perform(e, running, answer));
        } catch (RuntimeException rejected) {
            inFlight.remove(e.id());
            admitted.release();
            throw rejected;
        }
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

    /**
     * Runs one tool call through the {@link ToolCallService} on a worker thread, then answers it. A call
     * cancelled while it waited is still decided and journaled (a permit's outcome row says
     * CANCELLED) but never runs; a call the client cancelled gets no answer, one the session cancelled
     * (end of input past the grace period, an interrupt) is answered. Whatever is thrown becomes an answer for the
     * call; the place is released in every case.
     */
    private void perform(Inbound.Execute call, Running running, Answer answer) {
        Cancellation cancellation = running.cancellation;
        String line = null;
        VirtualMachineError fatalError = null;
        Place place = new Place();
        try {
            VirtualMachineError[] executorFatal = new VirtualMachineError[1];
            ToolCallService.Asking asking = new ToolCallService.Asking(call.tool(), call.approval(), new Approvals.Elicitor() {
                @Override
                public Approvals.Asked ask(ObjectNode params, Duration timeout, Cancellation c) {
                    return place.startWaiting() ? questions.ask(params, timeout, c) : tooManyWaiting();
                }

                @Override
                public Approvals.Asked await(Optional<ObjectNode> question, boolean replyEnds,
                        java.util.concurrent.CompletableFuture<?> local, Duration timeout, Cancellation c) {
                    return place.startWaiting() ? questions.await(question, replyEnds, local, timeout, c) : tooManyWaiting();
                }
            }, mcp.client().map(f -> f.name() + " " + f.version()).orElse("an MCP client"));
            line = calls.call(call.action(), call.frameSha256(), cancellation, asking, mcp.span(call.id()),
                    new ToolCallService.Answers<String>() {
                @Override
                public String denied(Decision.Deny deny) {
                    return mcp.renderDenial(call.id(), deny);
                }

                @Override
                public String executed(Outcome outcome) {
                    return mcp.renderOutcome(call.id(), outcome);
                }

                @Override
                public void fatal(VirtualMachineError error) {
                    executorFatal[0] = error;
                }

                @Override
                public String inputRequired(ObjectNode inputRequests, String requestState) {
                    return mcp.renderInputRequired(call.id(), inputRequests, requestState);
                }

                @Override
                public String missingCapability(ObjectNode requiredCapabilities) {
                    return mcp.renderMissingCapability(call.id(), requiredCapabilities);
                }
            });
            fatalError = executorFatal[0];
        } catch (VirtualMachineError e) {
            fatalError = e;
            line = internalError(call, e);
        } catch (Throwable e) {
            line = internalError(call, e);
        } finally {
            inFlight.remove(call.id());
            if (fatalError != null) {
                fatal = true; // before the answer: a client that reads it and sends more must find the session over
            }
            try {
                answer.accept(running.byClient ? null : line);
            } catch (VirtualMachineError e) {
                fatalError = e;
            } catch (Throwable e) {
                diagnostics.println("postern: could not answer a tool call: " + e);
            } finally {
                place.release();
            }
        }
        if (fatalError != null) {
            fatal(fatalError);
        }
    }

    /**
     * Where a call stands against the session's bounds: it holds a place among the admitted calls,
     * or, once it waits for a human, a place among the waiting ones instead. Used by one worker.
     */
    private final class Place {
        private boolean waiting;

        /** Trades the admitted place for a waiting one; false when maxInFlight calls already wait. */
        boolean startWaiting() {
            if (waiting) {
                return true;
            }
            if (!waits.tryAcquire()) {
                return false;
            }
            waiting = true;
            admitted.release();
            return true;
        }

        void release() {
            (waiting ? waits : admitted).release();
        }
    }

    /** The answer to a call that would wait for a human while maxInFlight calls already do. */
    private Approvals.Asked tooManyWaiting() {
        return new Approvals.Asked.Unavailable(maxInFlight + " calls already wait for a human");
    }

    private String internalError(Inbound.Execute call, Throwable e) {
        diagnostics.println("postern: internal error on a tool call: " + e);
        return mcp.errorLine(call.id(), ErrorCode.INTERNAL_ERROR, "internal error");
    }

    /**
     * A call admitted and not yet answered: its cancellation, and whether the client asked for it
     * (then its answer is suppressed, as MCP says). A call the session itself cancels (end of
     * input past the grace period, an interrupt) is still answered, with what it came to.
     */
    private static final class Running {
        final Cancellation cancellation;
        volatile boolean byClient;

        Running(dev.postern.policy.port.ProgressSink progress, dev.postern.policy.port.CallTrace trace) {
            this.cancellation = new Cancellation(progress, trace);
        }
    }

    /** Where a call's progress goes: to the client under its token while the call runs, nowhere when it gave none. */
    private dev.postern.policy.port.ProgressSink progressOf(Inbound.Execute e) {
        if (e.progressToken().isEmpty()) {
            return dev.postern.policy.port.ProgressSink.NONE;
        }
        dev.postern.protocol.mcp.ProgressToken token = e.progressToken().get();
        return (progress, total, message) -> {
            Running running = inFlight.get(e.id());
            if (running != null && !running.cancellation.isCancelled()) {
                emit(mcp.renderProgress(token, progress, total, message));
            }
        };
    }

    /** A fatal VM error: stop writing, cancel the rest, give them a moment to finish, then end the process. */
    private void fatal(VirtualMachineError e) {
        fatal = true;
        diagnostics.println("postern: fatal error: " + e + "; ending the session");
        cancelAll();
        awaitIdle(CANCEL_GRACE);
        release();
        output.close();
        onFatal.run();
    }

    /** Writes {@code line} now, after any held lines; {@code null} writes nothing. */
    private void emit(String line) {
        if (line != null) {
            output.write(line);
        }
    }

    /** Holds a line the reader answered itself, to go out with the next ones ({@link SessionOutput#hold}). */
    private void hold(String line) {
        output.hold(line);
    }

    /** Writes a notification to the client now, from any thread (after the held lines); nothing once the session is closed. */
    void notifyClient(String line) {
        output.write(line);
    }

    /** Writes the held lines, if any. */
    private void release() {
        output.release();
    }

    private void closeWith(String line) {
        output.closeWith(line);
        cancelAll();
        awaitIdle(CANCEL_GRACE);
    }

    private boolean isBroken() {
        return output.isBroken();
    }

    private void drain(Duration grace) {
        if (!awaitIdle(grace)) {
            diagnostics.println("postern: in-flight calls did not finish within " + grace.toSeconds() + " s; cancelling them");
            cancelAll();
            awaitIdle(CANCEL_GRACE);
        }
    }

    /** Idle: no call waits for a human and none holds an admitted place. */
    private boolean awaitIdle(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            if (!waits.tryAcquire(maxInFlight, timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                return false;
            }
            try {
                long left = Math.max(0, deadline - System.nanoTime());
                if (admitted.tryAcquire(capacity, left, TimeUnit.NANOSECONDS)) {
                    admitted.release(capacity);
                    return true;
                }
            } finally {
                waits.release(maxInFlight);
            }
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void cancelAll() {
        inFlight.values().forEach(r -> r.cancellation.cancel());
    }
}
