package dev.postern.app.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.app.Gateway;
import dev.postern.app.config.ConfigException;
import dev.postern.app.config.ConfigLoader;
import dev.postern.app.config.GatewayConfig;
import dev.postern.fixtures.LocalPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code sql_query} deep checks against a real PostgreSQL ({@link LocalPostgres}), through the
 * registered kinds as {@code check-config --deep --connect} runs them: a good database gives no
 * finding; a misspelled table, a wrong password, a loopback host without the opt-in and a CA file
 * that holds no certificate each give their own finding, and checking a statement never runs it.
 */
class SqlDatabaseCheckTest {
    private static final String ROLE = "checker";
    private static final String PASSWORD = "checker-password-0b7e";
    private static LocalPostgres pg;

    @TempDir
    Path dir;

    @BeforeAll
    static void startDatabase() {
        pg = LocalPostgres.start();
        pg.psql("postgres", "CREATE DATABASE shop");
        pg.psql("shop", "CREATE ROLE " + ROLE + " LOGIN PASSWORD '" + PASSWORD + "';"
                + " CREATE TABLE orders (id int PRIMARY KEY, status text NOT NULL);"
                + " INSERT INTO orders VALUES (1, 'open'), (2, 'paid');"
                + " GRANT SELECT, INSERT ON orders TO " + ROLE);
    }

    @AfterAll
    static void stopDatabase() {
        if (pg != null) {
            pg.close();
        }
    }

    /** A config whose databases are {@code entries} (JSON objects after name, host, port, database, user, password). */
    private GatewayConfig config(String... entries) throws Exception {
        secret("right.pw", PASSWORD);
        secret("wrong.pw", "not-the-password-3f9a");
        StringBuilder databases = new StringBuilder();
        for (String entry : entries) {
            databases.append(databases.length() == 0 ? "" : ",\n").append(entry.replace("@PORT@", Integer.toString(pg.port())));
        }
        Path file = Files.writeString(dir.resolve("postern.json"), """
                { "journal": { "directory": "journal" },
                  "credentials": { "right": { "file": "./right.pw" }, "wrong": { "file": "./wrong.pw" } },
                  "sql": { "databases": [ %s ] } }
                """.formatted(databases));
        return Gateway.configLoader().load(file);
    }

    private void secret(String name, String value) throws Exception {
        Path f = Files.writeString(dir.resolve(name), value);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
    }

    private static String database(String name, String password, String more, String statements) {
        return ("{ \"name\": \"%s\", \"host\": \"127.0.0.1\", \"port\": @PORT@, \"database\": \"shop\", \"user\": \"" + ROLE + "\","
                + " \"password\": \"%s\" %s, \"statements\": [ %s ] }").formatted(name, password, more, statements);
    }

    private static final String LOOPBACK = ", \"tls\": { \"mode\": \"disable\" }, \"allowPrivateAddresses\": true";
    private static final String BY_ID = "{ \"name\": \"by-id\", \"sql\": \"SELECT id, status FROM orders WHERE id = :id\","
            + " \"params\": { \"id\": { \"type\": \"integer\", \"minimum\": 1 } } }";
    private static final String ADD = "{ \"name\": \"add\", \"readOnly\": false, \"sql\": \"INSERT INTO orders VALUES (:id, :status)\","
            + " \"params\": { \"id\": { \"type\": \"integer\", \"minimum\": 3 }, \"status\": { \"type\": \"string\", \"enum\": [\"open\"] } } }";

    /** What {@code check-config --deep --connect} finds, with the registered kinds' checks. */
    private static List<Finding> deepWithConnections(GatewayConfig config) {
        DeepCheck check = new DeepCheck(config, Gateway.kindChecks());
        List<Finding> out = new ArrayList<>(check.all());
        out.addAll(check.connections());
        return out;
    }

    /** Fails (psql stops at the raised error) unless {@code orders} still holds exactly its two rows. */
    private static void assertOrdersUnchanged() {
        pg.psql("shop", "DO $$ BEGIN IF (SELECT count(*) FROM orders) <> 2 THEN RAISE 'orders changed'; END IF; END $$");
    }

