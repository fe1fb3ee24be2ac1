package dev.postern.app;

import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.RateLimit;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * A policy's per-target rate limits (DESIGN §4), applied to a permit after the policy granted it and
 * before its intent row: the kernel decides what may happen and keeps no state; how often is counted
 * here, in one {@link RateLimiter} keyed by the target's kind and name: for a gateway, in the
 * journal directory's {@link RateCountsFile} on the wall clock, so every gateway on that directory
 * counts against one bucket; for tests, in memory on a clock they move. A refused call gets
 * {@code RATE_LIMITED} with the time to wait, a decisions row, and no effect; a call whose bucket
 * cannot be read is refused {@code JOURNAL_UNAVAILABLE}. Thread-safe.
 */
final class RateLimits implements AutoCloseable {
    /** The rule a refusal is journaled under: {@code rate-limit:NAME}. */
    static final String RULE_PREFIX = "rate-limit:";
    /** The decisions journal's reason code and the agent's error code. */
    static final String CODE = "RATE_LIMITED";

    /** The limiter of the policy in force; a reload puts a new one here ({@link #follow}). */
    private volatile RateLimiter<Key> limiter;
    /** How a policy's limiter is made: on the shared counts file, or in memory for tests. */
    private final java.util.function.Function<Policy, RateLimiter<Key>> limiterOf;
    /** Limiters a reload replaced: a call may still be using one, so they close with this. Guarded by itself. */
    private final java.util.List<RateLimiter<Key>> retired = new java.util.ArrayList<>();

    /** One limited allowance: what it is ({@code http target}) and its name, unique within its kind. */
    record Key(String noun, String name) {
        Key {
            Objects.requireNonNull(noun, "noun");
            Objects.requireNonNull(name, "name");
        }
    }

    /** The decisions journal's reason code when the bucket could not be read. */
    static final String UNAVAILABLE = "JOURNAL_UNAVAILABLE";

    /** A refused call: the reason and rule to journal and the answer for the agent. */
    record Refusal(String reason, String rule, ExecutionFailure answer) {
        Refusal {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(rule, "rule");
            Objects.requireNonNull(answer, "answer");
        }
    }

    private final PrintStream diagnostics;

    private RateLimits(Policy policy, java.util.function.Function<Policy, RateLimiter<Key>> limiterOf, PrintStream diagnostics) {
        this.limiterOf = limiterOf;
        this.limiter = limiterOf.apply(policy);
        this.diagnostics = diagnostics;
    }

    /** No limits at all. */
    static RateLimits none() {
        return new RateLimits(Policy.denyAll(), p -> new RateLimiter<>(Map.of()), System.err);
    }

    /**
     * Counts {@code policy}'s limits from now on (a config reload): a target whose limit is unchanged
     * keeps its bucket (a bucket's id is its key and its limit), a changed limit starts a bucket of its own.
     */
    void follow(Policy policy) {
        RateLimiter<Key> next = limiterOf.apply(policy);
        synchronized (retired) {
            retired.add(limiter);
            limiter = next;
        }
    }

    /**
     * The policy's limits counted in {@code journalDirectory}'s {@link RateCountsFile}, shared with
     * every gateway on that directory, on the wall clock (theirs too); the file is opened at the
     * first limited call. {@code diagnostics} gets what went wrong when a bucket cannot be read.
     */
    static RateLimits shared(Policy policy, Path journalDirectory, PrintStream diagnostics) {
        return new RateLimits(policy, p -> new RateLimiter<>(limits(p), RateLimits::wallClockNanos, RateCountsFile.in(journalDirectory),
                RateLimits::bucketId), diagnostics);
    }

    private static long wallClockNanos() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /** A bucket's id in the shared file: the key and its limit, so a changed limit starts a bucket of its own. */
    private static String bucketId(Key key, RateLimit limit) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest((key.noun() + '\0' + key.name() + '\0' + limit.calls() + '\0'
                    + limit.per().toNanos()).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    /** The policy's limits on {@code nanoClock}, a monotonic nanosecond clock (tests move their own). */
    static RateLimits of(Policy policy, LongSupplier nanoClock) {
        return new RateLimits(policy, p -> new RateLimiter<>(limits(p), nanoClock), System.err);
    }

    private static Map<Key, RateLimit> limits(Policy policy) {
        Map<Key, RateLimit> limits = new HashMap<>();
        for (Allowance a : policy.allowances()) {
            a.rateLimit().ifPresent(l -> limits.put(key(a), l));
        }
        return limits;
    }

    /** Empty when the permit's target has room for one more call (and takes it); else the refusal. */
    Optional<Refusal> admit(AuthorizedAction permit) {
        Key key = key(permit.allowance());
        RateLimiter.Admission admission = limiter.admit(key);
        if (admission instanceof RateLimiter.Admission.Limited limited) {
            return Optional.of(new Refusal(CODE, RULE_PREFIX + key.name(), new ExecutionFailure(FailureCode.RATE_LIMITED,
                    key.noun() + ' ' + key.name() + " allows " + limited.limit().describe() + "; this call was not made; try again in "
                            + limited.retryAfterSeconds() + " s")));
        }
        if (admission instanceof RateLimiter.Admission.Unavailable unavailable) {
            diagnostics.println("postern: the rate-limit counts of " + key.noun() + ' ' + key.name() + " could not be read or kept: "
                    + unavailable.why());
            return Optional.of(new Refusal(UNAVAILABLE, RULE_PREFIX + key.name(), new ExecutionFailure(FailureCode.JOURNAL_UNAVAILABLE,
                    "the rate-limit count of " + key.noun() + ' ' + key.name() + " could not be read; this call was not made")));
        }
        return Optional.empty();
    }

    /** Lets go of the shared counts file, if one was opened. */
    @Override
    public void close() {
        java.util.List<RateLimiter<Key>> all;
        synchronized (retired) {
            all = new java.util.ArrayList<>(retired);
            all.add(limiter);
            retired.clear();
        }
        for (RateLimiter<Key> l : all) {
            try {
                l.close();
            } catch (IOException e) {
                diagnostics.println("postern: could not close the rate-limit counts: " + e.getMessage());
            }
        }
    }

    private static Key key(Allowance a) {
        return new Key(a.noun(), a.name());
    }
}
