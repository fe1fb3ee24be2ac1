package dev.postern.executor.mcp;

import dev.postern.policy.json.JsonValue;
import dev.postern.policy.json.JsonValue.JsonNumber;
import dev.postern.policy.json.JsonValue.JsonObject;
import dev.postern.policy.json.JsonValue.JsonString;
import dev.postern.policy.port.JsonCodec;
import dev.postern.policy.port.ProgressSink;
import dev.postern.policy.port.SecretMask;
import dev.postern.policy.port.UpstreamReports;
import dev.postern.transport.EndOfInput;
import dev.postern.transport.Frame;
import dev.postern.transport.FrameReader;
import dev.postern.transport.FramingError;
import dev.postern.transport.ReadResult;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One running upstream child and the JSON-RPC spoken with it: requests multiplexed by fresh numeric
 * ids, one reader thread that judges every stdout line (strict framing through transport's
 * {@link FrameReader}, strict JSON through the lent {@link JsonCodec}, then the JSON-RPC shape) and
 * drops and reports what it will not pass on, a stderr pump, and the stop sequence. Thread-safe.
 */
final class Connection {
    /** At most this many requests wait for an answer at once; more are refused, never queued. */
    static final int MAX_PENDING = 256;
    /** How many ids of abandoned requests (timed out, cancelled) are remembered, so their late answers are dropped quietly. */
    private static final int ABANDONED_IDS = 64;
    private static final Duration GRACE = Duration.ofMillis(500);

    /** A response (result or error) that answered a pending request, with its line's fingerprint for the journal. */
    record Response(JsonObject message, String sha256, long bytes) {
    }

    /** The connection ended (the child exited, its stdout broke) before the request was answered. */
    static final class Gone extends Exception {
        private static final long serialVersionUID = 1L;

        Gone() {
            super("the upstream is gone", null, false, false);
        }
    }

