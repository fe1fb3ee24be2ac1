package dev.postern.executor.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.executor.sql.SqlActionExecutor.StatementCheck;
import dev.postern.fixtures.InMemoryCredentials;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link SqlActionExecutor#checkStatements} against a real PostgreSQL: the server parses and describes
 * each statement and runs none (seen in its log, where the role's every parse, bind and execute is
 * logged, and in its tables); a login failure, a refused address and a server without TLS each say
 * which step failed; one connection per database at most.
 */
class StatementCheckTest {
    private static final String PASSWORD = "agent-password-c41d";
    private static TestDatabase db;

    @BeforeAll
    static void startDatabase() throws SQLException {
        db = TestDatabase.start();
        db.setPassword(PASSWORD);
        // Every message of the role's sessions in the log: parse, bind and execute each get a line.
        db.execute("ALTER ROLE " + TestDatabase.ROLE + " SET log_min_duration_statement = 0");
    }

    @AfterAll
    static void stopDatabase() throws SQLException {
        if (db != null) {
            db.close();
        }
    }

    private static InMemoryCredentials credentials(String password) {
        return new InMemoryCredentials().put("pw", password);
    }

    private static SqlDatabase database(SqlStatementSpec... statements) {
        return db.database("shop", Duration.ofSeconds(5), 10, 10_000, "pw", List.of(statements));
    }

    private static ParamSpec integer() {
        return new ParamSpec.IntegerParam(1, 1000);
    }

    private static ParamSpec text() {
        return new ParamSpec.StringParam(Optional.empty(), Optional.empty(), 64);
    }

    @Test
    void goodStatementsAreAllAcceptedOnOneConnection() {
        long before = db.pg.connectionsOf(TestDatabase.ROLE);

        StatementCheck result = SqlActionExecutor.checkStatements(database(
                new SqlStatementSpec("by-id", "SELECT id, note FROM t WHERE id = :id", Map.of("id", integer())),
                new SqlStatementSpec("by-note", "SELECT id FROM t WHERE note = :note OR :note = ''", Map.of("note", text())),
                new SqlStatementSpec("cheap", "SELECT id FROM big WHERE id < :n AND :flag", Map.of("n",
                        new ParamSpec.NumberParam(Optional.empty(), Optional.empty()), "flag", new ParamSpec.BooleanParam()))),
                credentials(PASSWORD));

        assertEquals(new StatementCheck.Connected(List.of()), result);
        assertEquals(before + 1, db.pg.connectionsOf(TestDatabase.ROLE), "one connection for all three statements");
    }

    @Test
    void aMisspelledTableIsRejectedWithItsSqlstateAndTheOthersStillChecked() {
        StatementCheck result = SqlActionExecutor.checkStatements(database(
                new SqlStatementSpec("typo", "SELECT id FROM tt WHERE id = :id", Map.of("id", integer())),
                new SqlStatementSpec("no-column", "SELECT nope FROM t", Map.of()),
                new SqlStatementSpec("fine", "SELECT count(*) FROM t", Map.of())),
                credentials(PASSWORD));

        StatementCheck.Connected connected = assertInstanceOf(StatementCheck.Connected.class, result);
        assertEquals(List.of(
                new StatementCheck.Rejected("typo", "42P01", "relation \"tt\" does not exist (at character 16)"),
                new StatementCheck.Rejected("no-column", "42703", "column \"nope\" does not exist (at character 8)")),
                connected.rejected());
    }

    @Test
    void anInsertIsParsedAndDescribedButNeverBoundOrExecuted() throws SQLException {
        long rows = db.count("SELECT count(*) FROM echo");
        int mark = db.pg.logText().length();

        StatementCheck result = SqlActionExecutor.checkStatements(database(
                new SqlStatementSpec("write", "INSERT INTO echo (v) VALUES (:v)", Map.of("v", text()), false, false)),
                credentials(PASSWORD));

        assertEquals(new StatementCheck.Connected(List.of()), result);
        assertEquals(rows, db.count("SELECT count(*) FROM echo"), "the INSERT changed nothing");
        String log = db.pg.logText().substring(mark);
        String session = "(?m)^.*" + TestDatabase.ROLE + "@" + TestDatabase.DB + " LOG:  ";
        assertTrue(Pattern.compile(session + "duration: \\S+ ms  parse <unnamed>: INSERT INTO echo \\(v\\) VALUES \\(\\$1\\)$")
                .matcher(log).find(), "the server parsed the INSERT:\n" + log);
        assertFalse(Pattern.compile(session + "(statement:|execute|duration: \\S+ ms  (bind|execute|statement))").matcher(log).find(),
                "nothing but the parse reached the server's executor:\n" + log);
    }

