package dev.postern.executor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The HTTP executor's deadlines: never early, run once, not after cancel, and again after the checker slept. */
class DeadlinesTest {

    @Test
    void anActionRunsOnceAndNeverBeforeItsDeadline() throws Exception {
        try (Deadlines deadlines = new Deadlines("test-deadlines")) {
            AtomicInteger runs = new AtomicInteger();
            AtomicLong ranAt = new AtomicLong();
            CountDownLatch ran = new CountDownLatch(1);
            long start = System.nanoTime();
            deadlines.after(50, () -> {
                ranAt.set(System.nanoTime());
                runs.incrementAndGet();
                ran.countDown();
            });
            assertTrue(ran.await(10, TimeUnit.SECONDS), "the action ran");
            assertTrue(ranAt.get() - start >= TimeUnit.MILLISECONDS.toNanos(50), "not before its deadline");
            Thread.sleep(3 * Deadlines.TICK_MILLIS);
            assertEquals(1, runs.get(), "once");
        }
    }

    @Test
    void aCancelledActionNeverRunsWhileAnotherRegisteredAtTheSameTimeDoes() throws Exception {
        try (Deadlines deadlines = new Deadlines("test-deadlines")) {
            AtomicInteger cancelledRuns = new AtomicInteger();
            CountDownLatch other = new CountDownLatch(1);
            deadlines.after(30, cancelledRuns::incrementAndGet).cancel();
            deadlines.after(60, other::countDown);
            assertTrue(other.await(10, TimeUnit.SECONDS), "the other deadline ran, so the checker passed the cancelled one's");
            assertEquals(0, cancelledRuns.get());
        }
    }

    @Test
    void aDeadlineRegisteredAfterTheCheckerFellAsleepStillRuns() throws Exception {
        try (Deadlines deadlines = new Deadlines("test-deadlines")) {
            CountDownLatch first = new CountDownLatch(1);
            deadlines.after(1, first::countDown);
            assertTrue(first.await(10, TimeUnit.SECONDS));
            Thread.sleep(1_500); // idle for longer than a second: the checker waits without ticking
            CountDownLatch second = new CountDownLatch(1);
            deadlines.after(1, second::countDown);
            assertTrue(second.await(10, TimeUnit.SECONDS), "registering woke the sleeping checker");
        }
    }

    @Test
    void afterCloseNothingRunsAndAFailingActionDoesNotStopTheOthers() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        try (Deadlines deadlines = new Deadlines("test-deadlines")) {
            CountDownLatch later = new CountDownLatch(1);
            deadlines.after(5, () -> {
                throw new IllegalStateException("a failing action");
            });
            deadlines.after(40, later::countDown);
            assertTrue(later.await(10, TimeUnit.SECONDS), "a failing action does not stop the checker");
            deadlines.after(50, runs::incrementAndGet);
        }
        Thread.sleep(100 + 3 * Deadlines.TICK_MILLIS);
        assertEquals(0, runs.get(), "closed before its deadline: never runs");
    }

    @Test
    void aDeadlineUnderOneMillisecondIsRefused() {
        try (Deadlines deadlines = new Deadlines("test-deadlines")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> deadlines.after(0, () -> { }));
            assertEquals("a deadline must be at least 1 ms away, got 0", e.getMessage());
        }
    }
}