    private final String server;
    private final Process process;
    private final OutputStream stdin;
    private final JsonCodec codec;
    private final UpstreamReports reports;
    private final PrintStream diagnostics;
    private final SecretMask mask;
    private final int maxLineBytes;
    private final RateCap logCap = new RateCap();
    private final AtomicLong ids = new AtomicLong();
    private final Map<Long, CompletableFuture<Response>> pending = new ConcurrentHashMap<>();
    private final Map<String, ProgressSink> progress = new ConcurrentHashMap<>();
    private final Map<Long, Boolean> abandoned = java.util.Collections.synchronizedMap(new LinkedHashMap<>() {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
            return size() > ABANDONED_IDS;
        }
    });
    private final AtomicBoolean gone = new AtomicBoolean();
    private final Runnable onListChanged;
    private final Runnable onGone;

    Connection(String server, Process process, JsonCodec codec, UpstreamReports reports, PrintStream diagnostics,
            SecretMask mask, long maxResponseBytes, Runnable onListChanged, Runnable onGone) {
        this.server = server;
        this.process = process;
        this.stdin = process.getOutputStream();
        this.codec = codec;
        this.reports = reports;
        this.diagnostics = diagnostics;
        this.mask = mask;
        this.maxLineBytes = (int) Math.min(Integer.MAX_VALUE - 64L, Math.max(maxResponseBytes + 64 * 1024, 1024 * 1024));
        this.onListChanged = onListChanged;
        this.onGone = onGone;
    }

    /** Starts the reader and stderr threads; call once, right after construction. */
    void begin() {
        Thread reader = new Thread(this::readLoop, "postern-upstream-" + server + "-stdout");
        reader.setDaemon(true);
        reader.start();
        Thread err = new Thread(new StderrPump(process.getErrorStream(), server, mask, diagnostics, logCap),
                "postern-upstream-" + server + "-stderr");
        err.setDaemon(true);
        err.start();
    }

    SecretMask mask() {
        return mask;
    }

    boolean isGone() {
        return gone.get();
    }

    long pid() {
        return process.pid();
    }

    /** The child's exit status, once it has exited. */
    Optional<Integer> exitStatus() {
        return process.isAlive() ? Optional.empty() : Optional.of(process.exitValue());
    }

    long nextId() {
        return ids.incrementAndGet();
    }

    /**
     * Registers request {@code id} as pending (before it is written, so its answer cannot come first).
     * Throws {@link Gone} when the connection has ended, or {@link IllegalStateException} when
     * {@link #MAX_PENDING} requests are already waiting.
     */
    CompletableFuture<Response> register(long id) throws Gone {
        if (pending.size() >= MAX_PENDING) {
            throw new IllegalStateException("too many requests in flight");
        }
        CompletableFuture<Response> f = new CompletableFuture<>();
        pending.put(id, f);
        if (gone.get()) {
            pending.remove(id);
            throw new Gone();
        }
        return f;
    }

    /** Forgets request {@code id}; an answer that still comes is dropped without a report. */
    void abandon(long id) {
        if (pending.remove(id) != null) {
            abandoned.put(id, Boolean.TRUE);
        }
    }

    void forget(long id) {
        pending.remove(id);
    }

    void watchProgress(String token, ProgressSink sink) {
        progress.put(token, sink);
    }

    void unwatchProgress(String token) {
        progress.remove(token);
    }

    /** Sends a request and returns its answer's future. */
    CompletableFuture<Response> request(String method, Optional<JsonObject> params) throws Gone, IOException {
        long id = nextId();
        CompletableFuture<Response> f = register(id);
        try {
            send(message(id, method, params));
        } catch (IOException e) {
            forget(id);
            throw e;
        }
        return f;
    }

    /** Waits for {@code f} until {@code deadlineNanos} ({@link System#nanoTime()}); empty when it passed. */
    static Optional<Response> await(CompletableFuture<Response> f, long deadlineNanos) throws Gone, InterruptedException {
        try {
            return Optional.of(f.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS));
        } catch (java.util.concurrent.TimeoutException e) {
            return Optional.empty();
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof Gone g) {
                throw g;
            }
            throw new IllegalStateException("a request's answer failed", e.getCause());
        }
    }

    static JsonObject message(long id, String method, Optional<JsonObject> params) {
        LinkedHashMap<String, JsonValue> m = new LinkedHashMap<>();
        m.put("jsonrpc", new JsonString("2.0"));
        m.put("id", JsonNumber.of(id));
        m.put("method", new JsonString(method));
        params.ifPresent(p -> m.put("params", p));
        return new JsonObject(m);
    }

    void notifyUpstream(String method, Optional<JsonObject> params) throws IOException {
        LinkedHashMap<String, JsonValue> m = new LinkedHashMap<>();
        m.put("jsonrpc", new JsonString("2.0"));
        m.put("method", new JsonString(method));
        params.ifPresent(p -> m.put("params", p));
        send(new JsonObject(m));
    }

    /** Tells the upstream to stop working on request {@code id}; a failure to send is only logged. */
    void cancelUpstream(long id, String reason) {
        try {
            LinkedHashMap<String, JsonValue> params = new LinkedHashMap<>();
            params.put("requestId", JsonNumber.of(id));
            params.put("reason", new JsonString(reason));
            notifyUpstream("notifications/cancelled", Optional.of(new JsonObject(params)));
        } catch (IOException e) {
            diagnostics.println("postern: upstream " + server + ": could not send notifications/cancelled (its stdin is closed)");
        }
    }

    /** Writes one message as one line; a write failure ends the connection. */
    void send(JsonObject message) throws IOException {
        byte[] line = (codec.write(message) + "\n").getBytes(StandardCharsets.UTF_8);
        synchronized (stdin) {
            try {
                stdin.write(line);
                stdin.flush();
            } catch (IOException e) {
                end();
                throw e;
            }
        }
    }

    private void readLoop() {
        LineFeeder feeder = new LineFeeder(process.getInputStream());
        FrameReader reader = new FrameReader(feeder, maxLineBytes);
        try {
            while (true) {
                ReadResult r = reader.next();
                if (r instanceof Frame f) {
                    handle(f.text(), f.sha256(), f.text().getBytes(StandardCharsets.UTF_8).length);
                } else if (r instanceof EndOfInput) {
                    break;
                } else {
                    FramingError e = (FramingError) r;
                    if (e.kind() == FramingError.Kind.IO_ERROR) {
                        break;
                    }
                    long seen = feeder.currentLineBytes();
                    if (e.kind() == FramingError.Kind.TRUNCATED) {
                        reports.dropped(server, "framing", e.sha256(), seen);
                        break;
                    }
                    feeder.skipLine();
                    reports.dropped(server, "framing", e.sha256(), feeder.lastLineBytes());
                    reader = new FrameReader(feeder, maxLineBytes);
                }
            }
        } catch (IOException e) {
            // Skipping the rest of a refused line failed: the stream is broken, the connection ends.
        } catch (RuntimeException e) {
            diagnostics.println("postern: upstream " + server + ": reading its stdout failed: " + mask.mask(String.valueOf(e)));
        }
        end();
    }

    private void handle(String text, String sha256, long bytes) {
        JsonValue value;
        try {
            value = codec.parse(text);
        } catch (JsonCodec.Malformed e) {
            reports.dropped(server, "json", sha256, bytes);
            return;
        }
        if (!(value instanceof JsonObject m) || !m.string("jsonrpc").filter("2.0"::equals).isPresent()) {
            reports.dropped(server, "jsonrpc", sha256, bytes);
            return;
        }
        Optional<JsonValue> id = m.get("id");
        Optional<JsonValue> method = m.get("method");
        if (method.isPresent()) {
            if (!(method.get() instanceof JsonString name) || m.get("params").filter(p -> !(p instanceof JsonObject)).isPresent()) {
                reports.dropped(server, "jsonrpc", sha256, bytes);
            } else if (id.isPresent()) {
                answerRequest(id.get(), sha256, bytes);
            } else {
                notification(name.value(), m.object("params").orElse(JsonObject.empty()));
            }
            return;
        }
        if (id.isEmpty() || m.get("result").isPresent() == m.get("error").isPresent()) {
            reports.dropped(server, "jsonrpc", sha256, bytes);
            return;
        }
        Optional<Long> key = integral(id.get());
        CompletableFuture<Response> f = key.map(pending::remove).orElse(null);
        if (f == null) {
            if (key.isEmpty() || abandoned.remove(key.get()) == null) {
                reports.dropped(server, "unsolicited", sha256, bytes);
            }
            return;
        }
        f.complete(new Response(m, sha256, bytes));
    }

    /** A request from the upstream (sampling, elicitation, roots, anything): answered -32601, reported. */
    private void answerRequest(JsonValue id, String sha256, long bytes) {
        if (!(id instanceof JsonString) && !(id instanceof JsonNumber)) {
            reports.dropped(server, "jsonrpc", sha256, bytes);
            return;
        }
        reports.dropped(server, "request", sha256, bytes);
        LinkedHashMap<String, JsonValue> m = new LinkedHashMap<>();
        m.put("jsonrpc", new JsonString("2.0"));
        m.put("id", id);
        LinkedHashMap<String, JsonValue> error = new LinkedHashMap<>();
        error.put("code", JsonNumber.of(-32601));
        error.put("message", new JsonString("Method not found: this client offers no capabilities"));
        m.put("error", new JsonObject(error));
        try {
            send(new JsonObject(m));
        } catch (IOException e) {
            // The connection ended; the reader sees it next.
        }
    }

    private void notification(String method, JsonObject params) {
        switch (method) {
            case "notifications/progress":
                progress(params);
                break;
            case "notifications/tools/list_changed":
                onListChanged.run();
                break;
            case "notifications/message":
                if (logCap.admit()) {
                    String level = params.string("level").orElse("?");
                    String data = params.get("data").map(JsonValue::canonical).orElse("");
                    if (data.length() > StderrPump.MAX_LINE_BYTES) {
                        data = data.substring(0, StderrPump.MAX_LINE_BYTES) + " [cut]";
                    }
                    diagnostics.println("postern: upstream " + server + ": log " + StderrPump.printable(mask.mask(level)) + ": "
                            + StderrPump.printable(mask.mask(data)));
                }
                break;
            default:
                // Other notifications (resources, prompts, a cancellation of ours) carry nothing the gateway passes on.
                break;
        }
    }

    private void progress(JsonObject params) {
        Optional<JsonValue> token = params.get("progressToken");
        if (token.isEmpty()) {
            return;
        }
        ProgressSink sink = progress.get(token.get().canonical());
        Optional<JsonValue> done = params.get("progress");
        if (sink == null || done.isEmpty() || !(done.get() instanceof JsonNumber n)) {
            return;
        }
        Optional<BigDecimal> total = params.get("total").filter(JsonNumber.class::isInstance).map(t -> ((JsonNumber) t).value());
        Optional<String> message = params.string("message").map(mask::mask);
        sink.progress(n.value(), total, message);
    }

    private static Optional<Long> integral(JsonValue id) {
        if (!(id instanceof JsonNumber n)) {
            return Optional.empty();
        }
        try {
            return Optional.of(n.value().longValueExact());
        } catch (ArithmeticException e) {
            return Optional.empty();
        }
    }

    /** Marks the connection ended: pending requests fail {@link Gone}, the owner hears of it once. */
    private void end() {
        if (!gone.compareAndSet(false, true)) {
            return;
        }
        List<CompletableFuture<Response>> waiting = new ArrayList<>(pending.values());
        pending.clear();
        waiting.forEach(f -> f.completeExceptionally(new Gone()));
        onGone.run();
    }

    /**
     * Stops the child: stdin closed (a well-behaved server exits), a short grace, then SIGTERM and
     * SIGKILL, and SIGKILL to every descendant it started (looked up first, while they are still its
     * descendants). Returns once the child has exited or the last signal was sent.
     */
    void stop() {
        List<ProcessHandle> descendants = new ArrayList<>(process.descendants().toList());
        synchronized (stdin) {
            try {
                stdin.close();
            } catch (IOException e) {
                // Already closed.
            }
        }
        try {
            if (!process.waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(descendants::add);
                process.destroy();
                if (!process.waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS);
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        descendants.forEach(ProcessHandle::destroyForcibly);
        end();
    }
}
