package dev.postern.executor.sql;

import dev.postern.executor.sql.internal.DialRefusedException;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.executor.sql.Failures.Stop;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.port.SecretMask;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * How a driver exception becomes a failure code, the agent's words and the journal's detail, case by
 * case, without a server: the exceptions are the driver's own types, built as the driver builds them.
 */
class FailuresTest {
    private static final SecretMask MASK = new SecretMask(List.of("s3cret-pw".getBytes(StandardCharsets.UTF_8)));
    private static final SqlDatabase PLAIN = database(SqlDatabase.Tls.disabled());
    private static final SqlDatabase VERIFIED = database(SqlDatabase.Tls.verifyFull());
    private static final String UNKNOWN = "; the COMMIT had been sent, so whether the write took effect is unknown";

    private static SqlDatabase database(SqlDatabase.Tls tls) {
        return new SqlDatabase("shop", "127.0.0.1", 5432, "shop", "agent", new CredentialRef("pw"), tls, true,
                Duration.ofMillis(1500), 10, 1024, List.of());
    }

    /** What the server sends: severity, SQLSTATE, primary message and, when given, a DETAIL. */
    private static PSQLException server(String state, String message, String detail) {
        String fields = "SERROR\0C" + state + "\0M" + message + "\0" + (detail == null ? "" : "D" + detail + "\0");
        return new PSQLException(new ServerErrorMessage(fields));
    }

    private static SQLException driver(String state, String message) {
        return new SQLException(message, state);
    }

    private static ExecutionFailure of(SQLException e) {
        return Failures.of(e, Stop.NONE, PLAIN, MASK);
    }

    @Test
    void theCallsOwnCancellationWinsOverWhatTheServerSaid() {
        ExecutionFailure f = Failures.of(server("57014", "canceling statement due to user request", null), Stop.CANCELLED, PLAIN, MASK);
        assertEquals(FailureCode.CANCELLED, f.code());
        assertEquals("the call was cancelled; the query was cancelled on the server", f.message());
    }

    @Test
    void theCallsOwnTimeoutNamesTheDatabasesTimeoutAndTheSqlstateWhenThereIsOne() {
        ExecutionFailure stated = Failures.of(server("57014", "canceling statement due to statement timeout", null),
                Stop.TIMED_OUT, PLAIN, MASK);
        assertEquals(FailureCode.TIMEOUT, stated.code());
        assertEquals("the call exceeded the database's timeout of 1500 ms (SQLSTATE 57014)", stated.message());
        ExecutionFailure bare = Failures.of(new SQLException("gone"), Stop.TIMED_OUT, PLAIN, MASK);
        assertEquals("the call exceeded the database's timeout of 1500 ms", bare.message());
    }

    @ParameterizedTest
    @ValueSource(strings = {"57014", "55P03", "25P03"})
    void theServersOwnTimeoutsAreTimeoutsInTheServersWordsMasked(String state) {
        ExecutionFailure f = of(server(state, "timed out holding s3cret-pw", null));
        assertEquals(FailureCode.TIMEOUT, f.code());
        assertEquals("SQLSTATE " + state + ": timed out holding ****", f.message());
        assertEquals("database shop timed out", of(driver(state, "x")).message().replace("SQLSTATE " + state + ": ", ""));
    }

    @ParameterizedTest
    @ValueSource(strings = {"28P01", "28000"})
    void aRefusedLoginIsAuthFailedWithoutTheServersWords(String state) {
        ExecutionFailure f = of(server(state, "password authentication failed for user \"agent\"", null));
        assertEquals(FailureCode.AUTH_FAILED, f.code());
        assertEquals("SQLSTATE " + state + ": database shop refused the configured login", f.message());
    }

    @Test
    void aRefusedDialAnywhereInTheCausesIsAddressRefused() {
        SQLException e = new SQLException("connect failed", "08001",
                new IOException("wrapped", new DialRefusedException("10.0.0.5 is private")));
        ExecutionFailure f = of(e);
        assertEquals(FailureCode.ADDRESS_REFUSED, f.code());
        assertEquals("database shop: an address its host resolves to may not be dialed", f.message());
        assertFalse(f.message().contains("10.0.0.5"));
    }

    @Test
    void aTlsExceptionAnywhereInTheCausesIsTlsFailed() {
        SQLException e = new SQLException("connect failed", "08006", new IOException("io", new SSLHandshakeException("bad cert")));
        ExecutionFailure f = of(e);
        assertEquals(FailureCode.TLS_FAILED, f.code());
        assertEquals("SQLSTATE 08006: TLS with database shop failed", f.message());
    }

