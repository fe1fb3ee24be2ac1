package dev.postern.executor.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.executor.sql.SqlActionExecutor.StatementCheck;
import dev.postern.fixtures.InMemoryCredentials;
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
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each param type (integer, number, string, boolean) bound where the statement needs int4, int8,
 * numeric, text, boolean or timestamptz, and compared with a column of each of those types, against a
 * real PostgreSQL: what fits runs, what does not fails with the server's SQLSTATE, a value is never
 * SQL, statements that ran before run as before, and the deep check accepts what a call runs.
 */
class ParamTypesTest {
    private static final String PASSWORD = "agent-password-5b1e";
    private static final ParamSpec INTEGER = new ParamSpec.IntegerParam(Long.MIN_VALUE, Long.MAX_VALUE);
    private static final ParamSpec NUMBER = new ParamSpec.NumberParam(Optional.empty(), Optional.empty());
    private static final ParamSpec STRING = new ParamSpec.StringParam(Optional.empty(), Optional.empty(), 100);
    private static final ParamSpec BOOLEAN = new ParamSpec.BooleanParam();
    private static final String INJECTION = "1; DROP TABLE typed; --";
    private static TestDatabase db;
    private SqlActionExecutor executor;

    @BeforeAll
    static void startDatabase() throws SQLException {
        db = TestDatabase.start();
        db.setPassword(PASSWORD);
        db.execute("CREATE TABLE typed (i4 int4, i8 int8, num numeric, txt text, flag boolean, at timestamptz)");
        db.execute("INSERT INTO typed VALUES (7, 8000000000, 2.5, 'seven', true, '2026-12-01 10:00:00+00')");
        db.execute("GRANT SELECT ON typed TO " + TestDatabase.ROLE);
        // Functions that take exactly one type and say what they were given.
        for (String type : List.of("int4", "int8", "numeric", "text", "boolean")) {
            db.execute("CREATE FUNCTION need_" + type + "(v " + type + ") RETURNS text LANGUAGE sql AS $$ SELECT '"
                    + type + " ' || v::text $$");
        }
        db.execute("CREATE FUNCTION need_timestamptz(v timestamptz) RETURNS text LANGUAGE sql AS"
                + " $$ SELECT 'timestamptz ' || to_char(v AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') $$");
        // Every parse, bind and execute of the role's sessions gets a line in the log.
        db.execute("ALTER ROLE " + TestDatabase.ROLE + " SET log_min_duration_statement = 0");
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

    private static SqlDatabase database(int maxRows, List<SqlStatementSpec> statements) {
        return db.database("shop", Duration.ofSeconds(10), maxRows, 1 << 16, "pw", statements);
    }

    private static SqlStatementSpec statement(String name, String sql, ParamSpec spec) {
        return new SqlStatementSpec(name, sql, Map.of("v", spec));
    }

    private Outcome call(SqlDatabase database, String statement, Map<String, Argument> args) {
        Decision d = new PolicyEngine(Policy.of(database)).decide(new SqlQueryAction(database.name(), statement, args));
        AuthorizedSqlStatement permit = (AuthorizedSqlStatement) assertInstanceOf(Decision.Permit.class, d, d::toString).permit();
        return executor.execute(permit, new Cancellation());
    }

    /** One call of {@code SQL} with {@code :v} bound to {@code value}, and what came of it. */
    private record Case(String sql, ParamSpec spec, Argument value, String expected) {
        /** The first column of the first row as text, or {@code SQLSTATE xxxxx} for a refusal. */
        static String seen(Outcome outcome) {
            if (outcome instanceof ExecutionFailure f) {
                assertEquals(FailureCode.QUERY_FAILED, f.code(), f.message());
                return f.message().substring(0, "SQLSTATE xxxxx".length());
            }
            SqlRowsOutcome rows = (SqlRowsOutcome) outcome;
            return rows.rows().get(0).get(0).text();
        }
    }

    private static Case c(String sql, ParamSpec spec, Argument value, String expected) {
        return new Case(sql, spec, value, expected);
    }

    /** Runs each case on both ways of beginning (a row cap below the fetch size and at it) and lists every mismatch. */
    private void runAll(List<Case> cases) {
        List<String> wrong = new ArrayList<>();
        for (int maxRows : new int[] {10, 500}) {
            List<SqlStatementSpec> statements = new ArrayList<>();
            for (int i = 0; i < cases.size(); i++) {
                statements.add(statement("s" + i, cases.get(i).sql(), cases.get(i).spec()));
            }
            SqlDatabase shop = database(maxRows, statements);
            for (int round = 0; round < 2; round++) { // the second round runs on what the first learned
                for (int i = 0; i < cases.size(); i++) {
                    Case k = cases.get(i);
                    String seen = Case.seen(call(shop, "s" + i, Map.of("v", k.value())));
                    if (!seen.equals(k.expected())) {
                        wrong.add(k.sql() + " with " + k.value() + " (maxRows " + maxRows + ", round " + round + "): expected "
                                + k.expected() + ", got " + seen);
                    }
                }
            }
        }
        assertEquals(List.of(), wrong);
    }

    private static Argument whole(long v) {
        return new Argument.Whole(v);
    }

    private static Argument decimal(String v) {
        return new Argument.Decimal(new BigDecimal(v));
    }

    private static Argument text(String v) {
        return new Argument.Text(v);
    }

    private static Argument bool(boolean v) {
        return new Argument.Bool(v);
    }

    @Test
    void anIntegerParamFitsTheIntegerArgumentsOfBuiltInFunctions() {
        SqlDatabase shop = database(10, List.of(
                new SqlStatementSpec("repeat", "SELECT repeat('x', :n) AS r", Map.of("n", INTEGER)),
                new SqlStatementSpec("lpad", "SELECT lpad(:s, :n) AS r", Map.of("s", STRING, "n", INTEGER)),
                new SqlStatementSpec("left", "SELECT left(:s, :n) AS r", Map.of("s", STRING, "n", INTEGER)),
                new SqlStatementSpec("interval", "SELECT make_interval(days => :n)::text AS r", Map.of("n", INTEGER)),
                new SqlStatementSpec("since", "SELECT count(*) FROM typed WHERE at >= :s AND i4 < :n", Map.of("s", STRING, "n", INTEGER))));
        // More rounds than the driver's prepareThreshold (5): later calls run as a named server-side statement.
        for (int round = 0; round < 8; round++) {
            assertEquals("xxx", Case.seen(call(shop, "repeat", Map.of("n", whole(3)))));
            assertEquals("  abc", Case.seen(call(shop, "lpad", Map.of("s", text("abc"), "n", whole(5)))));
            assertEquals("ab", Case.seen(call(shop, "left", Map.of("s", text("abc"), "n", whole(2)))));
            assertEquals("4 days", Case.seen(call(shop, "interval", Map.of("n", whole(4)))));
            assertEquals(round % 2 == 0 ? "1" : "0", Case.seen(call(shop, "since",
                    Map.of("s", text(round % 2 == 0 ? "2026-12-01T09:59:59Z" : "2026-12-01T10:00:01Z"), "n", whole(8)))));
        }
    }

    @Test
    void eachParamTypeInPositionsThatNeedEachType() {
        runAll(List.of(
                c("SELECT need_int4(:v)", INTEGER, whole(42), "int4 42"),
                c("SELECT need_int8(:v)", INTEGER, whole(8_000_000_000L), "int8 8000000000"),
                c("SELECT need_numeric(:v)", INTEGER, whole(42), "numeric 42"),
                c("SELECT need_text(:v)", INTEGER, whole(42), "text 42"),
                c("SELECT need_boolean(:v)", INTEGER, whole(1), "SQLSTATE 42883"),
                c("SELECT need_timestamptz(:v)", INTEGER, whole(42), "SQLSTATE 42883"),
                c("SELECT need_int4(:v)", INTEGER, whole(3_000_000_000L), "SQLSTATE 22003"),

                c("SELECT need_int4(:v)", NUMBER, decimal("3"), "int4 3"),
                c("SELECT need_int4(:v)", NUMBER, decimal("3.0"), "int4 3"),
                c("SELECT need_int4(:v)", NUMBER, decimal("2.5"), "SQLSTATE 22P02"),
                c("SELECT need_int8(:v)", NUMBER, decimal("8000000000"), "int8 8000000000"),
                c("SELECT need_numeric(:v)", NUMBER, decimal("0.1000000000000000000001"), "numeric 0.1000000000000000000001"),
                c("SELECT need_text(:v)", NUMBER, decimal("2.50"), "text 2.50"),
                c("SELECT need_boolean(:v)", NUMBER, decimal("1"), "SQLSTATE 42883"),
                c("SELECT need_timestamptz(:v)", NUMBER, decimal("1.5"), "SQLSTATE 42883"),

                c("SELECT need_int4(:v)", STRING, text("42"), "int4 42"),
                c("SELECT need_int4(:v)", STRING, text(INJECTION), "SQLSTATE 22P02"),
                c("SELECT need_int8(:v)", STRING, text("8000000000"), "int8 8000000000"),
                c("SELECT need_numeric(:v)", STRING, text("2.5"), "numeric 2.5"),
                c("SELECT need_text(:v)", STRING, text(INJECTION), "text " + INJECTION),
                c("SELECT need_boolean(:v)", STRING, text("true"), "boolean true"),
                c("SELECT need_boolean(:v)", STRING, text(INJECTION), "SQLSTATE 22P02"),
                c("SELECT need_timestamptz(:v)", STRING, text("2026-12-01T10:00:00Z"), "timestamptz 2026-12-01 10:00:00"),
                c("SELECT need_timestamptz(:v)", STRING, text(INJECTION), "SQLSTATE 22007"),

                c("SELECT need_int4(:v)", BOOLEAN, bool(true), "SQLSTATE 42883"),
                c("SELECT need_int8(:v)", BOOLEAN, bool(true), "SQLSTATE 42883"),
                c("SELECT need_numeric(:v)", BOOLEAN, bool(true), "SQLSTATE 42883"),
                c("SELECT need_text(:v)", BOOLEAN, bool(true), "text true"),
                c("SELECT need_boolean(:v)", BOOLEAN, bool(false), "boolean false"),
                c("SELECT need_timestamptz(:v)", BOOLEAN, bool(true), "SQLSTATE 42883")));
        assertTableIntact();
    }

    @Test
    void eachParamTypeComparedWithAColumnOfEachType() {
        String count = "SELECT count(*) FROM typed WHERE ";
        runAll(List.of(
                c(count + "i4 = :v", INTEGER, whole(7), "1"),
                c(count + "i8 = :v", INTEGER, whole(8_000_000_000L), "1"),
                c(count + "num > :v", INTEGER, whole(2), "1"),
                c(count + "txt = :v", INTEGER, whole(7), "0"),
                c(count + "flag = :v", INTEGER, whole(1), "SQLSTATE 42883"),
                c(count + "at = :v", INTEGER, whole(7), "SQLSTATE 42883"),

                c(count + "i4 = :v", NUMBER, decimal("7"), "1"),
                c(count + "i8 = :v", NUMBER, decimal("8000000000"), "1"),
                c(count + "num = :v", NUMBER, decimal("2.50"), "1"),
                c(count + "txt = :v", NUMBER, decimal("2.5"), "0"),
                c(count + "flag = :v", NUMBER, decimal("1"), "SQLSTATE 42883"),
                c(count + "at = :v", NUMBER, decimal("1.5"), "SQLSTATE 42883"),

                c(count + "i4 = :v", STRING, text("7"), "1"),
                c(count + "i4 = :v", STRING, text(INJECTION), "SQLSTATE 22P02"),
                c(count + "i8 = :v", STRING, text("8000000000"), "1"),
                c(count + "num = :v", STRING, text("2.5"), "1"),
                c(count + "txt = :v", STRING, text("seven"), "1"),
                c(count + "txt = :v", STRING, text(INJECTION), "0"),
                c(count + "flag = :v", STRING, text("true"), "1"),
                c(count + "at = :v", STRING, text("2026-12-01T10:00:00Z"), "1"),
                c(count + "at < :v", STRING, text("2026-12-01T11:00:00+01:00"), "0"),

                c(count + "i4 = :v", BOOLEAN, bool(true), "SQLSTATE 42883"),
                c(count + "i8 = :v", BOOLEAN, bool(true), "SQLSTATE 42883"),
                c(count + "num = :v", BOOLEAN, bool(true), "SQLSTATE 42883"),
                c(count + "txt = :v", BOOLEAN, bool(true), "0"),
                c(count + "flag = :v", BOOLEAN, bool(true), "1"),
                c(count + "at = :v", BOOLEAN, bool(true), "SQLSTATE 42883")));
        assertTableIntact();
    }

    @Test
    void statementsThatRanWithTheDeclaredTypesKeepThem() {
        SqlDatabase shop = database(10, List.of(
                new SqlStatementSpec("alone", "SELECT :n AS n, :x AS x, :b AS b", Map.of("n", INTEGER, "x", NUMBER, "b", BOOLEAN)),
                new SqlStatementSpec("sum", "SELECT :a + :n AS s", Map.of("a", INTEGER, "n", INTEGER)),
                new SqlStatementSpec("json", "SELECT json_build_object('n', :n, 'x', :x)::text AS j", Map.of("n", INTEGER, "x", NUMBER)),
                new SqlStatementSpec("abs", "SELECT abs(:x) AS a", Map.of("x", NUMBER))));
        for (int round = 0; round < 2; round++) {
            SqlRowsOutcome alone = (SqlRowsOutcome) call(shop, "alone", Map.of("n", whole(42), "x", decimal("0.1"), "b", bool(true)));
            assertEquals(List.of(new SqlValue.Whole(42), new SqlValue.Decimal(new BigDecimal("0.1")), new SqlValue.Bool(true)),
                    alone.rows().get(0));
            assertEquals(List.of(new SqlValue.Whole(5)),
                    ((SqlRowsOutcome) call(shop, "sum", Map.of("a", whole(2), "n", whole(3)))).rows().get(0));
            assertEquals("{\"n\" : 42, \"x\" : 0.1}", Case.seen(call(shop, "json", Map.of("n", whole(42), "x", decimal("0.1")))));
            assertEquals(List.of(new SqlValue.Decimal(new BigDecimal("0.1"))),
                    ((SqlRowsOutcome) call(shop, "abs", Map.of("x", decimal("-0.1")))).rows().get(0), "exact, not a double");
        }
    }

    @Test
    void theServerIsAskedForAStatementsTypesOnceNotOnEveryCall() {
        SqlDatabase shop = database(10, List.of(
                new SqlStatementSpec("repeat", "SELECT repeat('y', :n) AS r", Map.of("n", INTEGER))));
        assertEquals("yy", Case.seen(call(shop, "repeat", Map.of("n", whole(2)))));
        int mark = db.pg.logText().length();
        for (int i = 0; i < 3; i++) {
            assertEquals("yyy", Case.seen(call(shop, "repeat", Map.of("n", whole(3)))));
        }
        List<String> parsed = parsesSince(mark);
        assertEquals(3, parsed.stream().filter(p -> p.equals("SELECT repeat('y', $1) AS r")).count(), parsed::toString);
        assertEquals(List.of(), parsed.stream().filter(p -> !p.equals("SELECT repeat('y', $1) AS r")
                && !p.equals("BEGIN READ ONLY") && !p.equals("ROLLBACK")).toList(), "nothing but the calls' own statements");
    }

    @Test
    void theDeepCheckAcceptsWhatACallRunsAndRejectsWhatNoTypingFits() {
        StatementCheck result = SqlActionExecutor.checkStatements(database(10, List.of(
                new SqlStatementSpec("repeat", "SELECT repeat('x', :n) AS r", Map.of("n", INTEGER)),
                new SqlStatementSpec("lpad", "SELECT lpad(:s, :n) AS r", Map.of("s", STRING, "n", INTEGER)),
                new SqlStatementSpec("interval", "SELECT make_interval(days => :n)", Map.of("n", INTEGER)),
                statement("at", "SELECT count(*) FROM typed WHERE at > :v", STRING),
                statement("flag", "SELECT count(*) FROM typed WHERE flag = :v AND :v", STRING),
                statement("alone", "SELECT :v AS v", INTEGER),
                statement("not-a-flag", "SELECT count(*) FROM typed WHERE flag = :v", INTEGER),
                statement("not-a-time", "SELECT need_timestamptz(:v)", BOOLEAN))),
                new InMemoryCredentials().put("pw", PASSWORD));

        StatementCheck.Connected connected = assertInstanceOf(StatementCheck.Connected.class, result);
        assertEquals(List.of("not-a-flag", "not-a-time"), connected.rejected().stream().map(StatementCheck.Rejected::statement).toList(),
                connected.toString());
        for (StatementCheck.Rejected r : connected.rejected()) {
            assertEquals("42883", r.sqlState(), r.toString());
        }
        assertTrue(connected.rejected().get(0).message().contains("boolean = bigint"), connected.rejected().get(0).message());
    }

    /** The statements the role's sessions parsed since {@code mark}, in order. */
    private static List<String> parsesSince(int mark) {
        Matcher m = Pattern.compile("(?m)^.*" + TestDatabase.ROLE + "@" + TestDatabase.DB
                + " LOG:  duration: \\S+ ms  parse [^:]*: (.*)$").matcher(db.pg.logText().substring(mark));
        List<String> out = new ArrayList<>();
        while (m.find()) {
            out.add(m.group(1).strip());
        }
        return out;
    }

    private static void assertTableIntact() {
        try {
            assertEquals(1, db.count("SELECT count(*) FROM typed"), "table typed is intact");
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }
}
