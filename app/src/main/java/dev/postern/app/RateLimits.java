package dev.postern.app;

import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.RateLimit;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * A policy's per-target rate limits (DESIGN §4), applied to a permit after the policy granted it and
 * before its intent row: the kernel decides what may happen and keeps no state; how often is counted
 * here, on a monotonic clock, in one {@link RateLimiter} keyed by the target's kind and name. A
 * refused call gets {@code RATE_LIMITED} with the time to wait, a decisions row, and no effect.
 * Thread-safe.
 */
final class RateLimits {
    /** The rule a refusal is journaled under: {@code rate-limit:NAME}. */
    static final String RULE_PREFIX = "rate-limit:";
    /** The decisions journal's reason code and the agent's error code. */
    static final String CODE = "RATE_LIMITED";

    private final RateLimiter<Key> limiter;

    /** One limited allowance: what it is ({@code http target}) and its name, unique within its kind. */
    record Key(String noun, String name) {
        Key {
            Objects.requireNonNull(noun, "noun");
            Objects.requireNonNull(name, "name");
        }
    }

    /** A refused call: the rule to journal and the answer for the agent. */
    record Refusal(String rule, ExecutionFailure answer) {
        Refusal {
            Objects.requireNonNull(rule, "rule");
            Objects.requireNonNull(answer, "answer");
        }
    }

    private RateLimits(RateLimiter<Key> limiter) {
        this.limiter = limiter;
    }

    /** No limits at all. */
    static RateLimits none() {
        return new RateLimits(new RateLimiter<>(Map.of()));
    }

    static RateLimits of(Policy policy) {
        return of(policy, System::nanoTime);
    }

    /** The policy's limits on {@code nanoClock}, a monotonic nanosecond clock (tests move their own). */
    static RateLimits of(Policy policy, LongSupplier nanoClock) {
        Map<Key, RateLimit> limits = new HashMap<>();
        for (Allowance a : policy.allowances()) {
            a.rateLimit().ifPresent(l -> limits.put(key(a), l));
        }
        return new RateLimits(new RateLimiter<>(limits, nanoClock));
    }

    /** Empty when the permit's target has room for one more call (and takes it); else the refusal. */
    Optional<Refusal> admit(AuthorizedAction permit) {
        Key key = key(permit.allowance());
        if (limiter.admit(key) instanceof RateLimiter.Admission.Limited limited) {
            return Optional.of(new Refusal(RULE_PREFIX + key.name(), new ExecutionFailure(FailureCode.RATE_LIMITED,
                    key.noun() + ' ' + key.name() + " allows " + limited.limit().describe() + "; this call was not made; try again in "
                            + limited.retryAfterSeconds() + " s")));
        }
        return Optional.empty();
    }

    private static Key key(Allowance a) {
        return new Key(a.noun(), a.name());
    }
}
