package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.postern.policy.model.RateLimit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Token buckets per target on a clock the test moves: bursts, refill, exact waits, independence, and no extra call under contention. */
class RateLimiterTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    private RateLimiter<String> limiter(Map<String, RateLimit> limits) {
        return new RateLimiter<>(limits, now::get);
    }

    private void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }

    private static Duration waitOf(RateLimiter.Admission a) {
        return assertInstanceOf(RateLimiter.Admission.Limited.class, a).retryAfter();
    }

    @Test
    void aQuietTargetAllowsABurstOfItsCallsThenRefusesWithTheTimeToTheNextToken() {
        RateLimiter<String> l = limiter(Map.of("api", RateLimit.perSeconds(30, 60)));
        for (int i = 0; i < 30; i++) {
            assertInstanceOf(RateLimiter.Admission.Admitted.class, l.admit("api"), "call " + (i + 1));
        }
        assertEquals(Duration.ofSeconds(2), waitOf(l.admit("api")), "one token every 60/30 s");
        advance(Duration.ofMillis(1500));
        assertEquals(Duration.ofMillis(500), waitOf(l.admit("api")));
        advance(Duration.ofMillis(500));
        assertInstanceOf(RateLimiter.Admission.Admitted.class, l.admit("api"));
        assertEquals(Duration.ofSeconds(2), waitOf(l.admit("api")));
    }

    @Test
    void aRefusedCallTakesNothing() {
        RateLimiter<String> l = limiter(Map.of("api", RateLimit.perSeconds(1, 10)));
        l.admit("api");
        for (int i = 0; i < 100; i++) {
            l.admit("api");
        }
        advance(Duration.ofSeconds(10));
        assertInstanceOf(RateLimiter.Admission.Admitted.class, l.admit("api"), "the refused calls did not push the next token back");
    }

    @Test
    void aLongIdleFillsTheBucketButNeverBeyondItsCalls() {
        RateLimiter<String> l = limiter(Map.of("api", RateLimit.perSeconds(3, 1)));
        advance(Duration.ofDays(365));
        int admitted = 0;
        while (l.admit("api") instanceof RateLimiter.Admission.Admitted) {
            admitted++;
        }
        assertEquals(3, admitted);
    }

    @Test
    void overAnyLongRunNoMoreThanTheBurstPlusTheRateGetsThrough() {
        RateLimiter<String> l = limiter(Map.of("api", RateLimit.perSeconds(7, 3)));
        int admitted = 0;
        for (int ms = 0; ms < 60_000; ms += 13) {
            if (l.admit("api") instanceof RateLimiter.Admission.Admitted) {
                admitted++;
            }
            advance(Duration.ofMillis(13));
        }
        // The last call is at 59.995 s, by when 7 per 3 s has accrued 139.99 tokens: 139 whole ones, plus the initial burst of 7.
        assertEquals(7 + 139, admitted, "calls let through over 60 s");
    }

    @Test
    void targetsAreLimitedIndependentlyAndAnUnlimitedTargetNeverWaits() {
        RateLimiter<String> l = limiter(Map.of("a", RateLimit.perSeconds(1, 60), "b", RateLimit.perSeconds(1, 60)));
        assertInstanceOf(RateLimiter.Admission.Admitted.class, l.admit("a"));
        assertInstanceOf(RateLimiter.Admission.Limited.class, l.admit("a"));
        assertInstanceOf(RateLimiter.Admission.Admitted.class, l.admit("b"));
        for (int i = 0; i < 1000; i++) {
            assertInstanceOf(RateLimiter.Admission.Admitted.class, l.admit("unlimited"));
        }
    }

    @Test
    void theWaitIsRoundedUpToWholeSecondsForTheAgent() {
        RateLimiter<String> l = limiter(Map.of("api", RateLimit.perSeconds(3, 10)));
        l.admit("api");
        l.admit("api");
        l.admit("api");
        RateLimiter.Admission.Limited limited = assertInstanceOf(RateLimiter.Admission.Limited.class, l.admit("api"));
        assertEquals(Duration.ofNanos(3_333_333_334L), limited.retryAfter(), "rounded up to the nanosecond");
        assertEquals(4, limited.retryAfterSeconds());
    }

    @Test
    void concurrentCallersGetExactlyTheBucketsTokensAndNotOneMore() throws Exception {
        RateLimiter<String> l = limiter(Map.of("api", RateLimit.perSeconds(50, 3600)));
        AtomicInteger admitted = new AtomicInteger();
        List<CompletableFuture<Void>> callers = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            callers.add(CompletableFuture.runAsync(() -> {
                for (int i = 0; i < 100; i++) {
                    if (l.admit("api") instanceof RateLimiter.Admission.Admitted) {
                        admitted.incrementAndGet();
                    }
                }
            }));
        }
        for (CompletableFuture<Void> c : callers) {
            c.get(30, TimeUnit.SECONDS);
        }
        assertEquals(50, admitted.get());
    }

    @Test
    void aLimitChecksItself() {
        assertThrows(IllegalArgumentException.class, () -> RateLimit.perSeconds(0, 60));
        assertThrows(IllegalArgumentException.class, () -> RateLimit.perSeconds(RateLimit.MAX_CALLS + 1, 60));
        assertThrows(IllegalArgumentException.class, () -> RateLimit.perSeconds(1, 0));
        assertThrows(IllegalArgumentException.class, () -> RateLimit.perSeconds(1, 86_401));
        assertEquals("30 calls per 60 s", RateLimit.perSeconds(30, 60).describe());
        assertEquals(RateLimit.perSeconds(RateLimit.MAX_CALLS, 86_400).calls(), RateLimit.MAX_CALLS);
    }

    @Test
    void theLargestLimitOverTheLongestIdleDoesNotOverflow() {
        RateLimiter<String> l = limiter(Map.of("api", RateLimit.perSeconds(RateLimit.MAX_CALLS, 86_400)));
        for (int i = 0; i < RateLimit.MAX_CALLS; i++) {
            l.admit("api");
        }
        assertInstanceOf(RateLimiter.Admission.Limited.class, l.admit("api"));
        advance(Duration.ofDays(10_000));
        assertInstanceOf(RateLimiter.Admission.Admitted.class, l.admit("api"));
    }

    @Test
    void aClockSetFarBackHoldsTheBucketForOnePeriodAtMostAndNeverFillsIt() {
        RateLimiter<String> l = limiter(Map.of("api", RateLimit.perSeconds(1, 10)));
        assertInstanceOf(RateLimiter.Admission.Admitted.class, l.admit("api"));
        now.addAndGet(-Duration.ofSeconds(100).toNanos());
        assertEquals(Duration.ofSeconds(10), waitOf(l.admit("api")), "not the 110 s the stored time would make it");
        advance(Duration.ofSeconds(10));
        assertInstanceOf(RateLimiter.Admission.Admitted.class, l.admit("api"));
        assertInstanceOf(RateLimiter.Admission.Limited.class, l.admit("api"));
    }
}
