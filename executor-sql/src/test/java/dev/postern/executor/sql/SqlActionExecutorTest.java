package dev.postern.executor.sql;

import dev.postern.executor.sql.internal.DialCheckingSockets;
import dev.postern.executor.sql.internal.DialRefusedException;
import dev.postern.fixtures.InMemoryCredentials;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.policy.AuthorizedSqlStatement;
import dev.postern.policy.Decision;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.action.Argument;
import dev.postern.policy.action.SqlQueryAction;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.outcome.SqlRowsOutcome;
import dev.postern.policy.outcome.SqlValue;
import dev.postern.policy.port.Cancellation;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The SQL executor against a real PostgreSQL: injection as data, read-only transactions, timeouts, cancellation, caps, types. */
class SqlActionExecutorTest {
    private static final String PASSWORD = "agent-password-7f3a";
    private static TestDatabase db;
    private SqlActionExecutor executor;

    @BeforeAll
    static void startDatabase() throws SQLException {
        db = TestDatabase.start();
        db.setPassword(PASSWORD);
    }

    @AfterAll
    static void stopDatabase() throws SQLException {
        if (db != null) {
            db.close();
        }
    }

    @BeforeEach
    void newExecutor() {
        executor = new SqlActionExecutor(new InMemoryCredentials().put("pw", PASSWORD));
    }

    @AfterEach
    void closeExecutor() {
        executor.close();
    }

    private static ParamSpec text(int maxLength) {
        return new ParamSpec.StringParam(Optional.empty(), Optional.empty(), maxLength);
    }

    private static SqlDatabase database(Duration timeout, int maxRows, long maxBytes, SqlStatementSpec... statements) {
        return db.database("shop", timeout, maxRows, maxBytes, "pw", List.of(statements));
    }

    private static Decision decide(SqlDatabase database, String statement, Map<String, Argument> args) {
        return new PolicyEngine(Policy.of(database))
                .decide(new SqlQueryAction(database.name(), statement, args));
    }

    private static AuthorizedSqlStatement permit(SqlDatabase database, String statement, Map<String, Argument> args) {
        Decision d = decide(database, statement, args);
        return (AuthorizedSqlStatement) assertInstanceOf(Decision.Permit.class, d, d::toString).permit();
    }

    /** Replaces this test's executor with one whose releases pass through {@code gate}. */
    private void releasingThrough(HeldReleases gate) {
        executor.close();
        executor = new SqlActionExecutor(new InMemoryCredentials().put("pw", PASSWORD), gate);
    }

    private Outcome run(AuthorizedSqlStatement permit) {
        return executor.execute(permit, new Cancellation());
    }

    private static SqlRowsOutcome rows(Outcome outcome) {
        return assertInstanceOf(SqlRowsOutcome.class, outcome, outcome::toString);
    }

    private static ExecutionFailure failure(Outcome outcome, FailureCode code) {
        ExecutionFailure f = assertInstanceOf(ExecutionFailure.class, outcome, outcome::toString);
        assertEquals(code, f.code(), f.message());
        return f;
    }

    // ------------------------------------------------------------------ injection arrives as data

    static final List<String> CORPUS = List.of(
            "1; DROP TABLE t",
            "'; COMMIT; DROP TABLE t; --",
            "'); DROP TABLE t; --",
            "\"; DROP TABLE t; --",
            "\\'; DROP TABLE t; --",
            "E'\\''; DROP TABLE t; --",
            "$$; DROP TABLE t; $$",
            "$q$ '; DROP TABLE t; $q$",
            "*/ DROP TABLE t; /*",
            "-- DROP TABLE t",
            "?; DROP TABLE t",
            "$1; DROP TABLE t",
            ":s::text; DROP TABLE t",
            "a\\b\\\\c\\",
            "'''' \"\"\"\" `` ´´ ‘’ “”",
            "\u202e😀 ünïcödé 中文 \uD83D\uDC68\u200D\uD83D\uDC69\u200D\uD83D\uDC67 '; DROP TABLE t; --",
            "x".repeat(60_000) + "'; DROP TABLE t; --");

    @Test
    void injectionArgumentsArriveAsDataAndTheServerRunsOnlyThePreparedStatement() throws SQLException {
        SqlDatabase shop = database(Duration.ofSeconds(10), 10, 1 << 20,
                new SqlStatementSpec("echo", "SELECT CAST(:s AS text) AS v, note FROM t WHERE note = :s OR id = 1", Map.of("s", text(65536))),
                new SqlStatementSpec("by-id", "SELECT note FROM t WHERE id = CAST(:s AS int)", Map.of("s", text(65536))));
        int mark = db.logMark();
        for (String payload : CORPUS) {
            SqlRowsOutcome out = rows(run(permit(shop, "echo", Map.of("s", new Argument.Text(payload)))));
            assertEquals(1, out.rowCount(), payload);
            assertEquals(new SqlValue.Text(payload), out.rows().get(0).get(0), "the value comes back exactly as sent");
            ExecutionFailure f = failure(run(permit(shop, "by-id", Map.of("s", new Argument.Text(payload)))),
                    FailureCode.QUERY_FAILED);
            assertTrue(f.message().startsWith("SQLSTATE 22P02: "), f.message());
        }
        assertEquals(3, db.count("SELECT count(*) FROM t"), "table t is intact");
        assertEquals(0, db.count("SELECT count(*) FROM t WHERE note NOT LIKE 'row %'"));
        List<String> logged = db.statementsSince(mark);
        assertFalse(logged.isEmpty(), "log_statement=all must have logged the calls");
        for (String line : logged) {
            String statement = line.strip();
            assertTrue(statement.equals("BEGIN READ ONLY")
                            || statement.equals("SELECT CAST($1 AS text) AS v, note FROM t WHERE note = $2 OR id = 1")
                            || statement.equals("SELECT note FROM t WHERE id = CAST($1 AS int)")
                            || statement.equals("ROLLBACK")
                            || statement.startsWith("SET extra_float_digits") || statement.startsWith("SET application_name"),
                    () -> "the server ran a statement that is not the operator's: " + statement);
        }
    }

