package dev.postern.policy.port;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The trace of one permitted call, for an executor whose effect is itself a request to another
 * service: each such request is a CLIENT span, a child of the call's SERVER span, whose W3C context
 * the executor may carry in the request it sends. The executor sees only this port and
 * {@link TraceContext}, never a tracing library. Implementations never block or throw.
 * {@link #NONE} traces nothing. Thread-safe.
 */
public interface CallTrace {

    /** No tracing: every client span is {@link Client#NONE}. */
    CallTrace NONE = request -> Client.NONE;

    /** A request is about to be sent; the span is ended by {@link Client#ended}. */
    Client client(Request request);

    /** What is about to be sent, in names and numbers only: never a URL's path or query, an argument or a body. */
    sealed interface Request permits Http, Mcp {
    }

    /**
     * An HTTP request: its method, the URL's scheme, host and port (the target's own origin, allowed by
     * the policy), and the name of the HTTP target in the config.
     */
    record Http(String method, String scheme, String host, int port, String target) implements Request {
        public Http {
            Objects.requireNonNull(method, "method");
            Objects.requireNonNull(scheme, "scheme");
            Objects.requireNonNull(host, "host");
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("port must be 1 to 65535");
            }
            Objects.requireNonNull(target, "target");
        }
    }

    /** An MCP request to an upstream server: its method ({@code tools/call}), the tool's name, the server's name in the config. */
    record Mcp(String method, String tool, String server) implements Request {
        public Mcp {
            Objects.requireNonNull(method, "method");
            Objects.requireNonNull(tool, "tool");
            Objects.requireNonNull(server, "server");
        }
    }

    /**
     * How the request ended: the response's status (an HTTP status code, or a JSON-RPC error code),
     * and the error type when it failed (a {@code FailureCode}'s name, {@code tool_error}, or an HTTP
     * status of 400 and over as text).
     */
    record Result(OptionalInt status, Optional<String> errorType) {
        public Result {
            Objects.requireNonNull(status, "status");
            Objects.requireNonNull(errorType, "errorType");
        }
    }

    /** One outbound request's span. Its methods may be called from different threads, one after the other. */
    interface Client {
        /** A span that records nothing and carries no context. */
        Client NONE = new Client() {
            @Override
            public Optional<TraceContext> context() {
                return Optional.empty();
            }

            @Override
            public void ended(Result result) {
            }
        };

        /** The W3C context naming this span, to send with the request; empty when nothing is traced. */
        Optional<TraceContext> context();

        /** The request ended; the span ends (later calls do nothing). */
        void ended(Result result);
    }
}
