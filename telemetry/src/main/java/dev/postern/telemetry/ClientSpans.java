package dev.postern.telemetry;

import static dev.postern.telemetry.Conventions.*;

import dev.postern.policy.port.CallTrace;
import dev.postern.policy.port.TraceContext;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.util.Optional;

/**
 * The executors' outbound requests as CLIENT spans, children of one call's SERVER span: an upstream
 * MCP request in the MCP conventions ({@code tools/call {gen_ai.tool.name}}), an HTTP request in the
 * HTTP client conventions ({@code {http.request.method}}; no {@code url.full}, since a URL's path and
 * query are the agent's values). Thread-safe.
 */
final class ClientSpans implements CallTrace {
    private final Tracer tracer;
    private final Context parent;

    ClientSpans(Tracer tracer, Span server) {
        this.tracer = tracer;
        this.parent = Context.root().with(server);
    }

    @Override
    public Client client(Request request) {
        var builder = tracer.spanBuilder(name(request)).setSpanKind(SpanKind.CLIENT).setParent(parent);
        boolean http = request instanceof Http;
        if (request instanceof Http h) {
            builder.setAttribute(HTTP_REQUEST_METHOD, HttpMethods.of(h.method()))
                    .setAttribute(SERVER_ADDRESS, h.host())
                    .setAttribute(SERVER_PORT, (long) h.port())
                    .setAttribute(URL_SCHEME, h.scheme())
                    .setAttribute(POSTERN_TARGET, h.target())
                    .setAttribute(POSTERN_KIND, "http_request");
            if (!HttpMethods.known(h.method())) {
                builder.setAttribute(HTTP_REQUEST_METHOD_ORIGINAL, h.method());
            }
        } else if (request instanceof Mcp m) {
            builder.setAttribute(MCP_METHOD_NAME, Conventions.method(m.method()))
                    .setAttribute(GEN_AI_TOOL_NAME, m.tool())
                    .setAttribute(GEN_AI_OPERATION_NAME, EXECUTE_TOOL)
                    .setAttribute(NETWORK_TRANSPORT, PIPE)
                    .setAttribute(POSTERN_TARGET, m.server())
                    .setAttribute(POSTERN_KIND, "upstream");
        }
        return new Outbound(builder.startSpan(), http);
    }

    private static String name(Request request) {
        if (request instanceof Http h) {
            return HttpMethods.known(h.method()) ? h.method() : "HTTP";
        }
        Mcp m = (Mcp) request;
        return Conventions.method(m.method()) + " " + m.tool();
    }

    /** One CLIENT span; ended once. */
    private static final class Outbound implements Client {
        private final Span span;
        private final boolean http;
        private boolean ended;

        Outbound(Span span, boolean http) {
            this.span = span;
            this.http = http;
        }

        @Override
        public Optional<TraceContext> context() {
            SpanContext c = span.getSpanContext();
            if (!c.isValid()) {
                return Optional.empty();
            }
            StringBuilder state = new StringBuilder();
            c.getTraceState().forEach((k, v) -> state.append(state.length() == 0 ? "" : ",").append(k).append('=').append(v));
            try {
                return Optional.of(new TraceContext("00-" + c.getTraceId() + "-" + c.getSpanId() + "-" + c.getTraceFlags().asHex(),
                        state.length() == 0 ? Optional.empty() : Optional.of(state.toString())));
            } catch (IllegalArgumentException e) {
                // A tracestate the client sent that is not one W3C allows: the traceparent alone travels.
                return Optional.of(new TraceContext("00-" + c.getTraceId() + "-" + c.getSpanId() + "-" + c.getTraceFlags().asHex(),
                        Optional.empty()));
            }
        }

        @Override
        public synchronized void ended(Result result) {
            if (ended) {
                return;
            }
            ended = true;
            result.status().ifPresent(s -> {
                if (http) {
                    span.setAttribute(HTTP_RESPONSE_STATUS_CODE, (long) s);
                } else {
                    span.setAttribute(RPC_RESPONSE_STATUS_CODE, Integer.toString(s));
                }
            });
            result.errorType().ifPresent(e -> {
                span.setAttribute(ERROR_TYPE, e);
                span.setStatus(StatusCode.ERROR);
            });
            span.end();
        }
    }

    /** The HTTP methods the conventions know; any other is recorded as {@code _OTHER}, with the method as sent beside it. */
    static final class HttpMethods {
        private static final java.util.Set<String> KNOWN = java.util.Set.of("CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST",
                "PUT", "TRACE", "QUERY");

        private HttpMethods() {
        }

        static boolean known(String method) {
            return KNOWN.contains(method);
        }

        static String of(String method) {
            return known(method) ? method : OTHER;
        }
    }
}