    @Test
    void aNulInTextIsDeniedBeforeAnythingRuns() {
        SqlDatabase shop = database(Duration.ofSeconds(5), 10, 4096,
                new SqlStatementSpec("echo", "SELECT CAST(:s AS text) AS v", Map.of("s", text(100))));
        Decision d = decide(shop, "echo", Map.of("s", new Argument.Text("a\0'; DROP TABLE t; --")));
        assertEquals("sql.args.nul", assertInstanceOf(Decision.Deny.class, d).rule());
    }

    // ------------------------------------------------------------------ read-only means read-only

    @Test
    void aReadOnlyStatementCallingAFunctionThatWritesIsStoppedByTheReadOnlyTransaction() throws SQLException {
        SqlStatementSpec readOnly = new SqlStatementSpec("peek", "SELECT sneaky_write(:w) AS written", Map.of("w", text(50)));
        SqlStatementSpec writer = new SqlStatementSpec("write", "SELECT sneaky_write(:w) AS written", Map.of("w", text(50)), false, false);
        SqlDatabase shop = database(Duration.ofSeconds(5), 10, 4096, readOnly, writer);
        long before = db.count("SELECT count(*) FROM audit WHERE what = 'ro-probe'");

        ExecutionFailure f = failure(run(permit(shop, "peek", Map.of("w", new Argument.Text("ro-probe")))),
                FailureCode.QUERY_FAILED);
        assertTrue(f.message().startsWith("SQLSTATE 25006: "), f.message());
        assertEquals(before, db.count("SELECT count(*) FROM audit WHERE what = 'ro-probe'"));

        // The same function in a statement the operator marked as writing does write: the probe can fail.
        rows(run(permit(shop, "write", Map.of("w", new Argument.Text("ro-probe")))));
        assertEquals(before + 1, db.count("SELECT count(*) FROM audit WHERE what = 'ro-probe'"));
    }

    /** Row caps on either side of the executor's fetch size: below it BEGIN READ ONLY goes with the statement, from it on the driver sends it. */
    private static final int[] BOTH_WAYS_OF_BEGINNING = {10, 500};

    @Test
    void aReadOnlyStatementCallingAFunctionThatWritesIsStoppedWhateverItsRowCap() throws SQLException {
        for (int maxRows : BOTH_WAYS_OF_BEGINNING) {
            SqlDatabase shop = database(Duration.ofSeconds(5), maxRows, 4096,
                    new SqlStatementSpec("peek", "SELECT sneaky_write(:w) AS written", Map.of("w", text(50))));
            ExecutionFailure f = failure(run(permit(shop, "peek", Map.of("w", new Argument.Text("ro-cap-" + maxRows)))),
                    FailureCode.QUERY_FAILED);
            assertTrue(f.message().startsWith("SQLSTATE 25006: "), "maxRows " + maxRows + ": " + f.message());
            assertEquals(0, db.count("SELECT count(*) FROM audit WHERE what = 'ro-cap-" + maxRows + "'"));
        }
    }

    @Test
    void belowTheFetchSizeBeginReadOnlyReachesTheServerWithTheStatementAndFromItOnAsTheDriversOwnQuery() throws SQLException, InterruptedException {
        for (int maxRows : BOTH_WAYS_OF_BEGINNING) {
            SqlDatabase shop = database(Duration.ofSeconds(5), maxRows, 4096, noteById("begin-" + maxRows));
            try (SyncCounter groups = new SyncCounter()) {
                rows(run(permit(shop, "note", Map.of("id", new Argument.Whole(2)))));
                assertEquals(2, groups.syncs(), "maxRows " + maxRows + ": a statement's first call describes it once (ParamTypes)");
            }
            // The first call's ROLLBACK done, so the next call finds an idle connection, not one to roll back itself.
            assertEquals(0, db.awaitCount("SELECT count(*) FROM pg_stat_activity WHERE usename = 'agent' AND state <> 'idle'",
                    0, Duration.ofSeconds(5)));
            int mark = db.logMark();
            try (SyncCounter groups = new SyncCounter()) {
                rows(run(permit(shop, "note", Map.of("id", new Argument.Whole(1)))));
                assertEquals(1, groups.syncs(), "maxRows " + maxRows + ": one message group per call");
            }
            String select = "/* begin-" + maxRows + " */ SELECT note FROM t WHERE id = $1";
            List<String> received = db.receivedSince(mark).stream().filter(l -> !l.endsWith("ROLLBACK")).toList();
            assertEquals(2, received.size(), received::toString);
            if (maxRows < 500) {
                // Both Executes of one group: the server answers them together, at the Sync.
                assertTrue(received.get(0).matches("execute [^:]*: BEGIN READ ONLY"), received::toString);
            } else {
                assertEquals("statement: BEGIN READ ONLY", received.get(0), received::toString);
            }
            assertTrue(received.get(1).matches("execute [^:]*: " + java.util.regex.Pattern.quote(select)), received::toString);
        }
    }