    @Test
    void aGoodDatabaseGivesNoFindingEvenWithConnections() throws Exception {
        long before = pg.connectionsOf(ROLE);

        List<Finding> findings = deepWithConnections(config(database("shop", "right", LOOPBACK, BY_ID + ", " + ADD)));

        assertEquals(List.of(), findings);
        assertEquals(before + 1, pg.connectionsOf(ROLE), "one login for the database, both statements on it");
    }

    @Test
    void aMisspelledTableIsAnInvalidStatementWithTheServersSqlstate() throws Exception {
        List<Finding> findings = deepWithConnections(config(database("shop", "right", LOOPBACK, BY_ID + ", "
                + "{ \"name\": \"typo\", \"sql\": \"SELECT id FROM ordres\" }")));

        assertEquals(List.of("error [statement-invalid] /sql/databases/0/statements/1/sql: database shop, statement typo: the server"
                + " would refuse it: SQLSTATE 42P01: relation \"ordres\" does not exist (at character 16)"),
                findings.stream().map(Finding::line).toList());
    }

    @Test
    void aWrongPasswordIsALoginFailureThatShowsNoPassword() throws Exception {
        List<Finding> findings = deepWithConnections(config(database("shop", "wrong", LOOPBACK, BY_ID)));

        assertEquals(1, findings.size(), findings::toString);
        String line = findings.get(0).line();
        assertTrue(line.startsWith("error [login-failed] /sql/databases/0: database shop: logging in to shop on 127.0.0.1:" + pg.port()
                + " as " + ROLE + " failed: SQLSTATE 28P01: password authentication failed for user \"" + ROLE + "\""), line);
        assertFalse(line.contains("not-the-password") || line.contains(PASSWORD), line);
    }

    @Test
    void checkingAnInsertLeavesTheTableUnchanged() throws Exception {
        assertOrdersUnchanged();

        List<Finding> findings = deepWithConnections(config(database("shop", "right", LOOPBACK, ADD)));

        assertEquals(List.of(), findings);
        assertOrdersUnchanged();
    }

    @Test
    void aLoopbackDatabaseWithoutTheOptInIsFlaggedAndNeverDialed() throws Exception {
        long before = pg.connectionsOf(ROLE);

        List<Finding> findings = deepWithConnections(config(database("shop", "right", ", \"tls\": { \"mode\": \"disable\" }", BY_ID)));

        assertEquals(List.of("error [private-address-without-opt-in] /sql/databases/0/host: database shop: 127.0.0.1 is a non-public"
                + " address; calls are refused at connect time unless the database says \"allowPrivateAddresses\": true"),
                findings.stream().map(Finding::line).toList());
        assertEquals(before, pg.connectionsOf(ROLE), "a refused address is never dialed");
    }

