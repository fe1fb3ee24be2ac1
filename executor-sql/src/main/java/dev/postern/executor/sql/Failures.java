package dev.postern.executor.sql;

import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.port.SecretMask;
import java.sql.SQLException;
import javax.net.ssl.SSLException;

/**
 * Turns a driver exception into a failure with a stable code and the SQLSTATE: the call's own
 * timeout or cancellation first (whatever the server said about it), then the class of the
 * SQLSTATE. Every message goes through the secret mask. Stateless.
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
        ExecutionFailure f = classify(e, stop, database, mask);
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        boolean unanswered = stop != Stop.NONE || state.isEmpty() || state.startsWith("08")
                || state.equals("57P01") || state.equals("57P02");
        if (commitSent && unanswered) {
            return new ExecutionFailure(f.code(), f.message() + "; the COMMIT had been sent, so whether the write took effect is unknown");
        }
        return f;
    }

    private static ExecutionFailure classify(SQLException e, Stop stop, SqlDatabase database, SecretMask mask) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        String text = mask.mask(state.isEmpty() ? String.valueOf(e.getMessage()) : "SQLSTATE " + state + ": " + e.getMessage());
        if (stop == Stop.CANCELLED) {
            return new ExecutionFailure(FailureCode.CANCELLED, "the call was cancelled; the query was cancelled on the server");
        }
        if (stop == Stop.TIMED_OUT) {
            return new ExecutionFailure(FailureCode.TIMEOUT, "the call exceeded the database's timeout of "
                    + database.timeout().toMillis() + " ms (" + text + ")");
        }
        switch (state) {
            case "57014": // query_canceled: statement_timeout on the server
            case "55P03": // lock_not_available: lock_timeout
            case "25P03": // idle_in_transaction_session_timeout
                return new ExecutionFailure(FailureCode.TIMEOUT, text);
            case "28P01": // invalid_password
            case "28000": // invalid_authorization_specification
                return new ExecutionFailure(FailureCode.AUTH_FAILED, text);
            default:
                break;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof DialRefusedException refused) {
                return new ExecutionFailure(FailureCode.ADDRESS_REFUSED, mask.mask(refused.getMessage()));
            }
        }
        if (hasCause(e, SSLException.class)) {
            return new ExecutionFailure(FailureCode.TLS_FAILED, text);
        }
        if (state.startsWith("08") || state.equals("3D000") || state.startsWith("53") || state.equals("57P03")) {
            if (database.tls().mode() == SqlDatabase.TlsMode.VERIFY_FULL && String.valueOf(e.getMessage()).contains("SSL")) {
                return new ExecutionFailure(FailureCode.TLS_FAILED, text);
            }
            return new ExecutionFailure(FailureCode.CONNECT_FAILED, text);
        }
        if (state.isEmpty()) {
            return new ExecutionFailure(FailureCode.EXECUTOR_FAILED, text);
        }
        return new ExecutionFailure(FailureCode.QUERY_FAILED, text);
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
