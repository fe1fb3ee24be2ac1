package dev.postern.executor.ssh;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.sshd.client.session.ClientSession;

/**
 * Authenticated sessions kept for reuse, per {@link SessionKey}: at most {@code maxSessions} in use or
 * idle at once per key, at most {@code maxIdle} of them idle, and each idle one closed by a daemon timer
 * once it has been idle for {@code idleTimeout}. A session returns to the pool only when its call ended
 * cleanly; one that failed, timed out or was cancelled is closed. Host keys are verified when a session
 * connects (and at any re-keying), so every pooled session was verified under its key's rule. Keys seen
 * once keep a small empty entry until the pool closes. Thread-safe.
 */
final class SessionPool implements AutoCloseable {
    /** How often a caller waiting for a free session checks whether its call was abandoned. */
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** How long closing a session may wait for the server before the socket is dropped. */
    private static final Duration CLOSE_GRACE = Duration.ofSeconds(2);

    private final int maxIdle;
    private final int maxSessions;
    private final Duration idleTimeout;
    private final ScheduledThreadPoolExecutor timer;
    private final ConcurrentMap<SessionKey, Slots> slots = new ConcurrentHashMap<>();
    private volatile boolean closed;

    SessionPool(int maxIdle, int maxSessions, Duration idleTimeout) {
        if (maxIdle < 0) {
            throw new IllegalArgumentException("maxIdle must not be negative, got " + maxIdle);
        }
        if (maxSessions < 1) {
            throw new IllegalArgumentException("maxSessions must be positive, got " + maxSessions);
        }
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        if (idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("idleTimeout must be positive");
        }
        this.maxIdle = Math.min(maxIdle, maxSessions);
        this.maxSessions = maxSessions;
        this.idleTimeout = idleTimeout;
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "postern-ssh-idle");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
    }

    /**
     * A lease on one of {@code key}'s session slots, waiting up to {@code wait} for one to free up;
     * null if none did in time, or {@code abandoned} became true while waiting.
     */
    Lease lease(SessionKey key, Duration wait, BooleanSupplier abandoned) throws InterruptedException {
        Slots s = slots.computeIfAbsent(key, k -> new Slots());
        long end = System.nanoTime() + wait.toNanos();
        while (true) {
            if (abandoned.getAsBoolean()) {
                return null;
            }
            long left = end - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            if (s.permits.tryAcquire(Math.min(left, POLL_NANOS), TimeUnit.NANOSECONDS)) {
                return new Lease(s);
            }
        }
    }

    /** Closes every idle session and stops the timer; sessions in use are closed when their lease ends. */
    @Override
    public void close() {
        closed = true;
        timer.shutdownNow();
        for (Slots s : slots.values()) {
            s.drain().forEach(idle -> idle.session.close(true));
        }
    }

    /** One key's slots: the permits bound sessions in use plus idle; the deque holds the idle ones, newest first. */
    private final class Slots {
        private final Semaphore permits = new Semaphore(maxSessions, true);
        private final Deque<Idle> idle = new ArrayDeque<>();

        synchronized Idle poll() {
            Idle i = idle.pollFirst();
            if (i != null) {
                i.expiry.cancel(false);
            }
            return i;
        }

        /** Keeps {@code session} idle if there is room and the pool is open; false if the caller must close it. */
        synchronized boolean offer(ClientSession session) {
            if (closed || idle.size() >= maxIdle) {
                return false;
            }
            Idle entry = new Idle(session);
            try {
                entry.expiry = timer.schedule(() -> expire(entry), idleTimeout.toNanos(), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                return false;
            }
            idle.addFirst(entry);
            return true;
        }

        private void expire(Idle entry) {
            boolean mine;
            synchronized (this) {
                mine = idle.remove(entry);
            }
            if (mine) {
                // Idle sessions have no channel open, so nothing is cut short.
                entry.session.close(true);
            }
        }

        synchronized List<Idle> drain() {
            List<Idle> all = new ArrayList<>(idle);
            idle.clear();
            all.forEach(i -> i.expiry.cancel(false));
            return all;
        }
    }

    private static final class Idle {
        final ClientSession session;
        ScheduledFuture<?> expiry;

        Idle(ClientSession session) {
            this.session = session;
        }
    }

    /**
     * One call's hold on a slot, and the session it runs on: an idle one taken from the pool, or a new
     * one the caller connected. {@link #release} ends it exactly once. Used by the calling thread only.
     */
    final class Lease {
        private final Slots slots;
        private ClientSession session;
        private boolean released;

        private Lease(Slots slots) {
            this.slots = slots;
        }

        /** An idle, still open session of this key, now this lease's; null when there is none. */
        ClientSession takeIdle() {
            for (Idle i = slots.poll(); i != null; i = slots.poll()) {
                if (i.session.isOpen() && i.session.isAuthenticated()) {
                    session = i.session;
                    return session;
                }
                i.session.close(true);
            }
            return null;
        }

        /** The session this lease holds; null before one was taken or adopted. */
        ClientSession session() {
            return session;
        }

        /** Makes a session the caller opened this lease's, replacing (and closing) any it held. */
        void adopt(ClientSession fresh) {
            discard();
            session = fresh;
        }

        /** Closes the session this lease holds, if any. */
        void discard() {
            if (session != null) {
                closeQuietly(session);
                session = null;
            }
        }

        /** Ends the lease: the session goes back to the pool if {@code reusable} and there is room, else it is closed. */
        void release(boolean reusable) {
            if (released) {
                return;
            }
            released = true;
            try {
                if (session != null && !reusable) {
                    // A failed, timed-out or cancelled call: drop the connection now rather than wait
                    // for the server to close its side (OpenSSH waits for the command to exit).
                    session.close(true);
                } else if (session != null && !(session.isOpen() && slots.offer(session))) {
                    closeQuietly(session);
                }
                session = null;
            } finally {
                slots.permits.release();
            }
        }
    }

    /** Closes a session gracefully, dropping the socket if the server does not finish within {@link #CLOSE_GRACE}. */
    static void closeQuietly(ClientSession session) {
        if (session == null) {
            return;
        }
        try {
            if (!session.close(false).await(CLOSE_GRACE)) {
                session.close(true);
            }
        } catch (IOException | RuntimeException e) {
            session.close(true);
        }
    }
}
