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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * The executor's connections per database: the idle ones (at most {@link #MAX_IDLE_PER_DATABASE}),
 * and those a finished call handed back whose transaction is still to be ended. A call's outcome does
 * not wait for that: {@link #release} queues the connection for a few background threads that send the
 * {@code ROLLBACK} of a read-only call (or, after a committed write, {@code RESET ALL}) and put it back
 * among the idle only once the server has answered; a connection whose cleanup failed, or took longer
 * than {@code min(timeout, 1 s)} (enforced by the socket's read timeout), is closed, never reused, so
 * no call ever runs on a connection whose transaction state is unknown.
 *
 * <p>A call that finds no idle connection takes, in this order: a queued connection whose cleanup no
 * thread has begun (the call runs the cleanup itself, one round trip, and uses the connection only if
 * it succeeded — so calls back to back on one connection pay the round trip, as before, rather than two
 * thread wake-ups besides; a read-only call that sends its own {@code BEGIN READ ONLY} takes a
 * {@code ROLLBACK} left this way with the transaction still open and sends it in its statement's message
 * group, so the two share one round trip, see {@link Taken}); else one whose cleanup is under way on a release thread, if no other call
 * already waits for it, once released (at most until the call's deadline or the release's limit; a
 * {@code ROLLBACK} is one round trip, a new connection several plus the password exchange); else none,
 * and the call opens a new connection. How many connections are open at once is bounded by how many
 * calls run at once, plus those being released, plus the idle.
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
        /** Releases whose cleanup no thread has begun yet, oldest first. */
        final Deque<Release> queued = new ArrayDeque<>();
        /** Releases not yet settled, begun or not. */
        int releasing;
        /** Calls waiting for one of them. */
        int waiting;
    }

    /** A finished call's connection on its way back; its cleanup runs once, on whichever thread claims {@code started}. */
    private static final class Release {
        final Connection connection;
        final Cleanup cleanup;
        final AtomicBoolean started = new AtomicBoolean();

        Release(Connection connection, Cleanup cleanup) {
            this.connection = connection;
            this.cleanup = cleanup;
        }
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
     * An idle connection of {@code db}, unchecked (a probe would cost a round trip per call). When none
     * is idle, a connection whose release has not begun is claimed and cleaned up here, on the calling
     * thread, and returned only if that succeeded (one round trip, where waiting for a release thread
     * to wake and answer would cost two thread wake-ups besides); else, when one is being released and
     * no other call waits for it, that one once released. Empty when the call should open a new
     * connection, or when {@code stopped} says it was stopped.
     */
    Optional<Connection> take(SqlDatabase db, long deadlineNanos, BooleanSupplier stopped) {
        return take(db, deadlineNanos, stopped, false).map(Taken::connection);
    }

    /** A connection for a call; {@code rollbackFirst}: its last read-only transaction is still open, for the call to end. */
    record Taken(Connection connection, boolean rollbackFirst) {
    }

    /**
     * {@link #take(SqlDatabase, long, BooleanSupplier)}, but when {@code rollbackWithStatement} a claimed
     * connection whose cleanup is the {@code ROLLBACK} of a call that sent its own {@code BEGIN READ ONLY}
     * (the driver in autocommit) is handed over with that transaction still open ({@code rollbackFirst}):
     * the caller sends the {@code ROLLBACK} in the same message group as its statement, ahead of it, so
     * the statement runs only if the {@code ROLLBACK} succeeded (after an error the server skips to the
     * Sync), and the two share one round trip.
     */
    Optional<Taken> take(SqlDatabase db, long deadlineNanos, BooleanSupplier stopped, boolean rollbackWithStatement) {
        Idle idle = byDatabase.get(db);
        if (idle == null) {
            return Optional.empty();
        }
        Release claimed = null;
        synchronized (idle) {
            boolean waits = false;
            long until = 0;
            try {
                while (claimed == null) {
                    Connection c = idle.connections.pollFirst();
                    if (c != null) {
                        return Optional.of(new Taken(c, false));
                    }
                    claimed = claimQueued(idle);
                    if (claimed != null) {
                        break;
                    }
                    if (!waits) {
                        if (idle.releasing <= idle.waiting) {
                            return Optional.empty(); // nothing under way that another call does not already wait for
                        }
                        waits = true;
                        idle.waiting++;
                        until = Math.min(deadlineNanos, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RELEASE_LIMIT_MS));
                    }
                    long left = until - System.nanoTime();
                    if (idle.releasing == 0 || left <= 0 || closed || stopped.getAsBoolean()) {
                        return Optional.empty();
                    }
                    idle.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), WAIT_SLICE_MS)));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            } finally {
                if (waits) {
                    idle.waiting--;
                }
            }
        }
        if (rollbackWithStatement && claimed.cleanup == Cleanup.ROLLBACK && !closed && autoCommit(claimed.connection)) {
            settle(idle, claimed.connection, true, false);
            return Optional.of(new Taken(claimed.connection, true));
        }
        boolean clean = !closed && cleanUp(db, claimed);
        settle(idle, claimed.connection, clean, false);
        return clean ? Optional.of(new Taken(claimed.connection, false)) : Optional.empty();
    }

    /** The oldest queued release whose cleanup no thread has begun, now this caller's; null if none. Holds idle's lock. */
    private static Release claimQueued(Idle idle) {
        for (Release r = idle.queued.pollFirst(); r != null; r = idle.queued.pollFirst()) {
            if (r.started.compareAndSet(false, true)) {
                return r;
            }
        }
        return null;
    }

    /**
     * Takes back a finished call's connection: it is cleaned up off the caller's thread (or by the next
     * call that claims it first, see {@link #take}) and pooled only if that succeeds. After
     * {@link #close()} it is closed instead.
     */
    void release(SqlDatabase db, Connection c, Cleanup cleanup) {
        if (closed) {
            closeQuietly(c);
            return;
        }
        Idle idle = byDatabase.computeIfAbsent(db, k -> new Idle());
        Release r = new Release(c, cleanup);
        synchronized (pending) {
            pending.add(c);
        }
        synchronized (idle) {
            idle.releasing++;
            idle.queued.addLast(r);
        }
        Runnable task = () -> {
            if (begin(idle, r)) {
                settle(idle, c, !closed && cleanUp(db, r), true);
            }
        };
        try {
            gate.execute(() -> {
                try {
                    releaser.execute(task);
                } catch (RejectedExecutionException e) {
                    if (begin(idle, r)) {
                        settle(idle, c, false, true); // closed meanwhile
                    }
                }
            });
        } catch (RejectedExecutionException e) {
            if (begin(idle, r)) {
                settle(idle, c, false, true);
            }
        }
    }

    /** Claims {@code r} for the release thread; false when a call claimed it first. */
    private static boolean begin(Idle idle, Release r) {
        if (!r.started.compareAndSet(false, true)) {
            return false;
        }
        synchronized (idle) {
            idle.queued.remove(r);
        }
        return true;
    }

    /** The driver's autocommit flag (no round trip); false for a connection that fails to say. */
    private static boolean autoCommit(Connection c) {
        try {
            return c.getAutoCommit();
        } catch (SQLException | RuntimeException e) {
            return false;
        }
    }

    /** Ends the transaction a finished call left (or resets a committed write's session); true if the server answered so. */
    private static boolean cleanUp(SqlDatabase db, Release r) {
        Connection c = r.connection;
        try {
            int limit = (int) Math.min(db.timeout().toMillis(), RELEASE_LIMIT_MS);
            int usual = c.getNetworkTimeout();
            c.setNetworkTimeout(Runnable::run, limit); // a read that waits longer fails, and the connection is closed
            if (r.cleanup == Cleanup.ROLLBACK) {
                // A call whose BEGIN READ ONLY went with its statement left the driver in autocommit;
                // leaving it (no round trip) lets rollback() end the block the server reports open.
                c.setAutoCommit(false);
                c.rollback();
            } else {
                c.setAutoCommit(true); // RESET ALL runs on its own, not in a new open transaction
                try (Statement reset = c.createStatement()) {
                    reset.execute("RESET ALL");
                }
            }
            c.setNetworkTimeout(Runnable::run, usual);
            return true;
        } catch (SQLException | RuntimeException e) {
            return false;
        }
    }

    /**
     * The end of one release: waiting calls are woken; a connection cleaned up on the release thread
     * ({@code pool}) goes back among the idle if there is room, one cleaned up by the call that claimed
     * it stays with that call; any other is closed.
     */
    private void settle(Idle idle, Connection c, boolean clean, boolean pool) {
        boolean kept = clean && !pool;
        synchronized (idle) {
            idle.releasing--;
            if (clean && pool && !closed && idle.connections.size() < MAX_IDLE_PER_DATABASE) {
                idle.connections.addFirst(c);
                kept = true;
            }
            idle.notifyAll();
        }
        if (!kept) {
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
     * Closes every idle connection and every released one whose cleanup has not begun (the server rolls
     * back what a closed session left open), waits up to {@link #CLOSE_GRACE_MS} for the cleanups under
     * way (each then closes its connection instead of pooling it), and aborts the sockets of those still
     * pending.
     */
    void close() {
        closed = true;
        releaser.shutdown();
        for (Idle idle : byDatabase.values()) {
            List<Release> unbegun = new ArrayList<>();
            synchronized (idle) {
                idle.connections.forEach(ConnectionPool::closeQuietly);
                idle.connections.clear();
                for (Release r = claimQueued(idle); r != null; r = claimQueued(idle)) {
                    unbegun.add(r);
                }
                idle.notifyAll();
            }
            unbegun.forEach(r -> settle(idle, r.connection, false, true)); // closed: the server rolls back
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