    @Test
    void anEndlessResultIsCutAtASmallRowCapByTheServer() {
        // Below the fetch size the server sends at most maxRows + 1 rows; a driver that read on would never return.
        SqlDatabase shop = database(Duration.ofSeconds(20), 100, 1 << 20, new SqlStatementSpec("endless",
                "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT i FROM r", Map.of()));
        SqlRowsOutcome out = rows(run(permit(shop, "endless", Map.of())));
        assertEquals(100, out.rows().size());
        assertTrue(out.truncated());
        assertEquals(new SqlValue.Whole(100), out.rows().get(99).get(0));
    }

    @Test
    void aWriteStatementCommitsAndReportsTheRowsItChanged() throws SQLException {
        SqlDatabase shop = database(Duration.ofSeconds(5), 10, 4096, new SqlStatementSpec("rename",
                "UPDATE t SET note = :note WHERE id = :id", Map.of("note", text(50), "id", new ParamSpec.IntegerParam(1, 3)), false, false));
        SqlRowsOutcome out = rows(run(permit(shop, "rename", Map.of("note", new Argument.Text("row 2"), "id", new Argument.Whole(2)))));
        assertEquals(1, out.rowCount());
        assertTrue(out.columns().isEmpty());
        assertEquals(1, db.count("SELECT count(*) FROM t WHERE id = 2 AND note = 'row 2'"));
    }

    // ------------------------------------------------------------------ timeouts and cancellation end the backend's work

    private static final String SLEEPING = "SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid()"
            + " AND state = 'active' AND query LIKE '%/* nap%'";

    @Test
    void aQueryPastItsTimeoutFailsWithTimeoutAndLeavesNoBackendRunning() throws Exception {
        SqlDatabase shop = database(Duration.ofMillis(700), 10, 4096,
                new SqlStatementSpec("nap", "/* nap-timeout */ SELECT pg_sleep(30)", Map.of()));
        failure(run(permit(shop, "nap", Map.of())), FailureCode.TIMEOUT);
        assertEquals(0, db.awaitCount(SLEEPING, 0, Duration.ofSeconds(3)), "a pg_sleep is still running on the server");
        assertEquals(0, db.awaitCount("SELECT count(*) FROM pg_stat_activity WHERE usename = 'agent'", 0,
                Duration.ofSeconds(3)), "the timed-out connection must be dropped, not pooled");
    }

    @Test
    void aQueryCancelledMidRunIsCancelledOnTheServer() throws Exception {
        SqlDatabase shop = database(Duration.ofSeconds(30), 10, 4096,
                new SqlStatementSpec("nap", "/* nap-cancel */ SELECT pg_sleep(30)", Map.of()));
        Cancellation cancellation = new Cancellation();
        CompletableFuture<Outcome> running = CompletableFuture.supplyAsync(() -> executor.execute(permit(shop, "nap", Map.of()), cancellation));
        assertEquals(1, db.awaitCount(SLEEPING, 1, Duration.ofSeconds(10)), "the query never started");

        cancellation.cancel();

        failure(running.get(10, TimeUnit.SECONDS), FailureCode.CANCELLED);
        assertEquals(0, db.awaitCount(SLEEPING, 0, Duration.ofSeconds(3)), "a pg_sleep is still running on the server");
        assertEquals(0, db.awaitCount("SELECT count(*) FROM pg_stat_activity WHERE usename = 'agent'", 0,
                Duration.ofSeconds(3)));
    }

    // ------------------------------------------------------------------ caps hold without buffering

    @Test
    void theRowCapCutsAMillionRowTable() {
        SqlDatabase shop = database(Duration.ofSeconds(10), 100, 1 << 20,
                new SqlStatementSpec("all", "SELECT id, hash FROM big ORDER BY id", Map.of()));
        SqlRowsOutcome out = rows(run(permit(shop, "all", Map.of())));
        assertEquals(100, out.rows().size());
        assertEquals(100, out.rowCount());
        assertTrue(out.truncated());
        assertEquals(new SqlValue.Whole(1), out.rows().get(0).get(0));
        assertEquals(new SqlValue.Whole(100), out.rows().get(99).get(0));
        assertEquals(List.of(new SqlRowsOutcome.Column("id", "int4"), new SqlRowsOutcome.Column("hash", "text")), out.columns());
    }

    @Test
    void theByteCapCutsAMillionRowTableBeforeTheRowThatWouldPassIt() {
        long cap = 10_000;
        SqlDatabase shop = database(Duration.ofSeconds(10), 1_000_000, cap,
                new SqlStatementSpec("all", "SELECT id, hash FROM big", Map.of()));
        SqlRowsOutcome out = rows(run(permit(shop, "all", Map.of())));
        assertTrue(out.truncated());
        long rendered = 0;
        for (List<SqlValue> row : out.rows()) {
            for (SqlValue v : row) {
                rendered += v.text().getBytes(StandardCharsets.UTF_8).length + Rows.PER_VALUE;
            }
        }
        assertTrue(rendered <= cap, rendered + " bytes over the cap");
        // a row counts at most 47 bytes (a 7-digit id, a 32-digit hash, 4 per value) and the header 30:
        // a cut that leaves more room than that stopped early
        assertTrue(rendered > cap - 47 - 30, rendered + " bytes: the cut came too early");
    }

