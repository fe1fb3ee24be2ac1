package dev.postern.bench;

import dev.postern.fixtures.LocalPostgres;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The database of the load run: a throwaway {@link LocalPostgres} cluster with a table of 1000 items
 * and a login role that may read it, the config section that lets Postern query it, and the same
 * query over JDBC directly on one kept connection, as an application would run it. Not thread-safe.
 */
final class LoopbackPostgres implements AutoCloseable {
    static final String DATABASE = "bench";
    static final String ROLE = "bench_reader";
    static final String STATEMENT = "item-by-id";
    static final String SQL = "SELECT id, name, price, added FROM items WHERE id = ?";

    private final LocalPostgres cluster;
    private final String password;
    private Connection direct;
    private PreparedStatement query;

    private LoopbackPostgres(LocalPostgres cluster, String password) {
        this.cluster = cluster;
        this.password = password;
    }

    static LoopbackPostgres start() {
        return start("none");
    }

    /**
     * A cluster whose {@code log_statement} is {@code logStatement} ({@code none}, as an operator runs a
     * server: {@link LocalPostgres} logs every statement for the tests that read its log, which costs
     * the server a log line per statement, two per executor call against one per direct query). The
     * setting is the cluster's, so the direct query and the executor see the same server.
     */
    static LoopbackPostgres start(String logStatement) {
        if (!logStatement.matches("none|ddl|mod|all")) {
            throw new IllegalArgumentException("not a log_statement value: " + logStatement);
        }
        byte[] random = new byte[12];
        new SecureRandom().nextBytes(random);
        String password = "bench-" + HexFormat.of().formatHex(random);
        LocalPostgres pg = LocalPostgres.start();
        try {
            pg.psql("postgres", "ALTER SYSTEM SET log_statement = '" + logStatement + "'");
            pg.psql("postgres", "SELECT pg_reload_conf()");
            pg.psql("postgres", "CREATE DATABASE " + DATABASE);
            pg.psql(DATABASE, "CREATE ROLE " + ROLE + " LOGIN PASSWORD '" + password + "';"
                    + " CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL, price numeric(10,2) NOT NULL, added timestamptz NOT NULL);"
                    + " INSERT INTO items SELECT i, 'item ' || i, i * 1.25, '2026-01-01'::timestamptz + i * interval '1 hour'"
                    + " FROM generate_series(1, 1000) i;"
                    + " GRANT SELECT ON items TO " + ROLE);
        } catch (RuntimeException e) {
            pg.close();
            throw e;
        }
        return new LoopbackPostgres(pg, password);
    }

    /** The {@code credentials} entry's password file (written here, owner-only) and the {@code sql} section, as JSON text. */
    String configSection(Path dir) throws IOException {
        Path file = dir.resolve("bench-db-password");
        Files.writeString(file, password, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return """
                "credentials": { "bench-db-password": { "file": "%s" } },
                "sql": { "databases": [
                  { "name": "%s", "host": "%s", "port": %d, "database": "%s", "user": "%s", "password": "bench-db-password",
                    "tls": { "mode": "disable" }, "allowPrivateAddresses": true, "timeoutMs": 5000, "maxRows": 100,
                    "statements": [ { "name": "%s", "sql": "SELECT id, name, price, added FROM items WHERE id = :id",
                                      "params": { "id": { "type": "integer", "minimum": 1, "maximum": 1000 } } } ] } ] }
                """.formatted(file, DATABASE, cluster.host(), cluster.port(), DATABASE, ROLE, STATEMENT);
    }

    /**
     * The same database and statement as the {@code sql} section, as the policy's entry (the password
     * under the credential name {@code credential}), for measuring the executor in process.
     */
    SqlDatabase database(String credential) {
        return new SqlDatabase(DATABASE, cluster.host(), cluster.port(), DATABASE, ROLE, new CredentialRef(credential),
                SqlDatabase.Tls.disabled(), true, Duration.ofMillis(5000), 100, 1 << 20,
                List.of(new SqlStatementSpec(STATEMENT, "SELECT id, name, price, added FROM items WHERE id = :id",
                        Map.of("id", new ParamSpec.IntegerParam(1, 1000)))));
    }

    /** The role's password, for the credential store of an executor measured in process. */
    String password() {
        return password;
    }

    /** One query over JDBC directly (autocommit, the statement prepared once); returns the rows read. */
    int queryDirectly(int id) throws SQLException {
        if (direct == null) {
            Properties p = new Properties();
            p.setProperty("user", ROLE);
            p.setProperty("password", password);
            p.setProperty("sslmode", "disable");
            direct = DriverManager.getConnection(cluster.jdbcUrl(DATABASE), p);
            query = direct.prepareStatement(SQL);
        }
        query.setInt(1, id);
        int rows = 0;
        try (ResultSet rs = query.executeQuery()) {
            while (rs.next()) {
                rs.getInt(1);
                rs.getString(2);
                rs.getBigDecimal(3);
                rs.getObject(4, java.time.OffsetDateTime.class);
                rows++;
            }
        }
        return rows;
    }

    /** A server setting as the direct connection's session sees it ({@code SHOW name}). */
    String setting(String name) throws SQLException {
        if (!name.matches("[a-z_]+")) {
            throw new IllegalArgumentException("not a setting name: " + name);
        }
        queryDirectly(1);
        try (java.sql.Statement s = direct.createStatement(); ResultSet rs = s.executeQuery("SHOW " + name)) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** Sessions the gateway's role has opened so far (the direct connection is counted too). */
    long connections() {
        return cluster.connectionsOf(ROLE);
    }

    @Override
    public void close() {
        try {
            if (direct != null) {
                direct.close();
            }
        } catch (SQLException e) {
            // the cluster stops next anyway
        } finally {
            cluster.close();
        }
    }
}
