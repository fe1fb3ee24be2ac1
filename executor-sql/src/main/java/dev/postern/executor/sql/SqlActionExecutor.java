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
    /** How long after a timeout or cancellation the connection is aborted if the server has not answered. */
    private static final long ABORT_GRACE_MS = 1000;

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
        Optional<ExecutionFailure> refused = checkAddresses(db);
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

        Call call = new Call();
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
            conn = pooled.isPresent() ? pooled.get().connection() : open(db, password);
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
                conn = open(db, password);
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
    private SqlRowsOutcome run(AuthorizedSqlStatement permit, Connection conn, Call call, SecretMask mask, Progress progress,
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

    /** Resolves the host and judges every address before anything is dialed. */
    static Optional<ExecutionFailure> checkAddresses(SqlDatabase db) {
        InetAddress[] addresses;
        try {
            addresses = InetAddress.getAllByName(db.host());
        } catch (UnknownHostException e) {
            return Optional.of(new ExecutionFailure(FailureCode.CONNECT_FAILED, "the host of database " + db.name() + " did not resolve")
                    .withDetail("the host " + db.host() + " of database " + db.name() + " did not resolve"));
        }
        for (InetAddress a : addresses) {
            Optional<AddressRanges.Range> refused = AddressRanges.refusal(a, db.allowPrivateAddresses());
            if (refused.isPresent()) {
                AddressRanges.Range r = refused.get();
                return Optional.of(new ExecutionFailure(FailureCode.ADDRESS_REFUSED, "database " + db.name()
                        + ": its host resolves to a " + r.what() + " address" + (r.kind() == AddressRanges.Kind.METADATA
                        ? ", which is never reached" : ", which needs \"allowPrivateAddresses\": true"))
                        .withDetail("database " + db.name() + ": " + db.host() + " resolves to " + a.getHostAddress() + ", "
                                + refusedBecause(r)));
            }
            if (db.tls().mode() == SqlDatabase.TlsMode.DISABLE && !a.isLoopbackAddress()) {
                return Optional.of(new ExecutionFailure(FailureCode.ADDRESS_REFUSED, "database " + db.name()
                        + ": TLS is off, so only a loopback address may be dialed, but its host resolves to another")
                        .withDetail("database " + db.name() + ": TLS is off, so only a loopback address may be dialed, but "
                                + db.host() + " resolves to " + a.getHostAddress()));
            }
        }
        return Optional.empty();
    }

    /** A new connection for a call: {@link #open(Driver, SqlDatabase, Secret, boolean)}, read-write allowed. */
    private Connection open(SqlDatabase db, Secret password) throws SQLException {
        return open(driver, db, password, false);
    }

    /**
     * A new connection, the one way this module opens one (calls and {@link #checkStatements}). The
     * database's timeout becomes the session's {@code statement_timeout}, {@code lock_timeout} and
     * {@code idle_in_transaction_session_timeout} in the start-up packet, so no call spends a round trip
     * setting them (and the driver sends no statement of its own after login); {@code readOnlySession} adds {@code default_transaction_read_only=on} there too, so
     * every transaction of the session is read-only without a statement being sent.
     */
    static Connection open(Driver driver, SqlDatabase db, Secret password, boolean readOnlySession) throws SQLException {
        long ms = db.timeout().toMillis();
        Properties p = new Properties();
        p.setProperty("options", "-c statement_timeout=" + ms + " -c lock_timeout=" + ms
                + " -c idle_in_transaction_session_timeout=" + ms + " -c standard_conforming_strings=on"
                + (readOnlySession ? " -c default_transaction_read_only=on" : ""));
        p.setProperty("user", db.user());
        p.setProperty("password", password.revealAsString());
        p.setProperty("ApplicationName", "postern");
        // A 9.0+ server takes application_name in the start-up packet; without this the driver sends a
        // SET after login, one more round trip per connection and a statement the deep check must not send.
        p.setProperty("assumeMinServerVersion", "9.0");
        long seconds = Math.max(1, (db.timeout().toMillis() + 999) / 1000);
        p.setProperty("connectTimeout", Long.toString(seconds));
        p.setProperty("loginTimeout", Long.toString(seconds));
        p.setProperty("socketTimeout", Long.toString(seconds + 5));
        p.setProperty("cancelSignalTimeout", "2");
        p.setProperty("tcpKeepAlive", "true");
        p.setProperty("preferQueryMode", "extended");
        p.setProperty("gssEncMode", "disable");
        // The address each socket dials (a call's, a cancel request's) is judged as it is dialed, not only
        // when checkAddresses resolved the name: a name that resolves anew in between cannot slip through.
        p.setProperty("socketFactory", DialCheckingSockets.class.getName());
        p.setProperty("socketFactoryArg", DialCheckingSockets.argument(db));
        if (db.tls().mode() == SqlDatabase.TlsMode.DISABLE) {
            p.setProperty("sslmode", "disable");
        } else {
            p.setProperty("sslmode", "verify-full");
            if (db.tls().caFile().isPresent()) {
                p.setProperty("sslrootcert", db.tls().caFile().get().toString());
            } else {
                p.setProperty("sslfactory", "org.postgresql.ssl.DefaultJavaSSLFactory");
            }
        }
        Connection c = driver.connect("jdbc:postgresql://" + HostSyntax.inAuthority(db.host()) + ':' + db.port() + '/' + db.database(), p);
        if (c == null) {
            throw new SQLException("the PostgreSQL driver refused the URL", "08001");
        }
        return c;
    }

    /** Why an address in {@code r} is not dialed: {@code in 10.0.0.0/8 (private), which needs "allowPrivateAddresses": true}. */
    private static String refusedBecause(AddressRanges.Range r) {
        return "in " + r.cidr() + " (" + r.what() + ")" + (r.kind() == AddressRanges.Kind.METADATA
                ? ", which is never reached" : ", which needs \"allowPrivateAddresses\": true");
    }

    /**
     * The driver's socket factory (pgjdbc's {@code socketFactory}, instantiated by the driver with
     * {@link #argument}): each socket judges the address it is about to dial with the same rule as
     * {@link #checkAddresses} — {@code AddressRanges} with the database's {@code allowPrivateAddresses},
     * and loopback only when TLS is off — and refuses before connecting
     * ({@link DialRefusedException}). An address the driver left unresolved (a SOCKS proxy set in the
     * JVM) is refused too. Public only because the driver creates it by reflection; nothing else uses it.
     */
    public static final class DialCheckingSockets extends SocketFactory {
        private final String database;
        private final boolean allowPrivateAddresses;
        private final boolean loopbackOnly;

        /** The driver's constructor: {@code argument} is what {@link #argument} wrote. */
        public DialCheckingSockets(String argument) {
            String[] parts = argument.split(",", 3);
            if (parts.length != 3 || !parts[0].matches("private|public") || !parts[1].matches("tls|loopback")) {
                throw new IllegalArgumentException("not an argument of DialCheckingSockets: " + argument);
            }
            this.allowPrivateAddresses = parts[0].equals("private");
            this.loopbackOnly = parts[1].equals("loopback");
            this.database = parts[2];
        }

        static String argument(SqlDatabase db) {
            return (db.allowPrivateAddresses() ? "private" : "public") + ','
                    + (db.tls().mode() == SqlDatabase.TlsMode.DISABLE ? "loopback" : "tls") + ',' + db.name();
        }

        @Override
        public Socket createSocket() {
            return new Socket() {
                @Override
                public void connect(SocketAddress endpoint, int timeout) throws IOException {
                    judge(endpoint);
                    super.connect(endpoint, timeout);
                }
            };
        }

        private void judge(SocketAddress endpoint) throws DialRefusedException {
            if (!(endpoint instanceof InetSocketAddress inet) || inet.isUnresolved() || inet.getAddress() == null) {
                throw new DialRefusedException("database " + database + ": the driver would dial " + endpoint
                        + " unresolved (through a proxy); only addresses judged here are dialed");
            }
            InetAddress a = inet.getAddress();
            Optional<AddressRanges.Range> refused = AddressRanges.refusal(a, allowPrivateAddresses);
            if (refused.isPresent()) {
                AddressRanges.Range r = refused.get();
                throw new DialRefusedException("database " + database + ": the address dialed, " + a.getHostAddress()
                        + ", is " + refusedBecause(r));
            }
            if (loopbackOnly && !a.isLoopbackAddress()) {
                throw new DialRefusedException("database " + database + ": TLS is off, so only a loopback address may be dialed, not "
                        + a.getHostAddress());
            }
        }

        // The driver calls only createSocket() and connect(); these complete SocketFactory's contract the same way.
        @Override
        public Socket createSocket(String host, int port) throws IOException {
            return connected(new InetSocketAddress(host, port), null);
        }

        @Override
        public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
            return connected(new InetSocketAddress(host, port), new InetSocketAddress(localHost, localPort));
        }

        @Override
        public Socket createSocket(InetAddress host, int port) throws IOException {
            return connected(new InetSocketAddress(host, port), null);
        }

        @Override
        public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) throws IOException {
            return connected(new InetSocketAddress(address, port), new InetSocketAddress(localAddress, localPort));
        }

        private Socket connected(InetSocketAddress to, InetSocketAddress from) throws IOException {
            Socket s = createSocket();
            try {
                if (from != null) {
                    s.bind(from);
                }
                s.connect(to);
                return s;
            } catch (IOException | RuntimeException e) {
                s.close();
                throw e;
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

    /**
     * One call's stop state: the first of timeout and cancellation wins; stopping cancels the running
     * statement on the server and, if the server has not answered within a grace period, aborts the
     * connection so the call returns.
     */
    private final class Call {
        private final AtomicReference<Failures.Stop> stop = new AtomicReference<>(Failures.Stop.NONE);
        private volatile Connection connection;
        /** How to cancel on the server what the call is running now (a statement, its COMMIT); null between. */
        private volatile ServerCancel inProgress;
        private volatile boolean finished;

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
    }

    /** Sends the driver's cancel request for what a call is running on the server. */
    @FunctionalInterface
    private interface ServerCancel {
        void send() throws SQLException;
    }
}