    @Test
    void aConnectionFailureMentioningSslIsTlsFailedOnlyWhenTlsIsVerified() {
        SQLException e = driver("08004", "The server does not support SSL.");
        assertEquals(FailureCode.TLS_FAILED, Failures.of(e, Stop.NONE, VERIFIED, MASK).code());
        assertEquals(FailureCode.CONNECT_FAILED, Failures.of(e, Stop.NONE, PLAIN, MASK).code());
        assertEquals(FailureCode.CONNECT_FAILED, Failures.of(driver("08004", "refused"), Stop.NONE, VERIFIED, MASK).code());
    }

    @Test
    void connectionClassStatesAreConnectFailedInWordsThatNameNoHost() {
        assertEquals("SQLSTATE 08001: cannot connect to database shop: the connection was refused, failed or broke",
                of(driver("08001", "Connection to 127.0.0.1:5432 refused")).message());
        assertEquals("SQLSTATE 3D000: cannot connect to database shop: the server has no such database",
                of(server("3D000", "database \"shop\" does not exist", null)).message());
        assertEquals("SQLSTATE 53300: cannot connect to database shop: the server is out of resources (connections, memory or disk)",
                of(server("53300", "too many connections", null)).message());
        assertEquals("SQLSTATE 57P03: cannot connect to database shop: the server is starting up or shutting down",
                of(server("57P03", "the database system is starting up", null)).message());
        for (String state : List.of("08001", "3D000", "53300", "57P03")) {
            assertEquals(FailureCode.CONNECT_FAILED, of(driver(state, "x")).code(), state);
        }
    }

    @Test
    void aFailureWithoutSqlstateIsTheDriversOwn() {
        ExecutionFailure f = of(new SQLException("something in the driver"));
        assertEquals(FailureCode.EXECUTOR_FAILED, f.code());
        assertEquals("the call to database shop failed in the driver", f.message());
        assertEquals("no SQLSTATE: something in the driver", f.detail());
    }

    @Test
    void aRefusedStatementShowsTheServersPrimaryMessageButNeverItsDetail() {
        ExecutionFailure f = of(server("23505", "duplicate key value violates unique constraint \"items_pkey\"",
                "Key (id)=(42) already exists."));
        assertEquals(FailureCode.QUERY_FAILED, f.code());
        assertEquals("SQLSTATE 23505: duplicate key value violates unique constraint \"items_pkey\"", f.message());
        assertFalse(f.message().contains("42"));
        assertTrue(f.detail().startsWith("SQLSTATE 23505: "), f.detail());
        assertTrue(f.detail().contains("Key (id)=(42) already exists."), "the journal keeps the DETAIL: " + f.detail());
    }

    @Test
    void aStatementTheDriverRefusedSaysSoAndIsMasked() {
        assertEquals("SQLSTATE 22P02: the driver refused the statement's values or its result", of(driver("22P02", "bad value")).message());
        assertEquals("SQLSTATE 42601: syntax error near ****", of(server("42601", "syntax error near s3cret-pw", null)).message());
    }

    @Test
    void theDetailKeepsTheCausesAndIsMasked() {
        SQLException e = new SQLException("login as agent with s3cret-pw failed", "08001", new IOException("reset by peer"));
        String detail = of(e).detail();
        assertEquals("SQLSTATE 08001: login as agent with **** failed; caused by IOException: reset by peer", detail);
    }

    @Test
    void aCommitSentButUnansweredLeavesTheWritesEffectUnknown() {
        for (SQLException unanswered : List.of(driver("08006", "broken"), driver("57P01", "terminating connection"),
                driver("57P02", "crash shutdown"), new SQLException("no state"))) {
            ExecutionFailure f = Failures.of(unanswered, Stop.NONE, true, PLAIN, MASK);
            assertTrue(f.message().endsWith(UNKNOWN), f.message());
            assertEquals(of(unanswered).code(), f.code());
            assertEquals(of(unanswered).detail(), f.detail(), "the detail survives the added sentence");
        }
        assertTrue(Failures.of(driver("23505", "dup"), Stop.TIMED_OUT, true, PLAIN, MASK).message().endsWith(UNKNOWN));
        assertTrue(Failures.of(driver("23505", "dup"), Stop.CANCELLED, true, PLAIN, MASK).message().endsWith(UNKNOWN));
    }

    @Test
    void aCommitTheServerRefusedRolledBackAndKeepsItsPlainMessage() {
        ExecutionFailure refused = Failures.of(server("40001", "could not serialize access", null), Stop.NONE, true, PLAIN, MASK);
        assertEquals(FailureCode.QUERY_FAILED, refused.code());
        assertEquals("SQLSTATE 40001: could not serialize access", refused.message());
        assertFalse(Failures.of(driver("08006", "broken"), Stop.NONE, false, PLAIN, MASK).message().contains("COMMIT"),
                "nothing is said of a COMMIT that was not sent");
    }
}
