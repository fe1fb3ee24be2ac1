package dev.postern.app;

import dev.postern.policy.model.RateLimit;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Per-target rate limits (DESIGN §4) as token buckets, one per key (a target, host or database):
 * a bucket holds up to {@code calls} tokens and refills continuously at {@code calls} per
 * {@code per}, so a quiet target allows a burst of {@code calls} and then one call every
 * {@code per / calls}. A call takes a token or is refused with the exact time until the next one; a
 * refused call takes nothing. Keys without a limit are never refused. Integer arithmetic in
 * nanoseconds of a monotonic clock (injectable for tests), so no rounding lets an extra call in.
 * Thread-safe.
 */
public final class RateLimiter<K> {
    private final Map<K, Bucket> buckets = new HashMap<>();
    private final LongSupplier nanoClock;

    /** The answer for one call. */
    public sealed interface Admission {
        /** The call may go on; it took a token. */
        record Admitted() implements Admission {
        }

        /** The call is refused; {@code retryAfter} from now a token will be there (if no other call takes it). */
        record Limited(RateLimit limit, Duration retryAfter) implements Admission {
            public Limited {
                Objects.requireNonNull(limit, "limit");
                if (retryAfter.isNegative() || retryAfter.isZero()) {
                    throw new IllegalArgumentException("retryAfter must be positive");
                }
            }

            /** The wait in whole seconds, rounded up: what an agent should wait before trying again. */
            public long retryAfterSeconds() {
                return (retryAfter.toNanos() + 999_999_999L) / 1_000_000_000L;
            }
        }
    }

    private static final Admission ADMITTED = new Admission.Admitted();

    /** Limits on the monotonic system clock. */
    public RateLimiter(Map<K, RateLimit> limits) {
        this(limits, System::nanoTime);
    }

    /** Limits on {@code nanoClock}, a monotonic nanosecond clock. */
    public RateLimiter(Map<K, RateLimit> limits, LongSupplier nanoClock) {
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        long now = nanoClock.getAsLong();
        limits.forEach((key, limit) -> buckets.put(Objects.requireNonNull(key, "key"), new Bucket(limit, now)));
    }

    /** Whether a call to {@code key} may go on now; takes a token if so. */
    public Admission admit(K key) {
        Bucket bucket = buckets.get(key);
        return bucket == null ? ADMITTED : bucket.take(nanoClock.getAsLong());
    }

    /**
     * One target's bucket, in units where a call costs {@code perNanos} and {@code calls} units
     * accrue per nanosecond; full at {@code calls * perNanos} (at most 10^5 * 8.64 * 10^13 < 2^63).
     */
    private static final class Bucket {
        private final RateLimit limit;
        private final long perNanos;
        private final long capacity;
        private long units;
        private long last;

        Bucket(RateLimit limit, long now) {
            this.limit = limit;
            this.perNanos = limit.per().toNanos();
            this.capacity = limit.calls() * perNanos;
            this.units = capacity;
            this.last = now;
        }

        synchronized Admission take(long now) {
            long elapsed = Math.max(0, now - last);
            last = Math.max(last, now);
            // Past one period the bucket is full anyway; capping first keeps elapsed * calls in range.
            units = Math.min(capacity, units + Math.min(elapsed, perNanos) * limit.calls());
            if (units >= perNanos) {
                units -= perNanos;
                return ADMITTED;
            }
            long missing = perNanos - units;
            return new Admission.Limited(limit, Duration.ofNanos((missing + limit.calls() - 1) / limit.calls()));
        }
    }
}
