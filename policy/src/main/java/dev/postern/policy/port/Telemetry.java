package dev.postern.policy.port;

import dev.postern.policy.AuthorizedAction;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Where the gateway tells what each request of the agent came to, for export past this machine (an
 * OpenTelemetry adapter sends it as traces, metrics and, through {@link #journal()}, log records). It hears facts, never values: method, tool
 * and kind names, rule ids, stages, reason codes, allowance names, journal sequence numbers, and the
 * client's own trace context. Implementations must never block or throw, and must stay cheap: a call
 * is never delayed or refused for telemetry. {@link #OFF} does nothing. Thread-safe.
 */
public interface Telemetry extends AutoCloseable {

    /** Telemetry off: every method does nothing, and no span is ever made. */
    Telemetry OFF = new Telemetry() {
        @Override
        public Span request(Request request) {
            return Span.NONE;
        }

        @Override
        public void close() {
        }
    };

    /** A request from the agent was read; the span is ended by {@link Span#answered}. */
    Span request(Request request);

    /**
     * Who hears the journal's rows once written: log records of the rows, and the journal's write
     * durations; {@link JournalObserver#NONE} when neither is exported.
     */
    default JournalObserver journal() {
        return JournalObserver.NONE;
    }

    /** An upstream MCP server's line was not passed on: the server's name in the config and the reason code ({@link UpstreamReports}). */
    default void upstreamDropped(String server, String reason) {
    }

    /** What was held for export and never sent, so far (a full queue, a collector down, slow or refusing). */
    default long dropped() {
        return 0;
    }

    /** Sends what is still queued (bounded by the export timeout) and stops. */
    @Override
    void close();

    /**
     * A request as read: its method, its JSON-RPC id as JSON text (a string id keeps its quotes off:
     * {@code 7}, {@code req-7}), and the W3C trace context the client put in {@code params._meta}
     * (SEP-414), unchecked. Strings from the client are cut at {@value #MAX_CHARS} characters.
     */
    record Request(String method, Optional<String> id, Optional<String> traceparent, Optional<String> tracestate) {
        public static final int MAX_CHARS = 512;

        public Request {
            method = bounded(Objects.requireNonNull(method, "method"));
            id = Objects.requireNonNull(id, "id").map(Request::bounded);
            traceparent = Objects.requireNonNull(traceparent, "traceparent").map(Request::bounded);
            tracestate = Objects.requireNonNull(tracestate, "tracestate").map(Request::bounded);
        }

        private static String bounded(String s) {
            return s.length() <= MAX_CHARS ? s : s.substring(0, MAX_CHARS);
        }
    }

    /** How a request was answered: the protocol revision in use, the JSON-RPC error code if any, and whether a tool result said {@code isError}. */
    record Answer(Optional<String> protocolVersion, OptionalInt errorCode, boolean toolError) {
        public Answer {
            Objects.requireNonNull(protocolVersion, "protocolVersion");
            Objects.requireNonNull(errorCode, "errorCode");
        }
    }

    /**
     * One request's record, filled in as the pipeline decides and ended once when it is answered; the
     * methods may be called from different threads, one after the other.
     */
    interface Span {
        /** A span that records nothing. */
        Span NONE = new Span() {
        };

        /** The {@code tools/call} names a tool the catalog has (an unknown name is never reported). */
        default void tool(String name) {
        }

        /** The kind of effect the call was bound to ({@code http_request}, {@code upstream}, ...). */
        default void kind(String kind) {
        }

        /** A stage refused the request: the stage, its stable reason code, and the rule when a rule decided. */
        default void rejected(Stage stage, String reason, Optional<String> rule) {
        }

        /** A human's approval was asked for and answered: {@code approved} or an {@code approval.*} rule id. */
        default void approval(String result) {
        }

        /** The policy permitted the call and its intent row is on disk as {@code intentSeq}. */
        default void permitted(AuthorizedAction permit, long intentSeq) {
        }

        /** The executor ran; its failure code when the outcome is a failure. */
        default void executed(Optional<String> failureCode) {
        }

        /** Where the executor's outbound requests become CLIENT spans, children of this one. */
        default CallTrace calls() {
            return CallTrace.NONE;
        }

        /** The answer was rendered: the span ends. */
        default void answered(Answer answer) {
        }
    }
}
