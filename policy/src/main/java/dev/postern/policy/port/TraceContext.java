package dev.postern.policy.port;

import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A W3C Trace Context value to carry in an outbound request: a {@code traceparent} of version
 * {@code 00} (trace id, parent span id, flags, lowercase hex, neither id all zeros) and an optional
 * {@code tracestate} of at most {@value #MAX_TRACESTATE} printable ASCII characters. It names a span;
 * it holds no value of the call. Immutable.
 */
public record TraceContext(String traceparent, Optional<String> tracestate) {
    public static final int MAX_TRACESTATE = 512;
    private static final Pattern TRACEPARENT = Pattern.compile("00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}");
    private static final Pattern TRACESTATE = Pattern.compile("[\\x20-\\x7e]*");

    public TraceContext {
        Objects.requireNonNull(traceparent, "traceparent");
        if (!TRACEPARENT.matcher(traceparent).matches()) {
            throw new IllegalArgumentException("traceparent must be 00-<32 hex>-<16 hex>-<2 hex>, ids not all zeros");
        }
        Objects.requireNonNull(tracestate, "tracestate");
        tracestate.ifPresent(s -> {
            if (s.isEmpty() || s.length() > MAX_TRACESTATE || !TRACESTATE.matcher(s).matches()) {
                throw new IllegalArgumentException("tracestate must be 1 to " + MAX_TRACESTATE + " printable ASCII characters");
            }
        });
    }
}
