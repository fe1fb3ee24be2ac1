package dev.postern.executor.mcp;

import dev.postern.executor.mcp.Connection.Gone;
import dev.postern.executor.mcp.Connection.Response;
import dev.postern.policy.json.JsonValue;
import dev.postern.policy.json.JsonValue.JsonNumber;
import dev.postern.policy.json.JsonValue.JsonObject;
import dev.postern.policy.json.JsonValue.JsonString;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.outcome.UpstreamCallOutcome;
import dev.postern.policy.port.Cancellation;
import dev.postern.policy.port.ProgressSink;
import dev.postern.policy.port.SchemaValidator;
import dev.postern.policy.port.UpstreamReports;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import dev.postern.policy.port.CallTrace;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One {@code tools/call} on a running upstream: a fresh request id (the downstream's never travels),
 * a fresh progress token when the client asked for progress, at most the server's timeout, a
 * {@code notifications/cancelled} upstream on timeout or cancellation, then the result checked (its
 * shape; a success's {@code structuredContent} against the pinned {@code outputSchema}), capped and masked. Used once.
 */
final class ToolCall {
    private static final AtomicLong TOKENS = new AtomicLong();
    private static final String EFFECT_UNKNOWN = "the request had been sent: its effect is unknown";
    /** An upstream's own error message is shown to the agent cut to this many characters. */
    static final int MAX_ERROR_MESSAGE = 200;

    private final Connection connection;
    private final UpstreamServer server;
    private final String tool;
    private final JsonObject arguments;
    private final Optional<SchemaValidator.Check> output;
    private final Cancellation cancellation;
    private final UpstreamReports reports;
    /** The JSON-RPC error code the upstream answered with, if it did. */
    private OptionalInt rpcError = OptionalInt.empty();

    ToolCall(Connection connection, UpstreamServer server, String tool, JsonObject arguments, Optional<SchemaValidator.Check> output,
            Cancellation cancellation, UpstreamReports reports) {
        this.connection = connection;
        this.server = server;
        this.tool = tool;
        this.arguments = arguments;
        this.output = output;
        this.cancellation = cancellation;
        this.reports = reports;
    }

    Outcome run() {
        long id = connection.nextId();
        LinkedHashMap<String, JsonValue> params = new LinkedHashMap<>();
        params.put("name", new JsonString(tool));
        params.put("arguments", arguments);
        ProgressSink sink = cancellation.progress();
        Optional<JsonString> token = Optional.empty();
        LinkedHashMap<String, JsonValue> meta = new LinkedHashMap<>();
        if (sink != ProgressSink.NONE) {
            token = Optional.of(new JsonString("postern-progress-" + TOKENS.incrementAndGet()));
            meta.put("progressToken", token.get());
        }
        // A CLIENT span of the call's trace; its W3C context travels in the request's _meta (SEP-414).
        CallTrace.Client span = cancellation.trace().client(new CallTrace.Mcp("tools/call", tool, server.name()));
        span.context().ifPresent(c -> {
            meta.put("traceparent", new JsonString(c.traceparent()));
            c.tracestate().ifPresent(state -> meta.put("tracestate", new JsonString(state)));
        });
        if (!meta.isEmpty()) {
            params.put("_meta", new JsonObject(meta));
        }
        Outcome outcome = send(id, params, sink, token);
        span.ended(traced(outcome));
        return outcome;
    }

    /** What the CLIENT span says of {@code outcome}: a JSON-RPC error's code, {@code tool_error} for a result with isError, or the failure code. */
    private CallTrace.Result traced(Outcome outcome) {
        if (outcome instanceof UpstreamCallOutcome r) {
            return new CallTrace.Result(OptionalInt.empty(), r.upstreamError() ? Optional.of("tool_error") : Optional.empty());
        }
        if (outcome instanceof ExecutionFailure f) {
            return new CallTrace.Result(rpcError, Optional.of(rpcError.isPresent() ? Integer.toString(rpcError.getAsInt()) : f.code().name()));
        }
        return new CallTrace.Result(OptionalInt.empty(), Optional.empty());
    }

    private Outcome send(long id, LinkedHashMap<String, JsonValue> params, ProgressSink sink, Optional<JsonString> token) {
        CompletableFuture<Response> answer;
        try {
            answer = connection.register(id);
        } catch (Gone e) {
            return unavailable("it exited before the call; nothing was sent");
        } catch (IllegalStateException e) {
            return unavailable("too many calls are waiting for it; nothing was sent");
        }
        token.ifPresent(t -> connection.watchProgress(t.canonical(), sink));
        CompletableFuture<Boolean> cancelled = new CompletableFuture<>();
        cancellation.onCancel(() -> cancelled.complete(Boolean.TRUE));
        try {
            if (cancellation.isCancelled()) {
                connection.forget(id);
                return new ExecutionFailure(FailureCode.CANCELLED, "the call was cancelled before it was sent; nothing was sent");
            }
            try {
                connection.send(Connection.message(id, "tools/call", Optional.of(new JsonObject(params))));
            } catch (IOException e) {
                connection.forget(id);
                return unavailable("it exited while the call was being written; " + EFFECT_UNKNOWN);
            }
            long deadline = System.nanoTime() + server.timeout().toNanos();
            Object done;
            try {
                done = CompletableFuture.anyOf(answer, cancelled).get(Math.max(0, deadline - System.nanoTime()),
                        java.util.concurrent.TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                connection.abandon(id);
                connection.cancelUpstream(id, "timeout");
                return new ExecutionFailure(FailureCode.TIMEOUT, "upstream " + server.name() + " did not answer within "
                        + server.timeout().toMillis() + " ms; it was told to cancel; " + EFFECT_UNKNOWN);
            } catch (java.util.concurrent.ExecutionException e) {
                return unavailable("it exited before it answered; " + EFFECT_UNKNOWN);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                connection.abandon(id);
                connection.cancelUpstream(id, "cancelled");
                return new ExecutionFailure(FailureCode.CANCELLED, "the call was interrupted; " + EFFECT_UNKNOWN);
            }
            if (!(done instanceof Response r)) {
                connection.abandon(id);
                connection.cancelUpstream(id, "cancelled by the client");
                return new ExecutionFailure(FailureCode.CANCELLED, "the call was cancelled; upstream " + server.name()
                        + " was told to cancel; " + EFFECT_UNKNOWN);
            }
            return judge(r);
        } finally {
            token.ifPresent(t -> connection.unwatchProgress(t.canonical()));
        }
    }

    private ExecutionFailure unavailable(String what) {
        return new ExecutionFailure(FailureCode.UPSTREAM_UNAVAILABLE, "upstream " + server.name() + ": " + what);
    }

    private Outcome judge(Response r) {
        JsonObject message = r.message();
        if (message.get("error").isPresent()) {
            Optional<JsonObject> error = message.object("error");
            Optional<JsonValue> code = error.flatMap(e -> e.get("code"));
            Optional<String> text = error.flatMap(e -> e.string("message"));
            if (code.isEmpty() || !(code.get() instanceof JsonNumber n) || integral(n).isEmpty() || text.isEmpty()) {
                reports.dropped(server.name(), "shape", r.sha256(), r.bytes());
                return protocolError("its error response is not a well-formed JSON-RPC error");
            }
            long c = integral(n).get();
            if (c >= Integer.MIN_VALUE && c <= Integer.MAX_VALUE) {
                rpcError = OptionalInt.of((int) c);
            }
            String shown = StderrPump.printable(connection.mask().mask(text.get()));
            if (shown.length() > MAX_ERROR_MESSAGE) {
                shown = shown.substring(0, MAX_ERROR_MESSAGE) + "…";
            }
            return new ExecutionFailure(FailureCode.EXECUTOR_FAILED, "upstream " + server.name() + " answered the call with JSON-RPC error "
                    + integral(n).get() + ": " + shown);
        }
        JsonValue result = message.get("result").orElseThrow();
        Optional<String> problem = CallResults.problem(result);
        if (problem.isPresent()) {
            reports.dropped(server.name(), "shape", r.sha256(), r.bytes());
            return protocolError("its result is not a well-formed CallToolResult (" + problem.get() + ")");
        }
        long size = result.canonical().getBytes(StandardCharsets.UTF_8).length;
        if (size > server.maxResponseBytes()) {
            return new ExecutionFailure(FailureCode.RESPONSE_TOO_LARGE, "upstream " + server.name() + "'s result is " + size
                    + " bytes, over the server's cap of " + server.maxResponseBytes() + "; nothing of it is returned");
        }
        JsonObject masked = (JsonObject) CallResults.mask(result, connection.mask());
        boolean upstreamError = CallResults.isError(masked);
        // MCP: a tool with an outputSchema MUST return conforming structuredContent; a client SHOULD check it.
        // What is checked is what would be passed on; an upstream's own error result carries none to check.
        if (output.isPresent() && !upstreamError) {
            Optional<JsonValue> structured = masked.get("structuredContent");
            Optional<String> wrong = structured.isEmpty() ? Optional.of("it has no structuredContent")
                    : output.get().problem(structured.get()).map(p -> "structuredContent " + p);
            if (wrong.isPresent()) {
                reports.dropped(server.name(), "shape", r.sha256(), r.bytes());
                return protocolError("its result does not conform to the tool's outputSchema")
                        .withDetail(connection.mask().mask(wrong.get()));
            }
        }
        return new UpstreamCallOutcome(server.name(), tool, masked, upstreamError);
    }

    private ExecutionFailure protocolError(String why) {
        return new ExecutionFailure(FailureCode.UPSTREAM_PROTOCOL_ERROR, "upstream " + server.name() + " broke the protocol: " + why
                + "; nothing of its answer is returned");
    }

    private static Optional<Long> integral(JsonNumber n) {
        try {
            return Optional.of(n.value().longValueExact());
        } catch (ArithmeticException e) {
            return Optional.empty();
        }
    }
}
