package dev.postern.policy.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A rate limit's bounds and how an operator reads it; a number parameter's bounds. */
class RateLimitAndNumberParamTest {

    @Test
    void aRateLimitTakesOneToAHundredThousandCallsPerOneSecondToOneDay() {
        assertEquals(new RateLimit(1, Duration.ofSeconds(1)), RateLimit.perSeconds(1, 1));
        assertEquals(RateLimit.MAX_CALLS, RateLimit.perSeconds(RateLimit.MAX_CALLS, 86_400).calls());
        assertEquals(Duration.ofDays(1), RateLimit.perSeconds(5, 86_400).per());
        for (int calls : new int[] {0, -1, RateLimit.MAX_CALLS + 1}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RateLimit.perSeconds(calls, 60));
            assertTrue(e.getMessage().startsWith("rateLimit.calls must be 1..100000, got " + calls), e.getMessage());
        }
        for (long seconds : new long[] {0, 86_401}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RateLimit.perSeconds(1, seconds));
            assertTrue(e.getMessage().startsWith("rateLimit.perSeconds must be 1..86400, got " + seconds), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> new RateLimit(1, Duration.ofMillis(999)));
        assertThrows(NullPointerException.class, () -> new RateLimit(1, null));
    }

    @Test
    void aRateLimitDescribesItselfAsAnOperatorWroteIt() {
        assertEquals("1 call per 1 s", RateLimit.perSeconds(1, 1).describe());
        assertEquals("30 calls per 60 s", RateLimit.perSeconds(30, 60).describe());
    }

    @Test
    void aNumberParamsMinimumMayNotExceedItsMaximum() {
        BigDecimal one = BigDecimal.ONE;
        BigDecimal two = BigDecimal.valueOf(2);
        assertEquals(Optional.of(one), new ParamSpec.NumberParam(Optional.of(one), Optional.of(one)).minimum());
        assertEquals(Optional.of(two), new ParamSpec.NumberParam(Optional.of(one), Optional.of(two)).maximum());
        new ParamSpec.NumberParam(Optional.empty(), Optional.of(one));
        new ParamSpec.NumberParam(Optional.of(two), Optional.empty());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ParamSpec.NumberParam(Optional.of(two), Optional.of(one)));
        assertEquals("minimum 2 exceeds maximum 1", e.getMessage());
        assertThrows(NullPointerException.class, () -> new ParamSpec.NumberParam(null, Optional.empty()));
        assertThrows(NullPointerException.class, () -> new ParamSpec.NumberParam(Optional.empty(), null));
    }
}
