package dev.postern.executor.sql;

import dev.postern.executor.sql.SqlActionExecutor.StatementCheck;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.port.CredentialStore;
import dev.postern.policy.port.CredentialUnavailableException;
import dev.postern.policy.port.Secret;
import dev.postern.policy.port.SecretMask;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.postgresql.Driver;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * {@link SqlActionExecutor#checkStatements}: the executor's own address check and connection, then
 * one describe-only round trip per statement, two when the declared types do not fit.
 * {@code PreparedStatement.getParameterMetaData()} is the driver's describe-only request (Parse,
 * Describe, Sync, with no {@code BEGIN}); the statement's params are typed as a call would type them
 * ({@link ParamTypes#describe}, which a call uses too; no value is sent), so the server judges the
 * statement as it would at call time. The session is read-only from its start-up packet, so even a statement that
 * somehow ran could change nothing. Stateless.
 */
final class StatementProbe {
    private StatementProbe() {
    }

    static StatementCheck check(SqlDatabase db, CredentialStore credentials) {
        Optional<ExecutionFailure> refused = Dialing.checkAddresses(db);
        if (refused.isPresent()) {
            ExecutionFailure f = refused.get();
            // The operator's words: the detail names the host and the address the agent is not told.
            String words = f.detail().isEmpty() ? f.message() : f.detail();
            return f.code() == FailureCode.ADDRESS_REFUSED ? new StatementCheck.NotDialed(words)
                    : new StatementCheck.NotConnected(StatementCheck.Step.CONNECT, "", words);
        }
        Secret password;
        try {
            password = credentials.resolve(db.password());
        } catch (CredentialUnavailableException e) {
            return new StatementCheck.NotConnected(StatementCheck.Step.CREDENTIAL, "",
                    "the password credential " + db.password().name() + " is unavailable");
        }
        List<byte[]> secrets = new ArrayList<>();
        credentials.all().forEach(s -> secrets.add(s.reveal()));
        secrets.add(password.reveal());
        SecretMask mask = new SecretMask(secrets);

        Connection conn;
        try {
            conn = Dialing.open(new Driver(), db, password, true);
        } catch (SQLException e) {
            return new StatementCheck.NotConnected(step(e, db, mask), state(e), text(e, mask));
        } catch (RuntimeException e) {
            return new StatementCheck.NotConnected(StatementCheck.Step.CONNECT, "", mask.mask(e.toString()));
        }
        try {
            List<StatementCheck.Rejected> rejected = new ArrayList<>();
            for (SqlStatementSpec statement : db.statements()) {
                try {
                    ParamTypes.Found found = ParamTypes.describe(conn, statement.text().jdbcSql(), ParamTypes.kinds(statement), ps -> { });
                    if (found.refused().isPresent()) {
                        SQLException e = found.refused().get();
                        rejected.add(new StatementCheck.Rejected(statement.name(), state(e),
                                text(e, mask) + found.misfit().map(m -> "; " + m).orElse("")));
                    }
                } catch (SQLException e) {
                    if (sessionLost(e)) {
                        return new StatementCheck.NotConnected(StatementCheck.Step.CONNECT, state(e), text(e, mask));
                    }
                    rejected.add(new StatementCheck.Rejected(statement.name(), state(e), text(e, mask)));
                }
            }
            return new StatementCheck.Connected(rejected);
        } catch (RuntimeException e) {
            return new StatementCheck.NotConnected(StatementCheck.Step.CONNECT, "", mask.mask(e.toString()));
        } finally {
            ConnectionPool.closeQuietly(conn);
        }
    }

    /** Which step a failed connection attempt stopped at, by the same classification a call's failure gets. */
    private static StatementCheck.Step step(SQLException e, SqlDatabase db, SecretMask mask) {
        FailureCode code = Failures.of(e, Failures.Stop.NONE, db, mask).code();
        if (code == FailureCode.AUTH_FAILED || "3D000".equals(e.getSQLState())) {
            return StatementCheck.Step.LOGIN;
        }
        return code == FailureCode.TLS_FAILED ? StatementCheck.Step.TLS : StatementCheck.Step.CONNECT;
    }

    /** The socket broke or the server ended the session: the remaining statements cannot be judged. */
    private static boolean sessionLost(SQLException e) {
        String state = state(e);
        return state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03");
    }

    private static String state(SQLException e) {
        return e.getSQLState() == null ? "" : e.getSQLState();
    }

    /** The server's own message (and where in the statement it points) when it sent one, else the driver's; one line, masked. */
    private static String text(SQLException e, SecretMask mask) {
        String text = String.valueOf(e.getMessage());
        if (e instanceof PSQLException p && p.getServerErrorMessage() != null) {
            ServerErrorMessage server = p.getServerErrorMessage();
            text = String.valueOf(server.getMessage()) + (server.getPosition() > 0 ? " (at character " + server.getPosition() + ")" : "");
        }
        return mask.mask(text.replaceAll("\\s+", " ").strip());
    }
}
