package dev.postern.app.check;

import dev.postern.app.config.GatewayConfig;
import dev.postern.app.credentials.EnvironmentAndFileCredentialStore;
import dev.postern.executor.sql.SqlActionExecutor;
import dev.postern.executor.sql.SqlActionExecutor.StatementCheck;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.port.CredentialStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The deep checks of {@code sql_query} databases: each TLS CA file holding a certificate, each host judged as the executor judges it (loopback, private, link-local or cloud
 * metadata); with {@code --connect}, {@link SqlActionExecutor#checkStatements}: one login per
 * database as its user, through the executor's own connection code, and every statement parsed and
 * described by the server, none run. Databases whose address the gateway would refuse are not dialed
 * ({@link #addresses} reports them). Messages carry the server's SQLSTATE and text, never a secret.
 * Stateless.
 */
public final class SqlDatabaseCheck implements KindCheck {

    @Override
    public Class<? extends Allowance> allowanceType() {
        return SqlDatabase.class;
    }

    /**
     * Each {@code tls.caFile} holds at least one X.509 certificate, read as the driver reads it (the
     * loader has already refused a file that is missing or unreadable; it does not look inside); a
     * finding says what is wrong with the file in words ({@link CaFiles}).
     */
    @Override
    public List<Finding> local(GatewayConfig config) {
        List<Finding> out = new ArrayList<>();
        List<SqlDatabase> databases = config.policy().allowances(SqlDatabase.class);
        for (int i = 0; i < databases.size(); i++) {
            SqlDatabase d = databases.get(i);
            if (d.tls().caFile().isEmpty()) {
                continue;
            }
            Path file = d.tls().caFile().get();
            String where = "/sql/databases/" + i + "/tls/caFile";
            CaFiles.problem(file).ifPresent(problem -> out.add(Finding.error("ca-file-invalid", where,
                    "database " + d.name() + ": " + file + " " + problem + ", so every TLS handshake would fail")));
        }
        return out;
    }

    @Override
    public List<Finding> addresses(GatewayConfig config, HostNames names) {
        List<Finding> out = new ArrayList<>();
        List<SqlDatabase> databases = config.policy().allowances(SqlDatabase.class);
        for (int i = 0; i < databases.size(); i++) {
            SqlDatabase d = databases.get(i);
            out.addAll(AddressFindings.judged(d.host(), d.allowPrivateAddresses(), names, "/sql/databases/" + i + "/host",
                    "database", d.name()));
        }
        return out;
    }

    @Override
    public List<Finding> connect(GatewayConfig config) {
        CredentialStore credentials = new EnvironmentAndFileCredentialStore(config.credentials());
        List<Finding> out = new ArrayList<>();
        List<SqlDatabase> databases = config.policy().allowances(SqlDatabase.class);
        for (int i = 0; i < databases.size(); i++) {
            out.addAll(findings(databases.get(i), "/sql/databases/" + i, SqlActionExecutor.checkStatements(databases.get(i), credentials)));
        }
        return out;
    }

    private static List<Finding> findings(SqlDatabase d, String at, StatementCheck result) {
        String subject = "database " + d.name();
        String server = d.host() + ":" + d.port();
        if (result instanceof StatementCheck.NotDialed) {
            return List.of(); // addresses() reports the refused address
        }
        if (result instanceof StatementCheck.NotConnected failed) {
            String why = detail(failed.sqlState(), failed.message());
            switch (failed.step()) {
                case CREDENTIAL:
                    return List.of(Finding.error("login-failed", at + "/password", subject + ": no login tried: " + why));
                case TLS:
                    return List.of(Finding.error("tls-handshake-failed", at + "/host", subject + ": TLS with " + server
                            + " failed: " + why));
                case LOGIN:
                    return List.of(Finding.error("login-failed", at, subject + ": logging in to " + d.database() + " on " + server
                            + " as " + d.user() + " failed: " + why));
                default:
                    return List.of(Finding.error("connect-failed", at + "/host", subject + ": connecting to " + server
                            + " failed: " + why));
            }
        }
        List<Finding> out = new ArrayList<>();
        for (StatementCheck.Rejected r : ((StatementCheck.Connected) result).rejected()) {
            int index = indexOf(d, r.statement());
            out.add(Finding.error("statement-invalid", at + "/statements/" + index + "/sql", subject + ", statement "
                    + r.statement() + ": the server would refuse it: " + detail(r.sqlState(), r.message())));
        }
        return out;
    }

    private static int indexOf(SqlDatabase d, String statement) {
        for (int j = 0; j < d.statements().size(); j++) {
            if (d.statements().get(j).name().equals(statement)) {
                return j;
            }
        }
        throw new IllegalStateException("the probe named a statement database " + d.name() + " does not have: " + statement);
    }

    private static String detail(String sqlState, String message) {
        return sqlState.isEmpty() ? message : "SQLSTATE " + sqlState + ": " + message;
    }
}
