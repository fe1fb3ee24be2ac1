package dev.postern.policy.port;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/** The one-shot signal: each listener once, late listeners at once, and both under races. */
class CancellationTest {

    @Test
    void listenersRunOnceInRegistrationOrderWhenCancelled() {
        Cancellation c = new Cancellation();
        List<String> ran = new ArrayList<>();
        c.onCancel(() -> ran.add("first"));
        c.onCancel(() -> ran.add("second"));

        assertFalse(c.isCancelled());
        assertEquals(List.of(), ran);
        c.cancel();
        c.cancel();

        assertTrue(c.isCancelled());
        assertEquals(List.of("first", "second"), ran);
    }

    @Test
    void listenerRegisteredAfterCancelRunsImmediatelyOnTheRegisteringThread() {
        Cancellation c = new Cancellation();
        c.cancel();
        AtomicReference<Thread> ranOn = new AtomicReference<>();

        c.onCancel(() -> ranOn.set(Thread.currentThread()));

        assertSame(Thread.currentThread(), ranOn.get());
        c.cancel();
        assertSame(Thread.currentThread(), ranOn.get());
    }

    @Test
    void listenerRegisteredFromInsideAListenerStillRunsOnce() {
        Cancellation c = new Cancellation();
        AtomicInteger inner = new AtomicInteger();
        c.onCancel(() -> c.onCancel(inner::incrementAndGet));

        c.cancel();
        c.cancel();

        assertEquals(1, inner.get());
    }

    @RepeatedTest(20)
    void concurrentCancelsRunEachListenerExactlyOnce() throws Exception {
        int threads = 8;
        int listeners = 100;
        Cancellation c = new Cancellation();
        AtomicInteger[] counts = new AtomicInteger[listeners];
        for (int i = 0; i < listeners; i++) {
            AtomicInteger count = new AtomicInteger();
            counts[i] = count;
            c.onCancel(count::incrementAndGet);
        }
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    start.await();
                    c.cancel();
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        for (int i = 0; i < listeners; i++) {
            assertEquals(1, counts[i].get(), "listener " + i);
        }
    }

    @RepeatedTest(20)
    void listenerRegisteredWhileCancellingRunsExactlyOnce() throws Exception {
        int registrations = 200;
        Cancellation c = new Cancellation();
        AtomicInteger ran = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<?> registrar = pool.submit(() -> {
                go.await();
                for (int i = 0; i < registrations; i++) {
                    c.onCancel(ran::incrementAndGet);
                }
                return null;
            });
            Future<?> canceller = pool.submit(() -> {
                go.await();
                c.cancel();
                return null;
            });
            go.countDown();
            registrar.get(30, TimeUnit.SECONDS);
            canceller.get(30, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        c.cancel();

        assertEquals(registrations, ran.get());
    }
}
