package dev.postern.executor.http;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Runs an action when its deadline passes, unless it was cancelled first: the executor's timeout for
 * a whole exchange. One daemon thread checks the registered deadlines every {@link #TICK_MILLIS}
 * milliseconds while any is registered, and sleeps (waiting, no ticks) once none has been for a
 * second; registering a deadline wakes it only then. So a call neither schedules a task nor wakes
 * another thread, which a {@code ScheduledThreadPoolExecutor} does twice per call (its queue's new
 * head on schedule and on cancel) and which showed in the HTTP path's wall-clock profile.
 *
 * <p>Limit: an action runs up to one tick after its deadline. Thread-safe.
 */
final class Deadlines implements AutoCloseable {
    /** How often registered deadlines are checked; an action runs at most this late. */
    static final long TICK_MILLIS = 10;
    private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Set<Deadline> registered = ConcurrentHashMap.newKeySet();
    private final Object wake = new Object();
    private final Thread checker;
    private volatile boolean asleep;
    private volatile boolean closed;

    /** One registered deadline; {@link #cancel()} it when the exchange ends first. */
    final class Deadline {
        private final long dueNanos;
        private final Runnable action;

        private Deadline(long dueNanos, Runnable action) {
            this.dueNanos = dueNanos;
            this.action = action;
        }

        /** The action will not run (unless it already has). */
        void cancel() {
            registered.remove(this);
        }
    }

    Deadlines(String threadName) {
        checker = new Thread(this::check, Objects.requireNonNull(threadName, "threadName"));
        checker.setDaemon(true);
        checker.start();
    }

    /** Runs {@code action} once {@code millis} have passed, on the checker thread, unless cancelled first. */
    Deadline after(long millis, Runnable action) {
        Objects.requireNonNull(action, "action");
        if (millis < 1) {
            throw new IllegalArgumentException("a deadline must be at least 1 ms away, got " + millis);
        }
        Deadline d = new Deadline(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis), action);
        registered.add(d);
        if (asleep) {
            synchronized (wake) {
                wake.notifyAll();
            }
        }
        return d;
    }

    private void check() {
        long lastBusy = System.nanoTime();
        while (!closed) {
            try {
                if (registered.isEmpty() && System.nanoTime() - lastBusy > IDLE_NANOS) {
                    synchronized (wake) {
                        asleep = true;
                        // after() adds before it reads asleep, and this reads registered after writing it: no lost wake-up.
                        while (registered.isEmpty() && !closed) {
                            wake.wait();
                        }
                        asleep = false;
                    }
                }
                Thread.sleep(TICK_MILLIS);
            } catch (InterruptedException e) {
                if (closed) {
                    return;
                }
            }
            long now = System.nanoTime();
            if (!registered.isEmpty()) {
                lastBusy = now;
            }
            for (Deadline d : registered) {
                if (now - d.dueNanos >= 0 && registered.remove(d)) {
                    try {
                        d.action.run();
                    } catch (RuntimeException e) {
                        // An action only cancels a request; one that fails must not stop the others' deadlines.
                    }
                }
            }
        }
    }

    /** Stops the checker; registered actions never run. */
    @Override
    public void close() {
        closed = true;
        registered.clear();
        checker.interrupt();
    }
}
