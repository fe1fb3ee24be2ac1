package dev.postern.executor.sql;

import dev.postern.policy.AuthorizedSqlStatement;
import dev.postern.policy.model.HostSyntax;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.net.AddressRanges;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.outcome.SqlRowsOutcome;
import dev.postern.policy.port.ActionExecutor;
import dev.postern.policy.port.Cancellation;
import dev.postern.policy.port.CredentialStore;
import dev.postern.policy.port.CredentialUnavailableException;
import dev.postern.policy.port.Secret;
import dev.postern.policy.port.SecretMask;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.SocketFactory;
import org.postgresql.Driver;
import org.postgresql.PGConnection;

/**
 * Runs permitted SQL statements on PostgreSQL. Before any connection opens, the database's host is
 * resolved and every address judged ({@link AddressRanges}: a loopback or private one needs
 * {@code allowPrivateAddresses}, cloud metadata never); connections open on the first permitted
 * call and a few idle ones are kept per database until {@link #close()} ({@link ConnectionPool}).
 * Each call is one transaction: a {@code BEGIN READ ONLY} block for a read-only statement, under the
 * session's {@code statement_timeout}, {@code lock_timeout} and {@code idle_in_transaction_session_timeout},
 * set from the database's timeout when the connection opened; the statement is prepared and its values
 * bound as parameters, never spliced: with their declared types, or with the types the server gives
 * their positions where those do not fit ({@link ParamTypes}, asked once per statement, not per call). With a row cap below {@link #MAX_FETCH} a read-only
 * call sends {@code BEGIN READ ONLY} itself, in the statement's message group (one answer from the
 * server), and the server sends at most {@code maxRows + 1} rows ({@code setMaxRows}); otherwise the
 * driver sends the {@code BEGIN} (a simple query the server answers on its own) and rows stream
 * through a cursor ({@code setFetchSize}). Reading stops at {@code maxRows} or the byte cap. A read-only
 * call returns its rows as soon as they are read; its {@code ROLLBACK} is sent off the call's path (or
 * by the next call, ahead of its own statement in the same message group), and the connection is
 * reused only once that succeeded. A writing call returns only
 * after its {@code COMMIT} succeeded. The whole call is bounded by the timeout; a timeout or a
 * cancellation cancels the query (or the {@code COMMIT}) on the server and drops the connection. Thread-safe.
 *
 * <p>Limits: a single value larger than the byte cap is still fetched whole by the driver before it is
 * dropped; with {@code verify-full} the driver dials the host name (TLS proves the server's identity),
 * so the address check judges the names's addresses as resolved here, not the driver's own resolution.
 */
public final class SqlActionExecutor implements ActionExecutor<AuthorizedSqlStatement> {
    /** Rows per fetch of the cursor; a read-only call with a row cap below this sends its own BEGIN READ ONLY. */
    private static final int MAX_FETCH = 500;
    /** Sent before a read-only statement as part of the same prepared statement (see run()). */
    private static final String BEGIN_READ_ONLY = "BEGIN READ ONLY; ";
    /** Sent before that by a call whose pooled connection's last read-only transaction is still open (ConnectionPool.Taken). */
    private static final String ROLLBACK = "ROLLBACK; ";