    /**
     * Each way a CA file can fail says what is wrong with which file in words, never an exception's
     * class name: empty, not PEM, a private key (or a request) instead of a certificate, a broken
     * certificate block, a file gone since the config was loaded; a good one gives no finding.
     */
    @Test
    void aCaFileTheDriverCannotReadSaysWhatIsWrongWithItInWords() throws Exception {
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-dname", "CN=test CA", "-keystore", dir.resolve("ca.p12").toString(),
                "-storetype", "PKCS12", "-storepass", "capass", "-validity", "2");
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", dir.resolve("ca.p12").toString(), "-storepass", "capass",
                "-file", dir.resolve("ca.pem").toString());
        keytool("-exportcert", "-alias", "ca", "-keystore", dir.resolve("ca.p12").toString(), "-storepass", "capass",
                "-file", dir.resolve("ca.der").toString());
        keytool("-certreq", "-alias", "ca", "-keystore", dir.resolve("ca.p12").toString(), "-storepass", "capass",
                "-file", dir.resolve("request.pem").toString());
        String key = "-----BEGIN PRIVATE KEY-----\n" + "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg" + "A".repeat(16)
                + "\n-----END PRIVATE KEY-----\n";
        String ca = Files.readString(dir.resolve("ca.pem"));
        Files.writeString(dir.resolve("empty.pem"), "");
        Files.writeString(dir.resolve("blank.pem"), " \n\n");
        Files.writeString(dir.resolve("garbage.pem"), "hello, not a certificate\n");
        Files.writeString(dir.resolve("bad-base64.pem"), "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n");
        Files.writeString(dir.resolve("key.pem"), key);
        Files.writeString(dir.resolve("ca-and-key.pem"), ca + key);
        Files.write(dir.resolve("not-der.der"), new byte[] {0x30, 0x03, 0x02, 0x01, 0x05});
        Files.writeString(dir.resolve("key-as-cert.pem"), key.replace("PRIVATE KEY", "CERTIFICATE"));
        Files.writeString(dir.resolve("unended.pem"), ca.substring(0, ca.indexOf("-----END")));
        Files.writeString(dir.resolve("gone.pem"), ca);
        List<String> files = List.of("empty.pem", "blank.pem", "garbage.pem", "bad-base64.pem", "key.pem", "ca-and-key.pem",
                "request.pem", "not-der.der", "key-as-cert.pem", "unended.pem", "gone.pem", "ca.pem", "ca.der");
        List<String> entries = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            entries.add(database("db" + i, "right", ", \"tls\": { \"mode\": \"verify-full\", \"caFile\": \"./" + files.get(i) + "\" }",
                    BY_ID));
        }
        GatewayConfig config = config(entries.toArray(String[]::new));
        Files.delete(dir.resolve("gone.pem"));

        List<Finding> findings = new SqlDatabaseCheck().local(config);

        List<String> problems = List.of(
                "is empty",
                "holds only white space",
                "is not a certificate: it has no -----BEGIN CERTIFICATE----- line and is not a DER certificate",
                "is not a certificate: its CERTIFICATE block 1 is not valid base64",
                "holds a PRIVATE KEY block, which is not a certificate (a CA file holds only CERTIFICATE blocks)",
                "holds a PRIVATE KEY block besides its certificates, which the driver cannot read"
                        + " (a CA file holds only CERTIFICATE blocks)",
                "holds a NEW CERTIFICATE REQUEST block, which is not a certificate (a CA file holds only CERTIFICATE blocks)",
                "is not a certificate: it is binary DER that does not decode to an X.509 certificate",
                "is not a certificate: its CERTIFICATE block 1 does not decode to an X.509 certificate",
                "is not a certificate: its CERTIFICATE block 1 has no -----END CERTIFICATE----- line",
                "no longer exists");
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < problems.size(); i++) {
            expected.add("error [ca-file-invalid] /sql/databases/" + i + "/tls/caFile: database db" + i + ": "
                    + dir.resolve(files.get(i)) + " " + problems.get(i) + ", so every TLS handshake would fail");
        }
        assertEquals(expected, findings.stream().map(Finding::line).toList());
        for (Finding f : findings) {
            assertFalse(f.line().matches("(?s).*(Exception|java\\.|\\(\\w+\\)).*"), "an exception named: " + f.line());
            assertFalse(f.line().contains("MIGH"), "nothing of a key is shown: " + f.line());
        }
    }

    /** A CA path that names a directory is refused when the config loads, in words, before any deep check. */
    @Test
    void aCaFileThatIsADirectoryIsAConfigurationError() throws Exception {
        Files.createDirectory(dir.resolve("certs"));

        ConfigException e = assertThrows(ConfigException.class, () -> config(
                database("dir", "right", ", \"tls\": { \"mode\": \"verify-full\", \"caFile\": \"./certs\" }", BY_ID)));

        assertTrue(e.getMessage().contains("/sql/databases/0/tls/caFile"), e.getMessage());
        assertTrue(e.getMessage().contains("a readable CA file, but " + dir.resolve("certs") + " is not one"), e.getMessage());
        assertFalse(e.getMessage().contains("Exception"), e.getMessage());
    }

    private static void keytool(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), "keytool " + String.join(" ", args) + ":\n" + output);
    }
}