    @Test
    void anEndlessResultIsCutAtTheCapsSoNothingIsReadAhead() {
        // A recursive query with no end: an executor that read the whole result first would never return.
        SqlDatabase shop = database(Duration.ofSeconds(20), 1000, 1 << 20, new SqlStatementSpec("endless",
                "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT i FROM r", Map.of()));
        SqlRowsOutcome out = rows(run(permit(shop, "endless", Map.of())));
        assertEquals(1000, out.rows().size());
        assertTrue(out.truncated());
        assertEquals(new SqlValue.Whole(1000), out.rows().get(999).get(0));
    }

    // ------------------------------------------------------------------ values keep their types

    @Test
    void valuesComeBackTypedAndExact() {
        SqlDatabase shop = database(Duration.ofSeconds(5), 10, 1 << 20, new SqlStatementSpec("types",
                "SELECT 1::int2 AS a, 9223372036854775807::int8 AS b, 123456789012345678901234567890.123456789::numeric AS c,"
                        + " 'NaN'::numeric AS d, 1.5::float8 AS e, true AS f, '\\x00ff'::bytea AS g, DATE '2024-02-29' AS h,"
                        + " TIME '12:34:56' AS i, TIMESTAMP '2024-02-29 12:34:56.789' AS j,"
                        + " TIMESTAMPTZ '2024-02-29 12:34:56+02' AS k, NULL::text AS l, '{\"a\": 1}'::jsonb AS m,"
                        + " 'infinity'::timestamp AS n", Map.of()));
        SqlRowsOutcome out = rows(run(permit(shop, "types", Map.of())));
        List<SqlValue> row = out.rows().get(0);
        assertEquals(List.of("int2", "int8", "numeric", "numeric", "float8", "bool", "bytea", "date", "time", "timestamp",
                "timestamptz", "text", "jsonb", "timestamp"), out.columns().stream().map(SqlRowsOutcome.Column::type).toList());
        assertEquals(new SqlValue.Whole(1), row.get(0));
        assertEquals(new SqlValue.Whole(Long.MAX_VALUE), row.get(1));
        assertEquals(new SqlValue.Decimal(new BigDecimal("123456789012345678901234567890.123456789")), row.get(2));
        assertEquals(new SqlValue.Text("NaN"), row.get(3));
        assertEquals(new SqlValue.Float(1.5), row.get(4));
        assertEquals(new SqlValue.Bool(true), row.get(5));
        assertArrayEquals(new byte[] {0, (byte) 0xff}, ((SqlValue.Bytes) row.get(6)).value());
        assertEquals(new SqlValue.Temporal(LocalDate.of(2024, 2, 29)), row.get(7));
        assertEquals(new SqlValue.Temporal(LocalTime.of(12, 34, 56)), row.get(8));
        assertEquals(new SqlValue.Temporal(LocalDateTime.of(2024, 2, 29, 12, 34, 56, 789_000_000)), row.get(9));
        assertEquals(OffsetDateTime.of(2024, 2, 29, 10, 34, 56, 0, ZoneOffset.UTC).toInstant(),
                ((OffsetDateTime) ((SqlValue.Temporal) row.get(10)).value()).toInstant());
        assertEquals(new SqlValue.Null(), row.get(11));
        assertEquals(new SqlValue.Text("{\"a\": 1}"), row.get(12));
        assertEquals(new SqlValue.Text("infinity"), row.get(13));
    }

    @Test
    void argumentsAreBoundWithTheirDeclaredTypes() {
        SqlDatabase shop = database(Duration.ofSeconds(5), 10, 4096, new SqlStatementSpec("typed",
                "SELECT pg_typeof(:i)::text AS ti, pg_typeof(:n)::text AS tn, pg_typeof(:b)::text AS tb, pg_typeof(:s)::text AS ts,"
                        + " :n * 1 AS n",
                Map.of("i", new ParamSpec.IntegerParam(Long.MIN_VALUE, Long.MAX_VALUE),
                        "n", new ParamSpec.NumberParam(Optional.empty(), Optional.empty()),
                        "b", new ParamSpec.BooleanParam(), "s", text(10))));
        SqlRowsOutcome out = rows(run(permit(shop, "typed", Map.of("i", new Argument.Whole(7),
                "n", new Argument.Decimal(new BigDecimal("0.10000000000000000000001")), "b", new Argument.Bool(false),
                "s", new Argument.Text("x")))));
        assertEquals(List.of(new SqlValue.Text("bigint"), new SqlValue.Text("numeric"), new SqlValue.Text("boolean"),
                new SqlValue.Text("character varying"), new SqlValue.Decimal(new BigDecimal("0.10000000000000000000001"))),
                out.rows().get(0));
    }

    @Test
    void operatorSqlWithQuestionMarksCastsQuotesAndCommentsRunsAsWritten() {
        SqlDatabase shop = database(Duration.ofSeconds(5), 10, 4096, new SqlStatementSpec("odd",
                "/* ; ? :no */ SELECT '{\"a\": 1}'::jsonb ? :k AS has, :k::text || ':x; ?' AS k, $q$:no;$q$ AS d -- ;?\n;",
                Map.of("k", text(10))));
        SqlRowsOutcome out = rows(run(permit(shop, "odd", Map.of("k", new Argument.Text("a")))));
        assertEquals(List.of(new SqlValue.Bool(true), new SqlValue.Text("a:x; ?"), new SqlValue.Text(":no;")), out.rows().get(0));
    }

