package dev.postern.app;

import dev.postern.policy.model.RateLimit;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.io.IOException;
import java.util.function.BiFunction;
import java.util.function.LongSupplier;

/**
 * Per-target rate limits (DESIGN §4) as token buckets, one per key (a target, host or database):
 * a bucket holds up to {@code calls} tokens and refills continuously at {@code calls} per
 * {@code per}, so a quiet target allows a burst of {@code calls} and then one call every
 * {@code per / calls}. A call takes a token or is refused with the exact time until the next one; a
 * refused call takes nothing. Keys without a limit are never refused. Integer arithmetic in
 * nanoseconds (injectable clock for tests), so no rounding lets an extra call in. Where the buckets
 * are kept is a {@link Store}: in this process's memory, or a file every gateway on one journal
 * directory shares ({@link RateCountsFile}). Thread-safe.
 */
public final class RateLimiter<K> {
    private final Map<K, RateLimit> limits;
    private final BiFunction<K, RateLimit, String> ids;
    private final Store store;
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

        /** The bucket could not be read or kept ({@code why}, for the operator): refused, since no count says the call fits. */
        record Unavailable(String why) implements Admission {
            public Unavailable {
                Objects.requireNonNull(why, "why");
            }
        }
    }

    private static final Admission ADMITTED = new Admission.Admitted();

    /** A bucket's state: {@code units} held as counted at clock reading {@code at}. */
    public record State(long units, long at) {
    }

    /** What one call does to a bucket: the answer, and the state to keep (empty: keep the one there, a refusal takes nothing). */
    public record Step(Admission admission, java.util.Optional<State> next) {
        public Step {
            Objects.requireNonNull(admission, "admission");
            Objects.requireNonNull(next, "next");
        }
    }

    /** Where buckets are kept, by id; {@code step} runs with no other step on the same id in between, here or elsewhere. */
    public interface Store extends AutoCloseable {
        /** Runs {@code step} on id's state ({@code null} if it has none yet) and keeps the state it returns. */
        Admission update(String id, java.util.function.Function<State, Step> step) throws IOException;

        @Override
        void close() throws IOException;
    }

    /** Buckets in this object's memory: counted per process, forgotten at exit. */
    static final class InMemory implements Store {
        private final Map<String, State> states = new HashMap<>();

        @Override
        public synchronized Admission update(String id, java.util.function.Function<State, Step> step) {
            Step s = step.apply(states.get(id));
            s.next().ifPresent(next -> states.put(id, next));
            return s.admission();
        }

        @Override
        public void close() {
        }
    }

    /** Limits on the monotonic system clock, in memory. */
    public RateLimiter(Map<K, RateLimit> limits) {
        this(limits, System::nanoTime);
    }

    /** Limits on {@code nanoClock}, a monotonic nanosecond clock, in memory. */
    public RateLimiter(Map<K, RateLimit> limits, LongSupplier nanoClock) {
        this(limits, nanoClock, new InMemory(), (key, limit) -> String.valueOf(key));
    }

    /**
     * Limits kept in {@code store}, each key's bucket under {@code ids.apply(key, limit)}, on {@code nanoClock}
     * (for a store other processes share, a clock they share: the wall clock in nanoseconds).
     */
    public RateLimiter(Map<K, RateLimit> limits, LongSupplier nanoClock, Store store, BiFunction<K, RateLimit, String> ids) {
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        this.store = Objects.requireNonNull(store, "store");
        this.ids = Objects.requireNonNull(ids, "ids");
        this.limits = new HashMap<>();
        limits.forEach((key, limit) -> this.limits.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(limit, "limit")));
    }

    /** Whether a call to {@code key} may go on now; takes a token if so. A key with no limit touches nothing. */
    public Admission admit(K key) {
        RateLimit limit = limits.get(key);
        if (limit == null) {
            return ADMITTED;
        }
        try {
            return store.update(ids.apply(key, limit), state -> step(limit, state, nanoClock.getAsLong()));
        } catch (IOException | RuntimeException e) {
            return new Admission.Unavailable(e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName());
        }
    }

    /** Lets go of the store (a shared file's descriptor). */
    public void close() throws IOException {
        store.close();
    }

    /**
     * One call on a bucket of {@code limit} in {@code state} ({@code null}: full) at clock reading
     * {@code now}. Units: a call costs {@code perNanos}, {@code calls} units accrue per nanosecond,
     * full at {@code calls * perNanos} (at most 10^5 * 8.64 * 10^13 < 2^63). A state counted more
     * than one period ahead of {@code now} (a wall clock set back) is taken as counted now, so such a
     * jump holds the bucket back for at most one period and never fills it.
     */
    public static Step step(RateLimit limit, State state, long now) {
        long perNanos = limit.per().toNanos();
        long capacity = limit.calls() * perNanos;
        long units;
        long last;
        boolean setBack = false;
        if (state == null) {
            units = capacity;
            last = now;
        } else {
            units = Math.max(0, Math.min(capacity, state.units()));
            setBack = state.at() - now > perNanos;
            last = setBack ? now : state.at();
        }
        long elapsed = Math.max(0, now - last);
        // Past one period the bucket is full anyway; capping first keeps elapsed * calls in range.
        units = Math.min(capacity, units + Math.min(elapsed, perNanos) * limit.calls());
        last = Math.max(last, now);
        if (units >= perNanos) {
            return new Step(ADMITTED, java.util.Optional.of(new State(units - perNanos, last)));
        }
        long missing = perNanos - units;
        // A refusal takes nothing, and keeps nothing but a time moved back to a clock that was set back.
        return new Step(new Admission.Limited(limit, Duration.ofNanos((missing + limit.calls() - 1) / limit.calls())),
                setBack ? java.util.Optional.of(new State(units, last)) : java.util.Optional.empty());
    }
}
