package dev.postern.executor.sql;

import dev.postern.fixtures.contract.ActionExecutorContract;
import dev.postern.fixtures.contract.ExpectedFailure;
import dev.postern.policy.AuthorizedSqlStatement;
import dev.postern.policy.action.Argument;
import dev.postern.policy.action.SqlQueryAction;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.port.ActionExecutor;
import dev.postern.policy.port.CredentialStore;
import java.io.IOException;
import java.net.ServerSocket;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * The executor contract against a real PostgreSQL on loopback. An effect is one statement the server
 * logged that carries the kit's tag comment; the concurrency clause meets at a server-side
 * rendezvous (a function that waits until every call is running); the secret-echoing target is a
 * table holding the kit's secret.
 */
class SqlActionExecutorContractTest extends ActionExecutorContract<AuthorizedSqlStatement> {
    private static final String TAG = "/* kit-effect */";
    private static final String C11_TAG = "/* kit-c11 */";
    private static final Duration TIMEOUT = Duration.ofMillis(1500);
    private static final long CAP = 4096;
    private static TestDatabase db;
    private int mark;

    @BeforeAll
    static void startDatabase() throws SQLException {
        db = TestDatabase.start();
    }

    @AfterAll
    static void stopDatabase() throws SQLException {
        if (db != null) {
            db.close();
        }
    }

    @BeforeEach
    void markTheLog() {
        mark = db.logMark();
    }

    private static ParamSpec text() {
        return new ParamSpec.StringParam(Optional.empty(), Optional.empty(), 200);
    }

    private static final List<SqlStatementSpec> STATEMENTS = List.of(
            new SqlStatementSpec("marker", TAG + " SELECT CAST(:m AS text) AS marker", Map.of("m", text())),
            new SqlStatementSpec("sleep", TAG + " SELECT pg_sleep(60)", Map.of()),
            new SqlStatementSpec("large", TAG + " SELECT repeat('x', 100) AS filler FROM generate_series(1, 100000)", Map.of()),
            new SqlStatementSpec("echo", TAG + " SELECT v, v AS again FROM echo", Map.of()),
            new SqlStatementSpec("divide", TAG + " SELECT 1 / 0", Map.of()),
            new SqlStatementSpec("write", TAG + " INSERT INTO audit(what) VALUES ('contract')", Map.of()),
            new SqlStatementSpec("meet", C11_TAG + " SELECT CAST(:m AS text) AS marker, rendezvous('" + C11_TAG.substring(3, 10)
                    + "', " + CONCURRENT_CALLS + ") AS met", Map.of("m", text())));

    private static SqlDatabase database(String name, String credential) {
        return db.database(name, TIMEOUT, 1000, CAP, credential, STATEMENTS);
    }

    private static AuthorizedSqlStatement permit(SqlDatabase database, String statement, Map<String, Argument> args) {
        return decide(Policy.of(database),
                new SqlQueryAction(database.name(), statement, args), AuthorizedSqlStatement.class);
    }

    private static AuthorizedSqlStatement permit(String statement, Map<String, Argument> args) {
        return permit(database("kit", CREDENTIAL), statement, args);
    }

    @Override
    protected ActionExecutor<AuthorizedSqlStatement> createExecutor(CredentialStore credentials) {
        try {
            String secret = secretValue();
            db.setPassword(secret);
            db.execute("DELETE FROM echo");
            db.execute("INSERT INTO echo VALUES ('" + secret + "')");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return new SqlActionExecutor(credentials);
    }

    @Override
    protected AuthorizedSqlStatement normalPermit(String marker) {
        return permit("marker", Map.of("m", new Argument.Text(marker)));
    }

    @Override
    protected AuthorizedSqlStatement stallingPermit() {
        return permit("sleep", Map.of());
    }

    @Override
    protected Duration deadlineOf(AuthorizedSqlStatement permit) {
        return permit.database().timeout();
    }

    @Override
    protected AuthorizedSqlStatement largeOutputPermit() {
        return permit("large", Map.of());
    }

    @Override
    protected long outputCapOf(AuthorizedSqlStatement permit) {
        return permit.database().maxResponseBytes();
    }

    @Override
    protected OversizeOutput oversizeOutput() {
        return OversizeOutput.CUT_AND_FLAGGED;
    }

    @Override
    protected AuthorizedSqlStatement secretEchoingPermit() {
        return permit("echo", Map.of());
    }

    @Override
    protected List<ExpectedFailure<AuthorizedSqlStatement>> failingPermits() {
        SqlDatabase kit = database("kit", CREDENTIAL);
        SqlDatabase wrongRole = new SqlDatabase("wrong-role", kit.host(), kit.port(), TestDatabase.DB, "other",
                new CredentialRef(CREDENTIAL), kit.tls(), true, TIMEOUT, 10, CAP, STATEMENTS);
        SqlDatabase noCredential = database("no-credential", "not-in-the-store");
        SqlDatabase closedPort = new SqlDatabase("closed", kit.host(), closedPort(), TestDatabase.DB, TestDatabase.ROLE,
                new CredentialRef(CREDENTIAL), kit.tls(), true, TIMEOUT, 10, CAP, STATEMENTS);
        SqlDatabase privateRefused = new SqlDatabase("private", kit.host(), kit.port(), TestDatabase.DB, TestDatabase.ROLE,
                new CredentialRef(CREDENTIAL), kit.tls(), false, TIMEOUT, 10, CAP, STATEMENTS);
        SqlDatabase tlsRequired = new SqlDatabase("tls", kit.host(), kit.port(), TestDatabase.DB, TestDatabase.ROLE,
                new CredentialRef(CREDENTIAL), SqlDatabase.Tls.verifyFull(), true, TIMEOUT, 10, CAP, STATEMENTS);
        return List.of(
                new ExpectedFailure<>(permit("divide", Map.of()), FailureCode.QUERY_FAILED, "division by zero"),
                new ExpectedFailure<>(permit("write", Map.of()), FailureCode.QUERY_FAILED,
                        "an INSERT in a statement left read-only"),
                new ExpectedFailure<>(permit(wrongRole, "divide", Map.of()), FailureCode.AUTH_FAILED,
                        "a role whose password is not the credential"),
                new ExpectedFailure<>(permit(noCredential, "divide", Map.of()), FailureCode.CREDENTIAL_UNAVAILABLE,
                        "a password credential the store does not hold"),
                new ExpectedFailure<>(permit(closedPort, "divide", Map.of()), FailureCode.CONNECT_FAILED,
                        "a port nothing listens on"),
                new ExpectedFailure<>(permit(privateRefused, "divide", Map.of()), FailureCode.ADDRESS_REFUSED,
                        "a loopback database without allowPrivateAddresses"),
                new ExpectedFailure<>(permit(tlsRequired, "divide", Map.of()), FailureCode.TLS_FAILED,
                        "verify-full against a server without TLS"));
    }

    private static int closedPort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    protected AuthorizedSqlStatement concurrentPermit(String marker) {
        return permit("meet", Map.of("m", new Argument.Text(marker)));
    }

    @Override
    protected int effectsObserved() {
        return (int) db.statementsSince(mark).stream().filter(s -> s.contains(TAG) || s.contains(C11_TAG)).count();
    }
}