    // ------------------------------------------------------------------ nothing is dialed that may not be

    @Test
    void noConnectionOpensBeforeTheFirstCallNorForARefusedAddress() throws Exception {
        SqlDatabase privateRefused = new SqlDatabase("shop", db.pg.host(), db.pg.port(), TestDatabase.DB, TestDatabase.ROLE,
                new dev.postern.policy.model.CredentialRef("pw"), SqlDatabase.Tls.disabled(), false, Duration.ofSeconds(5),
                10, 4096, List.of(new SqlStatementSpec("one", "SELECT 1", Map.of())));
        int mark = db.logMark();
        assertEquals(0, db.awaitCount("SELECT count(*) FROM pg_stat_activity WHERE usename = 'agent'", 0,
                Duration.ofSeconds(3)), "a new executor has opened a connection");

        ExecutionFailure f = failure(run(permit(privateRefused, "one", Map.of())), FailureCode.ADDRESS_REFUSED);

        assertTrue(f.message().contains("loopback") && !f.message().contains("127.0.0."), "the agent is told no address: " + f.message());
        assertTrue(f.detail().contains("127.0.0.0/8"), "the operator is: " + f.detail());
        assertEquals(0, db.backendsOfRole());
        assertEquals(List.of(), db.statementsSince(mark));
    }

    @Test
    void theDriverDialsThroughTheAddressCheckSoANameThatResolvesAnewAfterTheCheckIsStillRefused() throws Exception {
        // The connection code alone, as if checkAddresses had passed and the name then resolved to loopback:
        // the socket the driver dials refuses 127.0.0.1 for a database without allowPrivateAddresses.
        SqlDatabase rebound = new SqlDatabase("shop", db.pg.host(), db.pg.port(), TestDatabase.DB, TestDatabase.ROLE,
                new dev.postern.policy.model.CredentialRef("pw"), SqlDatabase.Tls.disabled(), false, Duration.ofSeconds(5),
                10, 4096, List.of(new SqlStatementSpec("one", "SELECT 1", Map.of())));
        int mark = db.logMark();

        SQLException e = assertThrows(SQLException.class,
                () -> Dialing.open(new org.postgresql.Driver(), rebound, dev.postern.policy.port.Secret.of(PASSWORD), false));

        ExecutionFailure f = Failures.of(e, Failures.Stop.NONE, rebound, new dev.postern.policy.port.SecretMask(List.of()));
        assertEquals(FailureCode.ADDRESS_REFUSED, f.code(), f.message());
        assertFalse(f.message().contains("127.0.0.1"), "the agent is told no address: " + f.message());
        assertTrue(f.detail().contains("the address dialed, 127.0.0.1, is in 127.0.0.0/8"), f.detail());
        assertEquals(0, db.backendsOfRole(), "nothing reached the server");
        assertEquals(List.of(), db.statementsSince(mark));
    }

    @Test
    void theDialCheckRefusesAnUnresolvedAddressAndLetsAnAllowedOneThrough() throws Exception {
        DialCheckingSockets publicOnly = new DialCheckingSockets("public,tls,shop");
        try (java.net.Socket s = publicOnly.createSocket()) {
            DialRefusedException refused = assertThrows(DialRefusedException.class,
                    () -> s.connect(java.net.InetSocketAddress.createUnresolved("db.example", 5432), 1000));
            assertTrue(refused.getMessage().contains("unresolved"), refused.getMessage());
            assertFalse(s.isConnected());
        }
        DialCheckingSockets loopback = new DialCheckingSockets("private,loopback,shop");
        try (java.net.Socket s = loopback.createSocket()) {
            s.connect(new java.net.InetSocketAddress(db.pg.host(), db.pg.port()), 1000);
            assertTrue(s.isConnected(), "an allowed loopback address is dialed");
        }
        assertThrows(IllegalArgumentException.class, () -> new DialCheckingSockets("anything"));
    }

    @Test
    void aFailureMessageNeverCarriesThePassword() {
        SqlDatabase shop = database(Duration.ofSeconds(5), 10, 4096,
                new SqlStatementSpec("leak", "SELECT CAST(:s AS int)", Map.of("s", text(100))));
        ExecutionFailure f = failure(run(permit(shop, "leak", Map.of("s", new Argument.Text(PASSWORD)))), FailureCode.QUERY_FAILED);
        assertFalse(f.message().contains(PASSWORD), f.message());
        assertTrue(f.message().contains("****"), f.message());
    }

    // ------------------------------------------------------------------ pooled connections