    @Test
    void aWrongPasswordIsALoginFailureWithoutThePasswordInTheMessage() {
        StatementCheck result = SqlActionExecutor.checkStatements(database(
                new SqlStatementSpec("fine", "SELECT 1", Map.of())), credentials("not-the-password-9e2b"));

        StatementCheck.NotConnected failed = assertInstanceOf(StatementCheck.NotConnected.class, result);
        assertEquals(StatementCheck.Step.LOGIN, failed.step());
        assertEquals("28P01", failed.sqlState());
        assertTrue(failed.message().contains("password authentication failed for user \"" + TestDatabase.ROLE + "\""), failed.message());
        assertFalse(failed.message().contains("not-the-password-9e2b"), failed.message());
    }

    @Test
    void anUnknownDatabaseIsALoginFailure() {
        SqlDatabase elsewhere = new SqlDatabase("gone", db.pg.host(), db.pg.port(), "no_such_db", TestDatabase.ROLE,
                new CredentialRef("pw"), SqlDatabase.Tls.disabled(), true, Duration.ofSeconds(5), 10, 10_000, List.of());

        StatementCheck.NotConnected failed = assertInstanceOf(StatementCheck.NotConnected.class,
                SqlActionExecutor.checkStatements(elsewhere, credentials(PASSWORD)));

        assertEquals(StatementCheck.Step.LOGIN, failed.step());
        assertEquals("3D000", failed.sqlState());
    }

    @Test
    void aLoopbackDatabaseWithoutTheOptInIsNotDialed() {
        long before = db.pg.connectionsOf(TestDatabase.ROLE);
        SqlDatabase closed = new SqlDatabase("shop", db.pg.host(), db.pg.port(), TestDatabase.DB, TestDatabase.ROLE,
                new CredentialRef("pw"), SqlDatabase.Tls.disabled(), false, Duration.ofSeconds(5), 10, 10_000, List.of());

        StatementCheck result = SqlActionExecutor.checkStatements(closed, credentials(PASSWORD));

        StatementCheck.NotDialed refused = assertInstanceOf(StatementCheck.NotDialed.class, result);
        assertTrue(refused.reason().contains("127.0.0.0/8"), refused.reason());
        assertEquals(before, db.pg.connectionsOf(TestDatabase.ROLE), "nothing was dialed");
    }

    @Test
    void verifyFullAgainstAServerWithoutTlsIsATlsFailure() {
        SqlDatabase tls = new SqlDatabase("shop", db.pg.host(), db.pg.port(), TestDatabase.DB, TestDatabase.ROLE,
                new CredentialRef("pw"), SqlDatabase.Tls.verifyFull(), true, Duration.ofSeconds(5), 10, 10_000, List.of());

        StatementCheck.NotConnected failed = assertInstanceOf(StatementCheck.NotConnected.class,
                SqlActionExecutor.checkStatements(tls, credentials(PASSWORD)));

        assertEquals(StatementCheck.Step.TLS, failed.step(), failed.toString());
    }

    @Test
    void anUnavailablePasswordDialsNothing() {
        long before = db.pg.connectionsOf(TestDatabase.ROLE);

        StatementCheck.NotConnected failed = assertInstanceOf(StatementCheck.NotConnected.class,
                SqlActionExecutor.checkStatements(database(), new InMemoryCredentials()));

        assertEquals(StatementCheck.Step.CREDENTIAL, failed.step());
        assertEquals(before, db.pg.connectionsOf(TestDatabase.ROLE));
    }
}
