package dev.postern.executor.mcp;

import dev.postern.policy.json.JsonValue;
import dev.postern.policy.json.JsonValue.JsonNumber;
import dev.postern.policy.json.JsonValue.JsonObject;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.port.SecretMask;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Every failure the upstream MCP executor answers with, in one place: a stable code and words for
 * the agent that name the configured server (and say whether the request was sent), never a path,
 * a pid or an exception; and the judgement of an upstream's JSON-RPC error, of a result over the
 * server's cap and of a result that breaks the protocol. The executor decides when a step failed;
 * this class says what that failure is. Stateless.
 */
final class McpFailures {
    /** An upstream's own error message is shown to the agent cut to this many characters. */
    static final int MAX_ERROR_MESSAGE = 200;
    private static final String EFFECT_UNKNOWN = "the request had been sent: its effect is unknown";

    private McpFailures() {
    }

    /** The executor was closed before the call. */
    static ExecutionFailure closed() {
        return new ExecutionFailure(FailureCode.EXECUTOR_FAILED, "the upstream executor is closed; nothing was sent");
    }

    /** The permit names a server this executor was not configured with (or configured otherwise). */
    static ExecutionFailure notConfigured(String server) {
        return new ExecutionFailure(FailureCode.EXECUTOR_FAILED, "upstream " + server
                + " is not one this executor was configured with; nothing was sent");
    }

    /** The server could not be had (not started, backing off, closed): {@code why} in the agent's words. */
    static ExecutionFailure unavailable(String why) {
        return new ExecutionFailure(FailureCode.UPSTREAM_UNAVAILABLE, why);
    }

    /** The call was cancelled while it waited for the server to start. */
    static ExecutionFailure cancelledWhileStarting(UpstreamServer server) {
        return new ExecutionFailure(FailureCode.CANCELLED, "the call was cancelled while upstream " + server.name()
                + " was starting; nothing was sent");
    }

    /** The server's live listing no longer has the permit's tool. */
    static ExecutionFailure toolGone(UpstreamServer server) {
        return new ExecutionFailure(FailureCode.UPSTREAM_UNAVAILABLE, "upstream " + server.name()
                + " no longer lists the tool; nothing was sent");
    }

    /** The tool's live definition no longer has the permit's pin. */
    static ExecutionFailure pinChanged() {
        return new ExecutionFailure(FailureCode.UPSTREAM_UNAVAILABLE,
                "the tool's definition changed since the call was allowed; nothing was sent");
    }

    /** The running server could not take the call ({@code what}: why, and whether anything was sent). */
    static ExecutionFailure unavailable(UpstreamServer server, String what) {
        return new ExecutionFailure(FailureCode.UPSTREAM_UNAVAILABLE, "upstream " + server.name() + ": " + what);
    }

    /** The server exited before the call was registered. */
    static ExecutionFailure exitedBeforeTheCall(UpstreamServer server) {
        return unavailable(server, "it exited before the call; nothing was sent");
    }

    /** Too many calls wait for the server already. */
    static ExecutionFailure tooManyWaiting(UpstreamServer server) {
        return unavailable(server, "too many calls are waiting for it; nothing was sent");
    }

    /** Writing the request failed: it may have been read in part. */
    static ExecutionFailure exitedWhileWriting(UpstreamServer server) {
        return unavailable(server, "it exited while the call was being written; " + EFFECT_UNKNOWN);
    }

    /** The server exited after the request was sent and before it answered. */
    static ExecutionFailure exitedBeforeAnswering(UpstreamServer server) {
        return unavailable(server, "it exited before it answered; " + EFFECT_UNKNOWN);
    }

    /** The call was cancelled before its request was written. */
    static ExecutionFailure cancelledBeforeSent() {
        return new ExecutionFailure(FailureCode.CANCELLED, "the call was cancelled before it was sent; nothing was sent");
    }

    /** The server's timeout passed after the request was sent; it was told to cancel. */
    static ExecutionFailure timedOut(UpstreamServer server) {
        return new ExecutionFailure(FailureCode.TIMEOUT, "upstream " + server.name() + " did not answer within "
                + server.timeout().toMillis() + " ms; it was told to cancel; " + EFFECT_UNKNOWN);
    }

    /** The calling thread was interrupted after the request was sent. */
    static ExecutionFailure interrupted() {
        return new ExecutionFailure(FailureCode.CANCELLED, "the call was interrupted; " + EFFECT_UNKNOWN);
    }

    /** The client cancelled the call after the request was sent; the server was told to cancel. */
    static ExecutionFailure cancelled(UpstreamServer server) {
        return new ExecutionFailure(FailureCode.CANCELLED, "the call was cancelled; upstream " + server.name()
                + " was told to cancel; " + EFFECT_UNKNOWN);
    }

    /**
     * What a JSON-RPC error response ({@code message} has an {@code error}) means: EXECUTOR_FAILED
     * with the upstream's code and its message, masked, made printable and cut to
     * {@link #MAX_ERROR_MESSAGE} characters; or, when the error has no integral {@code code} or no
     * string {@code message}, UPSTREAM_PROTOCOL_ERROR.
     */
    static ExecutionFailure ofError(UpstreamServer server, JsonObject message, SecretMask mask) {
        Optional<JsonObject> error = message.object("error");
        Optional<JsonValue> code = error.flatMap(e -> e.get("code"));
        Optional<String> text = error.flatMap(e -> e.string("message"));
        if (code.isEmpty() || !(code.get() instanceof JsonNumber n) || integral(n).isEmpty() || text.isEmpty()) {
            return protocolError(server, "its error response is not a well-formed JSON-RPC error");
        }
        String shown = StderrPump.printable(mask.mask(text.get()));
        if (shown.length() > MAX_ERROR_MESSAGE) {
            shown = shown.substring(0, MAX_ERROR_MESSAGE) + "…";
        }
        return new ExecutionFailure(FailureCode.EXECUTOR_FAILED, "upstream " + server.name() + " answered the call with JSON-RPC error "
                + integral(n).get() + ": " + shown);
    }

    /** The JSON-RPC error code of a well-formed error response, when it fits an {@code int}; else empty (for the call's span). */
    static OptionalInt errorCode(JsonObject message) {
        Optional<JsonValue> code = message.object("error").flatMap(e -> e.get("code"));
        if (code.isEmpty() || !(code.get() instanceof JsonNumber n)) {
            return OptionalInt.empty();
        }
        return integral(n).filter(c -> c >= Integer.MIN_VALUE && c <= Integer.MAX_VALUE).map(c -> OptionalInt.of((int) (long) c))
                .orElse(OptionalInt.empty());
    }

    /** RESPONSE_TOO_LARGE when a result of {@code size} canonical bytes is over the server's cap; else empty. */
    static Optional<ExecutionFailure> overCap(UpstreamServer server, long size) {
        if (size > server.maxResponseBytes()) {
            return Optional.of(new ExecutionFailure(FailureCode.RESPONSE_TOO_LARGE, "upstream " + server.name() + "'s result is " + size
                    + " bytes, over the server's cap of " + server.maxResponseBytes() + "; nothing of it is returned"));
        }
        return Optional.empty();
    }

    /** The server's answer broke the protocol ({@code why}); nothing of it goes back. */
    static ExecutionFailure protocolError(UpstreamServer server, String why) {
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
