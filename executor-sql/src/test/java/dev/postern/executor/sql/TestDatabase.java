package dev.postern.executor.sql;

import dev.postern.fixtures.LocalPostgres;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@link LocalPostgres} cluster set up for the executor's tests: a database {@code shop} with
 * tables, a login role the executor uses, and an administrator's connection (the superuser) that
 * the tests use to look at the server from outside: its tables, {@code pg_stat_activity} and its log.
 */
final class TestDatabase implements AutoCloseable {
    static final String DB = "shop";
    static final String ROLE = "agent";

    final LocalPostgres pg;
    private final Connection admin;

    private TestDatabase(LocalPostgres pg, Connection admin) {
        this.pg = pg;
        this.admin = admin;
    }

    static TestDatabase start() throws SQLException {
        LocalPostgres pg = LocalPostgres.start();
        try {
            Connection postgres = connect(pg, "postgres");
            try (Statement s = postgres.createStatement()) {
                s.execute("CREATE DATABASE " + DB);
                s.execute("CREATE ROLE " + ROLE + " LOGIN PASSWORD 'unset-yet'");
                s.execute("CREATE ROLE other LOGIN PASSWORD 'other-password'");
                s.execute("GRANT pg_read_all_stats TO " + ROLE);
            }
            postgres.close();
            Connection admin = connect(pg, DB);
            try (Statement s = admin.createStatement()) {
                s.execute("CREATE TABLE t (id int PRIMARY KEY, note text)");
                s.execute("INSERT INTO t SELECT i, 'row ' || i FROM generate_series(1, 3) i");
                s.execute("CREATE TABLE echo (v text NOT NULL)");
                s.execute("CREATE TABLE big AS SELECT i AS id, md5(i::text) AS hash FROM generate_series(1, 1000000) i");
                s.execute("CREATE TABLE audit (at timestamptz DEFAULT now(), what text)");
                s.execute("CREATE FUNCTION sneaky_write(w text) RETURNS int LANGUAGE sql AS "
                        + "$$ INSERT INTO audit(what) VALUES (w) RETURNING 1 $$");
                // Returns when n sessions are running a statement that contains tag (lingering 0.2 s so the
                // others see them too), or after 5 s:
                // the server-side rendezvous of the contract's concurrency clause.
                s.execute("CREATE FUNCTION rendezvous(tag text, n int) RETURNS boolean LANGUAGE plpgsql AS $$"
                        + " DECLARE waited int := 0; BEGIN"
                        + "  LOOP"
                        + "   IF (SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND position(tag IN query) > 0) >= n"
                        + "   THEN PERFORM pg_sleep(0.2); RETURN true; END IF;"
                        + "   IF waited >= 500 THEN RETURN false; END IF;"
                        + "   PERFORM pg_sleep(0.01); PERFORM pg_stat_clear_snapshot(); waited := waited + 1;"
                        + "  END LOOP; END $$");
                // A read-only statement's way out, if its transaction were not an explicit BEGIN READ ONLY
                // block: turn the session's read-only default off, commit, and write in the next transaction.
                s.execute("CREATE PROCEDURE escape_read_only(w text) LANGUAGE plpgsql AS $$ BEGIN"
                        + " PERFORM set_config('default_transaction_read_only', 'off', false); COMMIT;"
                        + " INSERT INTO audit(what) VALUES (w); END $$");
                // A table whose COMMIT takes 2 s: a deferred constraint trigger sleeps when the transaction commits.
                s.execute("CREATE TABLE slow_commit (what text)");
                s.execute("CREATE FUNCTION nap_at_commit() RETURNS trigger LANGUAGE plpgsql AS"
                        + " $$ BEGIN PERFORM pg_sleep(2); RETURN NULL; END $$");
                s.execute("CREATE CONSTRAINT TRIGGER nap_at_commit AFTER INSERT ON slow_commit"
                        + " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION nap_at_commit()");
                // A table whose COMMIT takes a minute, far past any test's deadline: only a cancel on the server ends it early.
                s.execute("CREATE TABLE stuck_commit (what text)");
                s.execute("CREATE FUNCTION stuck_at_commit() RETURNS trigger LANGUAGE plpgsql AS"
                        + " $$ BEGIN PERFORM pg_sleep(60); RETURN NULL; END $$");
                s.execute("CREATE CONSTRAINT TRIGGER stuck_at_commit AFTER INSERT ON stuck_commit"
                        + " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION stuck_at_commit()");
                s.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO " + ROLE);
            }
            return new TestDatabase(pg, admin);
        } catch (SQLException | RuntimeException e) {
            pg.close();
            throw e;
        }
    }