    private final CredentialStore credentials;
    private final Driver driver = new Driver();
    private final ConnectionPool pool;
    private final ParamTypes paramTypes = new ParamTypes();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "postern-sql-timer");
        t.setDaemon(true);
        return t;
    });

    public SqlActionExecutor(CredentialStore credentials) {
        this(credentials, Runnable::run);
    }

    /**
     * @param releaseGate how a finished call's connection reaches the threads that end its transaction;
     *                    tests pass one that holds releases, to look at the server in between
     */
    SqlActionExecutor(CredentialStore credentials, Executor releaseGate) {
        this.credentials = Objects.requireNonNull(credentials, "credentials");
        this.pool = new ConnectionPool(Objects.requireNonNull(releaseGate, "releaseGate"));
    }

    /**
     * For {@code postern check-config --deep --connect}: whether {@code db}'s server would accept each of
     * its statements, running none. The host's addresses are judged as a call judges them (nothing is
     * dialed when one is refused); then one connection opens as a call's does, logged in as the
     * database's user with its password from {@code credentials}, the session read-only; for each
     * statement the server is asked to parse and describe it with its params typed as a call binds them
     * (Parse, Describe and Sync: never Bind or Execute, and no other statement is sent). The connection
     * is closed before this returns. Messages are masked as a call's are. Never throws for what the
     * network or the server answers. Limits: privileges are checked by the server only when a statement
     * runs, so a missing {@code GRANT} is not found here.
     */
    public static StatementCheck checkStatements(SqlDatabase db, CredentialStore credentials) {
        return StatementProbe.check(db, credentials);
    }

    /** What {@link #checkStatements} found on one database. Immutable. */
    public sealed interface StatementCheck {

        /** The address check refused the host, as it would refuse a call: nothing was dialed. */
        record NotDialed(String reason) implements StatementCheck {
            public NotDialed {
                Objects.requireNonNull(reason, "reason");
            }
        }

        /** No session: the step that failed, the SQLSTATE ({@code ""} when there is none) and the masked message. */
        record NotConnected(Step step, String sqlState, String message) implements StatementCheck {
            public NotConnected {
                Objects.requireNonNull(step, "step");
                Objects.requireNonNull(sqlState, "sqlState");
                Objects.requireNonNull(message, "message");
            }
        }

        /** Logged in: the statements the server would not parse or describe, in statement order (empty: all accepted). */
        record Connected(List<Rejected> rejected) implements StatementCheck {
            public Connected {
                rejected = List.copyOf(rejected);
            }
        }

        /** Where a session failed to come about. */
        enum Step {
            /** The password credential could not be read; nothing was dialed. */
            CREDENTIAL,
            /** The host did not resolve, or no connection was made. */
            CONNECT,
            /** The TLS handshake (or the server's TLS support) failed. */
            TLS,
            /** The server refused the login: user, password or database. */
            LOGIN
        }

        /** One statement the server refused: its name, the SQLSTATE and the server's masked message. */
        record Rejected(String statement, String sqlState, String message) {
            public Rejected {
                Objects.requireNonNull(statement, "statement");
                Objects.requireNonNull(sqlState, "sqlState");
                Objects.requireNonNull(message, "message");
            }
        }
    }

    @Override
    public Class<AuthorizedSqlStatement> permitType() {
        return AuthorizedSqlStatement.class;
    }

    @Override
    public Outcome execute(AuthorizedSqlStatement permit, Cancellation cancellation) {
        if (closed.get()) {
            return new ExecutionFailure(FailureCode.EXECUTOR_FAILED, "the SQL executor is closed");
        }
        if (cancellation.isCancelled()) {
            return new ExecutionFailure(FailureCode.CANCELLED, "the call was cancelled before it began");
        }
        SqlDatabase db = permit.database();
        Optional<ExecutionFailure> refused = Dialing.checkAddresses(db);
        if (refused.isPresent()) {
            return refused.get();
        }
        Secret password;
        try {
            password = credentials.resolve(db.password());
        } catch (CredentialUnavailableException e) {
            return new ExecutionFailure(FailureCode.CREDENTIAL_UNAVAILABLE,
                    "the password credential " + db.password().name() + " of database " + db.name() + " is unavailable: "
                            + e.getMessage()).withDetail(e.detail());
        }
        List<byte[]> secrets = new ArrayList<>();
        credentials.all().forEach(s -> secrets.add(s.reveal()));
        secrets.add(password.reveal());
        SecretMask mask = new SecretMask(secrets);

        CallStop call = new CallStop(timers);
        long deadlineNanos = System.nanoTime() + db.timeout().toNanos();
        ScheduledFuture<?> deadline;
        try {
            deadline = timers.schedule(() -> call.stop(Failures.Stop.TIMED_OUT), db.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return new ExecutionFailure(FailureCode.EXECUTOR_FAILED, "the SQL executor is closed");
        }
        cancellation.onCancel(() -> call.stop(Failures.Stop.CANCELLED));
        Connection conn = null;
        boolean reusable = false;
        boolean readOnly = permit.statement().readOnly();
        Progress progress = new Progress();
        try {
            Optional<ConnectionPool.Taken> pooled = pool.take(db, deadlineNanos, () -> call.stopped() != Failures.Stop.NONE,
                    pipelined(permit));
            conn = pooled.isPresent() ? pooled.get().connection() : Dialing.open(driver, db, password, false);
            call.attach(conn);
            SqlRowsOutcome outcome;
            try {
                outcome = run(permit, conn, call, mask, progress, pooled.isPresent() && pooled.get().rollbackFirst());
            } catch (SQLException e) {
                if (pooled.isEmpty() || !brokenBeforeCommit(e, progress) || call.stopped() != Failures.Stop.NONE) {
                    throw e;
                }
                // A pooled connection the server had dropped: nothing was committed on it, so the call
                // runs once more on a fresh connection (within the same deadline).
                ConnectionPool.closeQuietly(conn);
                conn = null;
                conn = Dialing.open(driver, db, password, false);
                call.attach(conn);
                outcome = run(permit, conn, call, mask, progress, false);
            }
            reusable = call.stopped() == Failures.Stop.NONE;
            return outcome;
        } catch (SQLException e) {
            paramTypes.forgetIfTypeFailure(e, db, permit.jdbcSql(), ParamTypes.kinds(permit.statement()));
            return Failures.of(e, call.stopped(), progress.commitSent, db, mask);
        } catch (RuntimeException e) {
            return new ExecutionFailure(FailureCode.EXECUTOR_FAILED, "the SQL executor failed unexpectedly")
                    .withDetail(mask.mask(ExecutionFailure.chain(e)));
        } finally {
            deadline.cancel(false);
            call.finish();
            if (conn != null) {
                if (reusable) {
                    pool.release(db, conn, readOnly ? ConnectionPool.Cleanup.ROLLBACK : ConnectionPool.Cleanup.RESET);
                } else {
                    ConnectionPool.closeQuietly(conn);
                }
            }
        }
    }

    /** How far a call got on its connection: whether a COMMIT was sent (after which its effect is unknown on failure). */
    private static final class Progress {
        boolean commitSent;
    }

    /**
     * A connection failure before any COMMIT, so the transaction did not commit: SQLSTATE class 08
     * (the socket broke) or the server ending the session (57P01 administrator's terminate, 57P02 crash).
     */
    private static boolean brokenBeforeCommit(SQLException e, Progress progress) {
        String state = e.getSQLState();
        return !progress.commitSent && state != null && (state.startsWith("08") || state.equals("57P01") || state.equals("57P02"));
    }

    /** Whether the call sends its own BEGIN READ ONLY with its statement (see run()). */
    private static boolean pipelined(AuthorizedSqlStatement permit) {
        return permit.statement().readOnly() && permit.database().maxRows() < MAX_FETCH;
    }

    /**
     * Runs the statement on {@code conn} in its own transaction; {@code rollbackFirst}: the connection's
     * last read-only transaction is still open (only for a pipelined call), and its ROLLBACK goes first
     * in the same message group.
     */
    private SqlRowsOutcome run(AuthorizedSqlStatement permit, Connection conn, CallStop call, SecretMask mask, Progress progress,
            boolean rollbackFirst) throws SQLException {
        SqlDatabase db = permit.database();
        boolean readOnly = permit.statement().readOnly();
        List<ParamTypes.Kind> kinds = ParamTypes.kinds(permit.statement());
        Optional<ParamTypes.Typing> known = paramTypes.known(db, permit.jdbcSql(), kinds);
        ParamTypes.Typing typing;
        if (known.isPresent()) {
            typing = known.get();
        } else if (kinds.isEmpty()) {
            typing = new ParamTypes.Typing.Declared(); // nothing to type: nothing to ask
        } else {
            // The statement's first call on this executor: describe-only requests (Parse, Describe, Sync;
            // nothing runs) find how its values are typed (ParamTypes). A refused Parse would abort an open
            // transaction block, so the claimed ROLLBACK goes first, on its own, this once.
            if (rollbackFirst) {
                if (conn.getAutoCommit()) {
                    try (Statement s = conn.createStatement()) {
                        call.running(s);
                        s.execute("ROLLBACK");
                    } finally {
                        call.running(null);
                    }
                } else {
                    conn.rollback();
                }
                rollbackFirst = false;
            }
            call.check();
            typing = paramTypes.find(conn, db, permit.jdbcSql(), kinds, call::running);
            call.check();
        }
        // The timeouts are the session's own, set when the connection opened (see open()).
        boolean pipelined = pipelined(permit);
        if (pipelined) {
            // BEGIN READ ONLY goes with the statement as one more statement of the same message group
            // (Parse, Bind, Execute each, one Sync), so the server answers both at once. The driver's own
            // BEGIN (autocommit off) is a simple query the server answers on its own: one more packet
            // and one more wake-up of this thread per call. The block is explicit either way: the
            // statement runs only if the BEGIN did (after an error the server skips to the Sync), a
            // procedure cannot commit inside it, and the release's ROLLBACK ends it. Autocommit only
            // keeps the driver from sending its BEGIN; it also ignores the fetch size then, so the row
            // cap is the server's (setMaxRows: at most maxRows + 1 rows are sent, as many as the first
            // fetch of the cursor below would buffer).
            conn.setAutoCommit(true);
        } else {
            // The driver opens the transaction with BEGIN READ ONLY (or BEGIN), a simple query sent in the
            // same network write as the statement.
            conn.setAutoCommit(false);
            conn.setReadOnly(readOnly);
        }
        boolean done = false;
        try {
            SqlRowsOutcome outcome;
            String sql = !pipelined ? permit.jdbcSql() : (rollbackFirst ? ROLLBACK : "") + BEGIN_READ_ONLY + permit.jdbcSql();
            try (PreparedStatement ps = conn.prepareStatement(sql)) {
                if (pipelined) {
                    ps.setMaxRows(db.maxRows() + 1);
                } else {
                    ps.setFetchSize(Math.min(db.maxRows() + 1, MAX_FETCH));
                }
                ParamTypes.bind(ps, permit.boundValues(), typing);
                call.running(ps);
                boolean rows = ps.execute();
                if (pipelined) {
                    for (int own = rollbackFirst ? 2 : 1; own > 0; own--) {
                        if (rows) {
                            throw new SQLException("ROLLBACK or BEGIN READ ONLY returned rows", "XX000");
                        }
                        rows = ps.getMoreResults(); // past the executor's own statements, to the operator's
                    }
                }
                call.check();
                if (rows) {
                    Rows.Read read = Rows.read(ps.getResultSet(), db.maxRows(), db.maxResponseBytes(), mask);
                    call.check();
                    outcome = new SqlRowsOutcome(db.name(), permit.statement().name(), read.columns(), read.rows(),
                            read.rows().size(), read.truncated());
                } else {
                    outcome = new SqlRowsOutcome(db.name(), permit.statement().name(), List.of(), List.of(),
                            Math.max(0, ps.getLargeUpdateCount()), false);
                }
            }
            call.running(null);
            if (!readOnly) {
                // The outcome of a write is reported only once committed. What is left for the release
                // (ConnectionPool.Cleanup): a read-only call's ROLLBACK, which also undoes any SET the
                // statement made; after a commit, RESET ALL, which puts back the start-up values (the
                // timeouts included) that a committed set_config(..., false) may have changed.
                // A stop from here on cancels the COMMIT on the server as it would the statement; one
                // that came before it sends no COMMIT at all.
                call.committing(conn);
                call.check();
                progress.commitSent = true;
                conn.commit();
                call.running(null);
            }
            done = true;
            return outcome;
        } finally {
            if (!done) {
                call.running(null);
            }
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        timers.shutdownNow();
        pool.close();
    }

}
