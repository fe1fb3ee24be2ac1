package dev.postern.executor.mcp;

import dev.postern.executor.mcp.Connection.Gone;
import dev.postern.executor.mcp.Connection.Response;
import dev.postern.policy.json.JsonValue;
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
            return McpFailures.exitedBeforeTheCall(server);
        } catch (IllegalStateException e) {
            return McpFailures.tooManyWaiting(server);
        }
        token.ifPresent(t -> connection.watchProgress(t.canonical(), sink));
        CompletableFuture<Boolean> cancelled = new CompletableFuture<>();
        cancellation.onCancel(() -> cancelled.complete(Boolean.TRUE));
        try {
            if (cancellation.isCancelled()) {
                connection.forget(id);
                return McpFailures.cancelledBeforeSent();
            }
            try {
                connection.send(Connection.message(id, "tools/call", Optional.of(new JsonObject(params))));
            } catch (IOException e) {
                connection.forget(id);
                return McpFailures.exitedWhileWriting(server);
            }
            long deadline = System.nanoTime() + server.timeout().toNanos();
            Object done;
            try {
                done = CompletableFuture.anyOf(answer, cancelled).get(Math.max(0, deadline - System.nanoTime()),
                        java.util.concurrent.TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                connection.abandon(id);
                connection.cancelUpstream(id, "timeout");
                return McpFailures.timedOut(server);
            } catch (java.util.concurrent.ExecutionException e) {
                return McpFailures.exitedBeforeAnswering(server);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                connection.abandon(id);
                connection.cancelUpstream(id, "cancelled");
                return McpFailures.interrupted();
            }
            if (!(done instanceof Response r)) {
                connection.abandon(id);
                connection.cancelUpstream(id, "cancelled by the client");
                return McpFailures.cancelled(server);
            }
            return judge(r);
        } finally {
            token.ifPresent(t -> connection.unwatchProgress(t.canonical()));
        }
    }

    private Outcome judge(Response r) {
        JsonObject message = r.message();
        if (message.get("error").isPresent()) {
            ExecutionFailure f = McpFailures.ofError(server, message, connection.mask());
            if (f.code() == FailureCode.UPSTREAM_PROTOCOL_ERROR) {
                reports.dropped(server.name(), "shape", r.sha256(), r.bytes());
            } else {
                rpcError = McpFailures.errorCode(message);
            }
            return f;
        }
        JsonValue result = message.get("result").orElseThrow();
        Optional<String> problem = CallResults.problem(result);
        if (problem.isPresent()) {
            reports.dropped(server.name(), "shape", r.sha256(), r.bytes());
            return McpFailures.protocolError(server, "its result is not a well-formed CallToolResult (" + problem.get() + ")");
        }
        long size = result.canonical().getBytes(StandardCharsets.UTF_8).length;
        Optional<ExecutionFailure> tooLarge = McpFailures.overCap(server, size);
        if (tooLarge.isPresent()) {
            return tooLarge.get();
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
                return McpFailures.protocolError(server, "its result does not conform to the tool's outputSchema")
                        .withDetail(connection.mask().mask(wrong.get()));
            }
        }
        return new UpstreamCallOutcome(server.name(), tool, masked, upstreamError);
    }
}
