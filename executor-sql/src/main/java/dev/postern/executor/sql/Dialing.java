package dev.postern.executor.sql;

import dev.postern.executor.sql.internal.DialCheckingSockets;
import dev.postern.policy.model.HostSyntax;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.net.AddressRanges;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.port.Secret;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.Properties;
import org.postgresql.Driver;

/**
 * How this module reaches a database: the address check before anything is dialed, and the one way a
 * connection opens (for calls and for the deep check). Stateless; every address a socket dials is
 * judged again by {@link DialCheckingSockets}.
 */
final class Dialing {
    private Dialing() {
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
                                + DialCheckingSockets.refusedBecause(r)));
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

    /**
     * A new connection, the one way this module opens one (calls and {@code SqlActionExecutor.checkStatements}). The
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
}