    @Test
    void aPooledConnectionTheServerDroppedIsReplacedAndTheCallRunsOnce() throws Exception {
        SqlDatabase shop = database(Duration.ofSeconds(5), 10, 4096,
                new SqlStatementSpec("note", "SELECT note FROM t WHERE id = :id", Map.of("id", new ParamSpec.IntegerParam(1, 3))),
                new SqlStatementSpec("log", "INSERT INTO audit(what) VALUES (:w)", Map.of("w", text(50)), false, false));
        rows(run(permit(shop, "note", Map.of("id", new Argument.Whole(1)))));
        assertEquals(1, db.awaitCount("SELECT count(*) FROM pg_stat_activity WHERE usename = 'agent' AND state = 'idle'", 1,
                Duration.ofSeconds(3)), "one idle pooled connection");
        db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'agent'");
        assertEquals(0, db.awaitCount("SELECT count(*) FROM pg_stat_activity WHERE usename = 'agent'", 0, Duration.ofSeconds(3)));

        SqlRowsOutcome out = rows(run(permit(shop, "note", Map.of("id", new Argument.Whole(2)))));
        assertEquals(List.of(List.of(new SqlValue.Text("row 2"))), out.rows());

        // The same for a write: it commits exactly once.
        db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'agent'");
        assertEquals(0, db.awaitCount("SELECT count(*) FROM pg_stat_activity WHERE usename = 'agent'", 0, Duration.ofSeconds(3)));
        assertEquals(1, rows(run(permit(shop, "log", Map.of("w", new Argument.Text("retried-once"))))).rowCount());
        assertEquals(1, db.count("SELECT count(*) FROM audit WHERE what = 'retried-once'"));
    }

    @Test
    void theTimeoutHoldsOnAPooledConnectionEvenAfterACommittedStatementChangedIt() throws Exception {
        SqlDatabase shop = database(Duration.ofMillis(1500), 10, 4096,
                new SqlStatementSpec("loosen", "SELECT set_config('statement_timeout', '0', false) AS s", Map.of(), false, false),
                new SqlStatementSpec("show", "SELECT current_setting('statement_timeout') AS s, current_setting('lock_timeout') AS l,"
                        + " current_setting('idle_in_transaction_session_timeout') AS i", Map.of()));
        rows(run(permit(shop, "loosen", Map.of())));
        assertEquals(1, db.backendsOfRole(), "the connection went back to the pool");

        SqlRowsOutcome out = rows(run(permit(shop, "show", Map.of())));

        assertEquals(List.of(new SqlValue.Text("1500ms"), new SqlValue.Text("1500ms"), new SqlValue.Text("1500ms")), out.rows().get(0),
                "every call runs under the database's timeout");
        assertEquals(1, db.backendsOfRole(), "on the same pooled connection");
    }

    // ------------------------------------------------------------------ a read-only call's ROLLBACK is off its path

    private static final String IDLE_IN_TRANSACTION =
            "SELECT count(*) FROM pg_stat_activity WHERE usename = 'agent' AND state = 'idle in transaction'";

    private static SqlStatementSpec noteById(String tag) {
        return new SqlStatementSpec("note", "/* " + tag + " */ SELECT note FROM t WHERE id = :id",
                Map.of("id", new ParamSpec.IntegerParam(1, 3)));
    }

    @Test
    void aBurstOfSequentialReadOnlyCallsReusesOneConnectionAndLeavesNoBackendAfterClose() throws Exception {
        SqlDatabase shop = database(Duration.ofSeconds(5), 10, 4096, noteById("burst"));
        long before = db.pg.connectionsOf(TestDatabase.ROLE);

        for (int i = 0; i < 200; i++) {
            int id = 1 + i % 3;
            SqlRowsOutcome out = rows(run(permit(shop, "note", Map.of("id", new Argument.Whole(id)))));
            assertEquals(List.of(List.of(new SqlValue.Text("row " + id))), out.rows());
        }
        assertEquals(1, db.pg.connectionsOf(TestDatabase.ROLE) - before, "200 calls one after the other share one connection");

        executor.close(); // the last call's ROLLBACK may still be under way
        assertEquals(0, db.awaitCount("SELECT count(*) FROM pg_stat_activity WHERE usename = 'agent'", 0, Duration.ofSeconds(5)),
                "close leaves no backend, idle in transaction or otherwise");
    }

    @Test
    void aReadOnlyCallThatClaimsAnUnbegunRollbackSendsItAheadOfItsOwnBeginAndStatementInOneGroup() throws Exception {
        HeldReleases gate = new HeldReleases();
        releasingThrough(gate);
        SqlDatabase shop = database(Duration.ofSeconds(5), 10, 4096, noteById("one-group"));
        rows(run(permit(shop, "note", Map.of("id", new Argument.Whole(1)))));
        int mark = db.logMark();

        SqlRowsOutcome next;
        try (SyncCounter groups = new SyncCounter()) {
            next = rows(run(permit(shop, "note", Map.of("id", new Argument.Whole(3)))));
            assertEquals(1, groups.syncs(), "the ROLLBACK, the BEGIN and the statement share one round trip");
        }

        assertEquals(List.of(List.of(new SqlValue.Text("row 3"))), next.rows());
        List<String> received = db.receivedSince(mark);
        assertEquals(3, received.size(), received::toString);
        // Three Executes before one Sync: the server answers the ROLLBACK, the BEGIN and the rows together.
        assertTrue(received.get(0).matches("execute [^:]*: ROLLBACK") && received.get(1).matches("execute [^:]*: BEGIN READ ONLY")
                && received.get(2).matches("execute [^:]*: /\\* one-group \\*/ SELECT note FROM t WHERE id = \\$1"), received::toString);
        assertEquals(1, db.count(IDLE_IN_TRANSACTION), "the second call's own transaction is left for its release");
        gate.letGo();
        assertEquals(0, db.awaitCount(IDLE_IN_TRANSACTION, 0, Duration.ofSeconds(5)));
    }

