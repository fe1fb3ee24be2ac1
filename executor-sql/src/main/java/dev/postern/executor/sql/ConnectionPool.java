package dev.postern.executor.sql;

import dev.postern.policy.model.SqlDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The executor's connections per database: the idle ones (at most {@link #MAX_IDLE_PER_DATABASE}),
 * and those a finished call handed back whose transaction is still being ended. A call's outcome does
 * not wait for that: {@link #release} hands the connection to a few background threads that send the
 * {@code ROLLBACK} of a read-only call (or, after a committed write, {@code RESET ALL}) and put it back
 * among the idle only once the server has answered; a connection whose cleanup failed, or took longer
 * than {@code min(timeout, 1 s)} (enforced by the socket's read timeout), is closed, never reused, so
 * no call ever runs on a connection whose transaction state is unknown.
 *
 * <p>A call that finds no idle connection while one of its database's is being released and not yet
 * claimed by another waiting call waits for it (a {@code ROLLBACK} is one round trip; opening a
 * connection is several, with the password exchange) — at most until its deadline or that release's
 * own limit — and opens a new one if the release failed. Otherwise it opens a new one at once, as
 * before: how many connections are open at once is bounded by how many calls run at once, plus those
 * being released, plus the idle.
 *
 * <p>{@link #close()} closes the idle connections, gives the releases under way a short grace to finish
 * and aborts the sockets of any still pending, so no backend is left behind. Thread-safe.
 */
final class ConnectionPool {
    static final int MAX_IDLE_PER_DATABASE = 4;
    /** Releases run on at most this many threads (a hung server holds one for at most the release limit). */
    private static final int RELEASE_THREADS = 4;
    private static final long RELEASE_LIMIT_MS = 1000;
    private static final long CLOSE_GRACE_MS = 500;
    /** How often a waiting call looks whether it was stopped. */
    private static final long WAIT_SLICE_MS = 10;

    /** What a finished call leaves to be done on its connection before another call may use it. */
    enum Cleanup {
        /** A read-only call: end its transaction (which also undoes any {@code SET} it made). */
        ROLLBACK,
        /** A committed write: put back the start-up settings a committed {@code set_config} may have changed. */
        RESET
    }

    /** One database's connections; guarded by itself. */
    private static final class Idle {
        final Deque<Connection> connections = new ArrayDeque<>();
        int releasing;
        int waiting;
    }

    private final Map<SqlDatabase, Idle> byDatabase = new ConcurrentHashMap<>();
    private final Executor gate;
    private final ThreadPoolExecutor releaser;
    /** Connections handed to {@link #release} and not yet pooled or closed; guarded by itself. */
    private final Set<Connection> pending = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    private volatile boolean closed;

    /**
     * @param gate how a finished call's connection reaches the release threads: {@code Runnable::run}
     *             in production; a test passes one that holds releases to look at the server meanwhile
     */
    ConnectionPool(Executor gate) {
        this.gate = gate;
        this.releaser = new ThreadPoolExecutor(RELEASE_THREADS, RELEASE_THREADS, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "postern-sql-release");
                    t.setDaemon(true);
                    return t;
                });
        releaser.allowCoreThreadTimeOut(true);
    }

    /**
     * An idle connection of {@code db}, unchecked (a probe would cost a round trip per call), or, when
     * none is idle but one is being released and no other call waits for it, that one once released.
     * Empty when the call should open a new connection, or when {@code stopped} says it was stopped.
     */
    Optional<Connection> take(SqlDatabase db, long deadlineNanos, BooleanSupplier stopped) {
        Idle idle = byDatabase.get(db);
        if (idle == null) {
            return Optional.empty();
        }
        synchronized (idle) {
            Connection c = idle.connections.pollFirst();
            if (c != null || idle.releasing <= idle.waiting) {
                return Optional.ofNullable(c);
            }
            long until = Math.min(deadlineNanos, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RELEASE_LIMIT_MS));
            idle.waiting++;
            try {
                while (true) {
                    c = idle.connections.pollFirst();
                    long left = until - System.nanoTime();
                    if (c != null || idle.releasing == 0 || left <= 0 || closed || stopped.getAsBoolean()) {
                        return Optional.ofNullable(c);
                    }
                    idle.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), WAIT_SLICE_MS)));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            } finally {
                idle.waiting--;
            }
        }
    }

    /**
     * Takes back a finished call's connection: it is cleaned up off the caller's thread and pooled only
     * if that succeeds. After {@link #close()} it is closed instead.
     */
    void release(SqlDatabase db, Connection c, Cleanup cleanup) {
        if (closed) {
            closeQuietly(c);
            return;
        }
        Idle idle = byDatabase.computeIfAbsent(db, k -> new Idle());
        synchronized (pending) {
            pending.add(c);
        }
        synchronized (idle) {
            idle.releasing++;
        }
        Runnable task = () -> finishRelease(db, idle, c, cleanup);
        try {
            gate.execute(() -> {
                try {
                    releaser.execute(task);
                } catch (RejectedExecutionException e) {
                    settle(idle, c, false); // closed meanwhile
                }
            });
        } catch (RejectedExecutionException e) {
            settle(idle, c, false);
        }
    }

    private void finishRelease(SqlDatabase db, Idle idle, Connection c, Cleanup cleanup) {
        boolean clean = false;
        if (!closed) {
            try {
                int limit = (int) Math.min(db.timeout().toMillis(), RELEASE_LIMIT_MS);
                int usual = c.getNetworkTimeout();
                c.setNetworkTimeout(Runnable::run, limit); // a read that waits longer fails, and the connection is closed
                if (cleanup == Cleanup.ROLLBACK) {
                    c.rollback();
                } else {
                    c.setAutoCommit(true); // RESET ALL runs on its own, not in a new open transaction
                    try (Statement reset = c.createStatement()) {
                        reset.execute("RESET ALL");
                    }
                }
                c.setNetworkTimeout(Runnable::run, usual);
                clean = true;
            } catch (SQLException | RuntimeException e) {
                clean = false;
            }
        }
        settle(idle, c, clean);
    }

    /** The end of one release: pooled if clean and there is room, else closed; waiting calls are woken. */
    private void settle(Idle idle, Connection c, boolean clean) {
        boolean pooled = false;
        synchronized (idle) {
            idle.releasing--;
            if (clean && !closed && idle.connections.size() < MAX_IDLE_PER_DATABASE) {
                idle.connections.addFirst(c);
                pooled = true;
            }
            idle.notifyAll();
        }
        if (!pooled) {
            closeQuietly(c);
        }
        synchronized (pending) {
            pending.remove(c);
            pending.notifyAll();
        }
    }

    static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException | RuntimeException e) {
            // already broken: nothing left to release
        }
    }

    /**
     * Closes every idle connection, waits up to {@link #CLOSE_GRACE_MS} for the releases under way (each
     * now closes its connection instead of pooling it), then aborts the sockets of those still pending.
     */
    void close() {
        closed = true;
        releaser.shutdown();
        for (Idle idle : byDatabase.values()) {
            synchronized (idle) {
                idle.connections.forEach(ConnectionPool::closeQuietly);
                idle.connections.clear();
                idle.notifyAll();
            }
        }
        List<Connection> left;
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_GRACE_MS);
        synchronized (pending) {
            try {
                long wait;
                while (!pending.isEmpty() && (wait = end - System.nanoTime()) > 0) {
                    pending.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(wait)));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            left = new ArrayList<>(pending);
        }
        for (Connection c : left) {
            try {
                c.abort(Runnable::run); // the server sees the socket close and ends the backend, rolling back
            } catch (SQLException | RuntimeException e) {
                // the socket is gone or going
            }
        }
        releaser.shutdownNow();
    }
}
