package dev.postern.executor.sql;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.postgresql.PGConnection;

/**
 * One call's stop state: the first of timeout and cancellation wins; stopping cancels the running
 * statement on the server and, if the server has not answered within a grace period, aborts the
 * connection so the call returns.
 */
final class CallStop {
    /** How long after a timeout or cancellation the connection is aborted if the server has not answered. */
    private static final long ABORT_GRACE_MS = 1000;

    private final ScheduledExecutorService timers;
    private final AtomicReference<Failures.Stop> stop = new AtomicReference<>(Failures.Stop.NONE);
    private volatile Connection connection;
    /** How to cancel on the server what the call is running now (a statement, its COMMIT); null between. */
    private volatile ServerCancel inProgress;
    private volatile boolean finished;

    CallStop(ScheduledExecutorService timers) {
        this.timers = timers;
    }

    void attach(Connection c) throws SQLException {
        connection = c;
        check();
    }

    void running(Statement s) {
        inProgress = s == null ? null : s::cancel;
    }

    /**
     * The call is about to send its COMMIT on {@code c}: a stop now sends the driver's cancel request
     * for whatever the connection runs (a statement's {@code cancel()} does nothing once it has
     * finished). A cancel that reaches the server before the COMMIT does is ignored by an idle
     * session; the connection is dropped after any stop, so no later call can meet it.
     */
    void committing(Connection c) {
        inProgress = () -> c.unwrap(PGConnection.class).cancelQuery();
    }

    Failures.Stop stopped() {
        return stop.get();
    }

    /** Throws when the call has been stopped, so that no further statement starts. */
    void check() throws SQLException {
        if (stop.get() != Failures.Stop.NONE) {
            throw new SQLException("the call was stopped", "57014");
        }
    }

    void stop(Failures.Stop why) {
        if (finished || !stop.compareAndSet(Failures.Stop.NONE, why)) {
            return;
        }
        ServerCancel running = inProgress;
        if (running != null) {
            try {
                running.send(); // a CancelRequest to the server: the query stops there, not only here
            } catch (SQLException | RuntimeException e) {
                // the abort below still ends the call
            }
        }
        try {
            timers.schedule(this::abort, ABORT_GRACE_MS, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            abort();
        }
    }

    private void abort() {
        Connection c = connection;
        if (!finished && c != null) {
            try {
                c.abort(Runnable::run);
            } catch (SQLException | RuntimeException e) {
                // nothing more to do: the socket is gone or going
            }
        }
    }

    void finish() {
        finished = true;
    }

    /** Sends the driver's cancel request for what a call is running on the server. */
    @FunctionalInterface
    private interface ServerCancel {
        void send() throws SQLException;
    }
}