    @Test
    void aReadOnlyCallReturnsBeforeItsRollbackAndTheNextCallRunsOnTheSameConnectionOnlyAfterIt() throws Exception {
        HeldReleases gate = new HeldReleases();
        releasingThrough(gate);
        SqlDatabase shop = database(Duration.ofSeconds(5), 10, 4096, noteById("after-rollback"));
        long before = db.pg.connectionsOf(TestDatabase.ROLE);
        int mark = db.logMark();

        rows(run(permit(shop, "note", Map.of("id", new Argument.Whole(1)))));
        assertEquals(1, db.count(IDLE_IN_TRANSACTION), "the rows came back while the transaction was still open");
        SqlRowsOutcome next = rows(run(permit(shop, "note", Map.of("id", new Argument.Whole(2)))));

        assertEquals(List.of(List.of(new SqlValue.Text("row 2"))), next.rows());
        assertEquals(1, db.pg.connectionsOf(TestDatabase.ROLE) - before, "both calls ran on one connection");
        List<String> logged = db.statementsSince(mark).stream()
                .filter(l -> l.contains("/* after-rollback */") || l.strip().equals("ROLLBACK")).toList();
        assertEquals(3, logged.size(), logged::toString);
        assertTrue(logged.get(0).contains("/* after-rollback */") && logged.get(1).strip().equals("ROLLBACK")
                && logged.get(2).contains("/* after-rollback */"), () -> "the first call's ROLLBACK ran before the second call: " + logged);
    }

    @Test
    void aConnectionWhoseRollbackFailsIsNotReusedAndTheNextCallRunsOnceOnAFreshOne() throws Exception {
        HeldReleases gate = new HeldReleases();
        releasingThrough(gate);
        SqlDatabase shop = database(Duration.ofSeconds(5), 10, 4096, noteById("rollback-fails"));
        long before = db.pg.connectionsOf(TestDatabase.ROLE);
        int mark = db.logMark();
        rows(run(permit(shop, "note", Map.of("id", new Argument.Whole(1)))));
        assertEquals(1, db.count(IDLE_IN_TRANSACTION));
        db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'agent'");
        assertEquals(0, db.awaitCount("SELECT count(*) FROM pg_stat_activity WHERE usename = 'agent'", 0, Duration.ofSeconds(3)));
        gate.passThrough(); // its ROLLBACK now fails: the server ended the session

        SqlRowsOutcome out = rows(run(permit(shop, "note", Map.of("id", new Argument.Whole(3)))));

        assertEquals(List.of(List.of(new SqlValue.Text("row 3"))), out.rows());
        assertEquals(2, db.pg.connectionsOf(TestDatabase.ROLE) - before, "the second call opened a fresh connection");
        assertEquals(2, db.statementsSince(mark).stream().filter(l -> l.contains("/* rollback-fails */")).count(),
                () -> "each call ran its statement once: " + db.statementsSince(mark));
    }

    @Test
    void aWriteIsCommittedBeforeItsOutcomeReturns() throws Exception {
        HeldReleases gate = new HeldReleases();
        releasingThrough(gate);
        SqlDatabase shop = database(Duration.ofSeconds(5), 10, 4096,
                new SqlStatementSpec("log", "INSERT INTO audit(what) VALUES (:w)", Map.of("w", text(50)), false, false));

        assertEquals(1, rows(run(permit(shop, "log", Map.of("w", new Argument.Text("committed-first"))))).rowCount());

        assertEquals(1, db.count("SELECT count(*) FROM audit WHERE what = 'committed-first'"),
                "another session sees the row as soon as the call returned");
        assertEquals(1, gate.held(), "while the connection's own cleanup (RESET ALL) had not even begun");
        gate.passThrough();
        for (int i = 0; i < 20; i++) {
            String what = "committed-" + i;
            rows(run(permit(shop, "log", Map.of("w", new Argument.Text(what)))));
            assertEquals(1, db.count("SELECT count(*) FROM audit WHERE what = '" + what + "'"), what);
        }
    }

    @Test
    void aWriteWhoseCommitIsUnansweredSaysItsEffectIsUnknownAndOneStoppedBeforeItsCommitDoesNot() throws Exception {
        SqlDatabase shop = database(Duration.ofMillis(700), 10, 4096,
                new SqlStatementSpec("slow", "INSERT INTO slow_commit(what) VALUES (:w)", Map.of("w", text(50)), false, false),
                new SqlStatementSpec("napping-write", "INSERT INTO audit(what) SELECT 'nap' FROM pg_sleep(30)", Map.of(), false, false));

        ExecutionFailure atCommit = failure(run(permit(shop, "slow", Map.of("w", new Argument.Text("x")))), FailureCode.TIMEOUT);
        assertTrue(atCommit.message().contains("the COMMIT had been sent, so whether the write took effect is unknown"),
                atCommit.message());
        // The COMMIT is cancelled on the server (see the next tests); wait for its backend to end, for the tests after.
        assertEquals(0, db.awaitCount("SELECT count(*) FROM pg_stat_activity WHERE usename = 'agent'", 0,
                Duration.ofSeconds(5)));

        ExecutionFailure beforeCommit = failure(run(permit(shop, "napping-write", Map.of())), FailureCode.TIMEOUT);
        assertFalse(beforeCommit.message().contains("COMMIT"), beforeCommit.message());
        assertEquals(0, db.count("SELECT count(*) FROM audit WHERE what = 'nap'"));
    }