    private static Connection connect(LocalPostgres pg, String database) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", LocalPostgres.SUPERUSER);
        p.setProperty("password", pg.superuserPassword());
        p.setProperty("sslmode", "disable");
        return DriverManager.getConnection(pg.jdbcUrl(database), p);
    }

    /** Sets the executor's role's password (the contract kit's secret changes per test). */
    void setPassword(String password) throws SQLException {
        try (Statement s = admin.createStatement()) {
            s.execute("ALTER ROLE " + ROLE + " PASSWORD '" + password.replace("'", "''") + "'");
        }
    }

    /** A connection of the executor's role (TLS off), with the session settings {@code options} ("" for none). */
    Connection connectAsRole(String password, String options) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", ROLE);
        p.setProperty("password", password);
        p.setProperty("sslmode", "disable");
        if (!options.isEmpty()) {
            p.setProperty("options", options);
        }
        return DriverManager.getConnection(pg.jdbcUrl(DB), p);
    }

    void execute(String sql) throws SQLException {
        try (Statement s = admin.createStatement()) {
            s.execute(sql);
        }
    }

    long count(String sql) throws SQLException {
        try (Statement s = admin.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Sessions of the executor's role, other than the administrator's own. */
    long backendsOfRole() throws SQLException {
        return count("SELECT count(*) FROM pg_stat_activity WHERE usename = '" + ROLE + "'");
    }

    /** Polls until {@code sql} counts {@code expected}, for at most {@code limit}; returns the last count. */
    long awaitCount(String sql, long expected, Duration limit) throws SQLException, InterruptedException {
        long end = System.nanoTime() + limit.toNanos();
        long n = count(sql);
        while (n != expected && System.nanoTime() < end) {
            Thread.sleep(20);
            n = count(sql);
        }
        return n;
    }

    /** A loopback database entry for this cluster, TLS off, private addresses allowed. */
    SqlDatabase database(String name, Duration timeout, int maxRows, long maxBytes, String credential,
            List<SqlStatementSpec> statements) {
        return new SqlDatabase(name, pg.host(), pg.port(), DB, ROLE, new CredentialRef(credential),
                SqlDatabase.Tls.disabled(), true, timeout, maxRows, maxBytes, statements);
    }

    /** Log length now, to read what the server logged after this point. */
    int logMark() {
        return pg.logText().length();
    }

    /** The statements the server logged since {@code mark}, in order (the text after "statement:" or "execute ...:"). */
    List<String> statementsSince(int mark) {
        String log = pg.logText();
        String tail = log.length() >= mark ? log.substring(mark) : log;
        Matcher m = LOGGED.matcher(tail);
        java.util.ArrayList<String> out = new java.util.ArrayList<>();
        while (m.find()) {
            if (m.group(1) != null && m.group(1).startsWith("execute fetch from")) {
                continue; // a further fetch from an open cursor, not a new statement
            }
            out.add(m.group(2));
        }
        return out;
    }

    /**
     * How the server received each statement logged since {@code mark}, in order: {@code statement: TEXT}
     * for a simple query (a message the server answers on its own), {@code execute NAME: TEXT} for the
     * extended protocol's Execute (answered with the rest of its group at the Sync).
     */
    List<String> receivedSince(int mark) {
        String log = pg.logText();
        String tail = log.length() >= mark ? log.substring(mark) : log;
        Matcher m = LOGGED.matcher(tail);
        java.util.ArrayList<String> out = new java.util.ArrayList<>();
        while (m.find()) {
            out.add(m.group(1) + ": " + m.group(2).strip());
        }
        return out;
    }

    private static final Pattern LOGGED = Pattern.compile(
            "(?m)^\\S+ \\S+ \\S+ \\[\\d+\\] " + ROLE + "@" + DB + " LOG:  (statement|execute[^:]*): (.*)$");

    @Override
    public void close() throws SQLException {
        try {
            admin.close();
        } finally {
            pg.close();
        }
    }
}
