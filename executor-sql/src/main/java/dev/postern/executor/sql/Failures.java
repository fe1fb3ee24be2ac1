package dev.postern.executor.sql;

import dev.postern.executor.sql.internal.DialRefusedException;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.port.SecretMask;
import java.sql.SQLException;
import javax.net.ssl.SSLException;
import org.postgresql.util.PSQLException;

/**
 * Turns a driver exception into a failure with a stable code and the SQLSTATE: the call's own
 * timeout or cancellation first (whatever the server said about it), then the class of the
 * SQLSTATE. The agent's message says what failed in words (for a refused statement, the server's
 * primary message); the detail keeps the driver's whole text for the journal. Both go through the
 * secret mask. Stateless.
 */
final class Failures {
    private Failures() {
    }

    /** Why the call stopped, as the executor knows it before reading the exception. */
    enum Stop {
        NONE, TIMED_OUT, CANCELLED
    }

    static ExecutionFailure of(SQLException e, Stop stop, SqlDatabase database, SecretMask mask) {
        return of(e, stop, false, database, mask);
    }

    /**
     * As above, for a call that may have sent its {@code COMMIT} ({@code commitSent}): a failure the server
     * did not answer (a timeout, a cancellation, a broken connection, the session ended) then leaves the
     * write's effect unknown, and the message says so, since a code such as {@code CONNECT_FAILED} alone
     * reads as "nothing ran" and invites a retry that could write twice. A {@code COMMIT} the server
     * refused (a deferred constraint, a serialization failure) rolled back, and keeps its plain message.
     */
    static ExecutionFailure of(SQLException e, Stop stop, boolean commitSent, SqlDatabase database, SecretMask mask) {
        ExecutionFailure f = classify(e, stop, database, mask).withDetail(mask.mask(detail(e)));
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        boolean unanswered = stop != Stop.NONE || state.isEmpty() || state.startsWith("08")
                || state.equals("57P01") || state.equals("57P02");
        if (commitSent && unanswered) {
            return new ExecutionFailure(f.code(), f.message() + "; the COMMIT had been sent, so whether the write took effect is unknown",
                    f.partial(), f.detail());
        }
        return f;
    }

    /**
     * The operator's account: the SQLSTATE, the driver's whole message (the server's message with its
     * DETAIL, HINT and WHERE, or the driver's own words with host and port) and the causes under it.
     */
    private static String detail(SQLException e) {
        String state = e.getSQLState() == null ? "no SQLSTATE" : "SQLSTATE " + e.getSQLState();
        return state + ": " + e.getMessage() + (e.getCause() == null ? "" : "; caused by " + ExecutionFailure.chain(e.getCause()));
    }

    /**
     * The server's primary message alone ({@code ERROR:} text, no DETAIL, HINT, WHERE or position): a
     * DETAIL can quote other rows' values (a unique or exclusion violation names the existing key), and
     * the driver's own messages name the host, port and user. Empty when the server sent none.
     */
    private static String serverWords(SQLException e) {
        if (e instanceof PSQLException p && p.getServerErrorMessage() != null && p.getServerErrorMessage().getMessage() != null) {
            return p.getServerErrorMessage().getMessage();
        }
        return "";
    }

    /**
     * The agent's message: what failed in words and the SQLSTATE; for a statement the server refused, the
     * server's primary message too. Never the driver's text (it names host, port and user) or a DETAIL.
     */
    private static ExecutionFailure classify(SQLException e, Stop stop, SqlDatabase database, SecretMask mask) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        String db = "database " + database.name();
        String server = serverWords(e);
        String stated = state.isEmpty() ? "" : "SQLSTATE " + state + ": ";
        if (stop == Stop.CANCELLED) {
            return new ExecutionFailure(FailureCode.CANCELLED, "the call was cancelled; the query was cancelled on the server");
        }
        if (stop == Stop.TIMED_OUT) {
            return new ExecutionFailure(FailureCode.TIMEOUT, "the call exceeded the database's timeout of "
                    + database.timeout().toMillis() + " ms" + (state.isEmpty() ? "" : " (SQLSTATE " + state + ")"));
        }
        switch (state) {
            case "57014": // query_canceled: statement_timeout on the server
            case "55P03": // lock_not_available: lock_timeout
            case "25P03": // idle_in_transaction_session_timeout
                return new ExecutionFailure(FailureCode.TIMEOUT, mask.mask(stated + (server.isEmpty() ? db + " timed out" : server)));
            case "28P01": // invalid_password
            case "28000": // invalid_authorization_specification
                return new ExecutionFailure(FailureCode.AUTH_FAILED, stated + db + " refused the configured login");
            default:
                break;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof DialRefusedException) {
                return new ExecutionFailure(FailureCode.ADDRESS_REFUSED, db + ": an address its host resolves to may not be dialed");
            }
        }
        if (hasCause(e, SSLException.class)) {
            return new ExecutionFailure(FailureCode.TLS_FAILED, stated + "TLS with " + db + " failed");
        }
        if (state.startsWith("08") || state.equals("3D000") || state.startsWith("53") || state.equals("57P03")) {
            if (database.tls().mode() == SqlDatabase.TlsMode.VERIFY_FULL && String.valueOf(e.getMessage()).contains("SSL")) {
                return new ExecutionFailure(FailureCode.TLS_FAILED, stated + "TLS with " + db + " failed");
            }
            return new ExecutionFailure(FailureCode.CONNECT_FAILED, stated + "cannot connect to " + db + ": " + connectWords(state));
        }
        if (state.isEmpty()) {
            return new ExecutionFailure(FailureCode.EXECUTOR_FAILED, "the call to " + db + " failed in the driver");
        }
        return new ExecutionFailure(FailureCode.QUERY_FAILED,
                mask.mask(stated + (server.isEmpty() ? "the driver refused the statement's values or its result" : server)));
    }

    private static String connectWords(String state) {
        if (state.equals("3D000")) {
            return "the server has no such database";
        }
        if (state.startsWith("53")) {
            return "the server is out of resources (connections, memory or disk)";
        }
        if (state.equals("57P03")) {
            return "the server is starting up or shutting down";
        }
        return "the connection was refused, failed or broke";
    }

    private static boolean hasCause(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }
}