    /** The server's clock now, in microseconds since the epoch: what {@link #committingSince} compares backends' starts with. */
    private static long serverMicros() throws SQLException {
        return db.count("SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint");
    }

    /** Counts the role's backends opened since {@code micros} that are running a COMMIT. */
    private static String committingSince(long micros) {
        return "SELECT count(*) FROM pg_stat_activity WHERE usename = '" + TestDatabase.ROLE + "'"
                + " AND state = 'active' AND query = 'COMMIT' AND backend_start >= to_timestamp(" + micros + " / 1000000.0)";
    }

    /**
     * A COMMIT still running when the call's deadline passes is cancelled on the server as a statement
     * is (a CancelRequest): the deferred trigger's minute of sleep stops, the transaction rolls back, the
     * connection is dropped rather than pooled, and the outcome still says the write's effect is unknown.
     */
    @Test
    void aCommitStillRunningAtTheDeadlineIsCancelledOnTheServerAndItsConnectionDropped() throws Exception {
        SqlDatabase shop = database(Duration.ofMillis(700), 10, 4096,
                new SqlStatementSpec("stuck", "INSERT INTO stuck_commit(what) VALUES (:w)", Map.of("w", text(50)), false, false));
        int mark = db.pg.logText().length();
        long started = serverMicros();
        String committing = committingSince(started);

        ExecutionFailure f = failure(run(permit(shop, "stuck", Map.of("w", new Argument.Text("timed-out")))), FailureCode.TIMEOUT);

        assertTrue(f.message().contains("the COMMIT had been sent, so whether the write took effect is unknown"), f.message());
        assertEquals(0, db.awaitCount(committing, 0, Duration.ofSeconds(3)), "the COMMIT is still running on the server");
        assertEquals(0, db.awaitCount("SELECT count(*) FROM pg_stat_activity WHERE usename = 'agent'"
                + " AND backend_start >= to_timestamp(" + started + " / 1000000.0)", 0, Duration.ofSeconds(3)),
                "the connection must be dropped, not pooled");
        assertEquals(0, db.count("SELECT count(*) FROM stuck_commit WHERE what = 'timed-out'"), "the cancelled COMMIT rolled back");
        assertTrue(db.pg.logText().substring(mark).contains("canceling statement due to user request"),
                "the server logged the cancel of the COMMIT");
    }

    /** The same for a call cancelled by the client while its COMMIT runs. */
    @Test
    void aCommitRunningWhenTheCallIsCancelledIsCancelledOnTheServerAndItsConnectionDropped() throws Exception {
        SqlDatabase shop = database(Duration.ofSeconds(30), 10, 4096,
                new SqlStatementSpec("stuck", "INSERT INTO stuck_commit(what) VALUES (:w)", Map.of("w", text(50)), false, false));
        Cancellation cancellation = new Cancellation();
        AuthorizedSqlStatement permit = permit(shop, "stuck", Map.of("w", new Argument.Text("cancelled")));
        long started = serverMicros();
        String committing = committingSince(started);
        CompletableFuture<Outcome> running = CompletableFuture.supplyAsync(() -> executor.execute(permit, cancellation));
        assertEquals(1, db.awaitCount(committing, 1, Duration.ofSeconds(10)), "the COMMIT never started");

        cancellation.cancel();

        ExecutionFailure f = failure(running.get(10, TimeUnit.SECONDS), FailureCode.CANCELLED);
        assertTrue(f.message().contains("the COMMIT had been sent, so whether the write took effect is unknown"), f.message());
        assertEquals(0, db.awaitCount(committing, 0, Duration.ofSeconds(3)), "the COMMIT is still running on the server");
        assertEquals(0, db.awaitCount("SELECT count(*) FROM pg_stat_activity WHERE usename = 'agent'"
                + " AND backend_start >= to_timestamp(" + started + " / 1000000.0)", 0, Duration.ofSeconds(3)),
                "the connection must be dropped, not pooled");
        assertEquals(0, db.count("SELECT count(*) FROM stuck_commit WHERE what = 'cancelled'"), "the cancelled COMMIT rolled back");
    }

    @Test
    void aReadOnlyStatementCannotWriteThroughAProcedureThatTurnsTheReadOnlyDefaultOffAndCommits() throws Exception {
        SqlDatabase shop = database(Duration.ofSeconds(5), 10, 4096,
                new SqlStatementSpec("escape", "CALL escape_read_only(:w)", Map.of("w", text(50))));

        ExecutionFailure f = failure(run(permit(shop, "escape", Map.of("w", new Argument.Text("escaped")))),
                FailureCode.QUERY_FAILED);

        assertTrue(f.message().startsWith("SQLSTATE 2D000: "), "no COMMIT inside a BEGIN READ ONLY block: " + f.message());
        assertEquals(0, db.count("SELECT count(*) FROM audit WHERE what = 'escaped'"));
        // Why each call is its own BEGIN READ ONLY block rather than an autocommit session whose
        // default_transaction_read_only is on: there, the same procedure writes.
        try (Connection c = db.connectAsRole(PASSWORD, "-c default_transaction_read_only=on");
                PreparedStatement call = c.prepareStatement("CALL escape_read_only(?)")) {
            call.setString(1, "escaped-autocommit");
            call.execute();
        }
        assertEquals(1, db.count("SELECT count(*) FROM audit WHERE what = 'escaped-autocommit'"));
    }
}
