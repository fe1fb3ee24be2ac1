package dev.postern.policy.model;

import java.time.Duration;
import java.util.Objects;

/**
 * How many calls an operator allows one target (an HTTP target, an SSH host, a database) per period:
 * {@code "rateLimit": {"calls": 30, "perSeconds": 60}}. A value only; the kernel keeps no count and
 * reads no clock, so the limiter that applies it lives in the app. Immutable.
 */
public record RateLimit(int calls, Duration per) {
    /** The most calls a limit may name (keeps the limiter's integer arithmetic exact). */
    public static final int MAX_CALLS = 100_000;
    /** The longest period: one day. */
    public static final Duration MAX_PER = Duration.ofDays(1);

    public RateLimit {
        if (calls < 1 || calls > MAX_CALLS) {
            throw new IllegalArgumentException("rateLimit.calls must be 1.." + MAX_CALLS + ", got " + calls);
        }
        Objects.requireNonNull(per, "per");
        if (per.compareTo(Duration.ofSeconds(1)) < 0 || per.compareTo(MAX_PER) > 0) {
            throw new IllegalArgumentException("rateLimit.perSeconds must be 1.." + MAX_PER.toSeconds() + ", got " + per.toSeconds());
        }
    }

    public static RateLimit perSeconds(int calls, long seconds) {
        return new RateLimit(calls, Duration.ofSeconds(seconds));
    }

    /** As an operator reads it: {@code 30 calls per 60 s}. */
    public String describe() {
        return calls + (calls == 1 ? " call" : " calls") + " per " + per.toSeconds() + " s";
    }
}
