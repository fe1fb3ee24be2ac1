package dev.postern.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.app.Gateway;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.RateLimit;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code sql} section against DESIGN §4: databases and statements load into the kernel's model
 * with their defaults, and each way a database or statement can be wrong fails at its JSON pointer
 * without echoing a would-be secret.
 */
class SqlConfigLoaderTest {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    @TempDir
    Path dir;

    /** The full config of {@link ConfigLoaderTest} plus one database with three statements. */
    static ObjectNode withSql() {
        ObjectNode root = ConfigLoaderTest.full();
        ((ObjectNode) root.get("credentials")).putObject("shop-db-password").put("env", "POSTERN_TEST_DB_PASSWORD");
        ObjectNode db = root.putObject("sql").putArray("databases").addObject();
        db.put("name", "shop").put("host", "db.internal").put("database", "shop").put("user", "agent_ro")
                .put("password", "shop-db-password");
        db.putObject("tls").put("mode", "verify-full").put("caFile", "tls/db-ca.pem");
        db.put("timeoutMs", 5000).put("maxRows", 500).put("maxResponseBytes", 65536);
        var statements = db.putArray("statements");
        ObjectNode byId = statements.addObject().put("name", "order-by-id")
                .put("sql", "SELECT id, status, total FROM orders WHERE id = :id");
        byId.putObject("params").putObject("id").put("type", "integer").put("minimum", 1);
        ObjectNode cancel = statements.addObject().put("name", "cancel-order").put("readOnly", false)
                .put("sql", "UPDATE orders SET status = 'cancelled' WHERE id = :id AND status = 'open'");
        cancel.putObject("params").putObject("id").put("type", "integer").put("minimum", 1).put("maximum", 99);
        ObjectNode search = statements.addObject().put("name", "search")
                .put("sql", "SELECT id FROM orders WHERE total >= :min AND status = :status AND paid = :paid");
        ObjectNode params = search.putObject("params");
        params.putObject("min").put("type", "number").put("minimum", new BigDecimal("0.10")).put("maximum", new BigDecimal("12345678901234567890.01"));
        params.putObject("status").put("type", "string").putArray("enum").add("open").add("paid");
        params.putObject("paid").put("type", "boolean");
        return root;
    }

    private static ObjectNode edit(Consumer<ObjectNode> change) {
        ObjectNode root = withSql();
        change.accept(root);
        return root;
    }

    private static ObjectNode db(ObjectNode root) {
        return (ObjectNode) root.get("sql").get("databases").get(0);
    }

    private static ObjectNode statement(ObjectNode root, int i) {
        return (ObjectNode) db(root).get("statements").get(i);
    }

    private Path write(ObjectNode config) throws IOException {
        Files.createDirectories(dir.resolve("tls"));
        Files.writeString(dir.resolve("tls/db-ca.pem"), "-----BEGIN CERTIFICATE-----\n");
        Path file = dir.resolve("postern.json");
        Files.writeString(file, config.toPrettyString());
        return file;
    }

    private ConfigException refused(ObjectNode config, String pointer, String expected) throws IOException {
        Path file = write(config);
        ConfigException e = assertThrows(ConfigException.class, () -> Gateway.configLoader().load(file));
        assertEquals(pointer, e.pointer(), e.getMessage());
        assertTrue(e.getMessage().startsWith(file.toAbsolutePath().normalize() + " at " + pointer + ": "), e.getMessage());
        assertTrue(e.getMessage().toLowerCase(Locale.ROOT).contains(expected.toLowerCase(Locale.ROOT)),
                "should say " + expected + ": " + e.getMessage());
        return e;
    }

    @Test
    void aDatabaseLoadsWithItsStatementsTypedParamsAndTheCaFileResolvedAgainstTheConfigDirectory() throws Exception {
        Path file = write(withSql());

        SqlDatabase db = Gateway.configLoader().load(file).policy().allowances(SqlDatabase.class).get(0);

        assertEquals("shop", db.name());
        assertEquals("db.internal", db.host());
        assertEquals(5432, db.port(), "the default port");
        assertEquals("shop", db.database());
        assertEquals("agent_ro", db.user());
        assertEquals(new CredentialRef("shop-db-password"), db.password());
        assertEquals(SqlDatabase.TlsMode.VERIFY_FULL, db.tls().mode());
        assertEquals(Optional.of(dir.resolve("tls/db-ca.pem").toAbsolutePath().normalize()), db.tls().caFile());
        assertFalse(db.allowPrivateAddresses(), "private addresses are refused by default");
        assertEquals(Duration.ofMillis(5000), db.timeout());
        assertEquals(500, db.maxRows());
        assertEquals(65536, db.maxResponseBytes());

        SqlStatementSpec byId = db.statement("order-by-id").orElseThrow();
        assertTrue(byId.readOnly(), "read-only unless it says otherwise");
        assertEquals(new ParamSpec.IntegerParam(1, Long.MAX_VALUE), byId.params().get("id"), "an open bound is the 64-bit one");
        SqlStatementSpec cancel = db.statement("cancel-order").orElseThrow();
        assertFalse(cancel.readOnly());
        assertFalse(cancel.confirm());
        assertEquals(new ParamSpec.IntegerParam(1, 99), cancel.params().get("id"));
        SqlStatementSpec search = db.statement("search").orElseThrow();
        ParamSpec.NumberParam min = (ParamSpec.NumberParam) search.params().get("min");
        assertEquals(Optional.of(new BigDecimal("0.10")), min.minimum(), "a number bound is read exactly");
        assertEquals(Optional.of(new BigDecimal("12345678901234567890.01")), min.maximum(), "never through a double");
        assertEquals(new ParamSpec.BooleanParam(), search.params().get("paid"));
        ParamSpec.StringParam status = (ParamSpec.StringParam) search.params().get("status");
        assertEquals(Optional.of(List.of("open", "paid")), status.allowed());
        assertEquals(ConfigDefaults.STRING_PARAM_MAX_LENGTH, status.maxLength());
    }

    @Test
    void aDatabaseWithoutTlsOrLimitsTakesVerifyFullAndTheDefaults() throws Exception {
        Path file = write(edit(r -> db(r).remove(List.of("tls", "timeoutMs", "maxRows", "maxResponseBytes"))));

        SqlDatabase db = Gateway.configLoader().load(file).policy().allowances(SqlDatabase.class).get(0);

        assertEquals(SqlDatabase.Tls.verifyFull(), db.tls());
        assertEquals(Duration.ofMillis(ConfigDefaults.SQL_TIMEOUT_MS), db.timeout());
        assertEquals(ConfigDefaults.SQL_MAX_ROWS, db.maxRows());
        assertEquals(ConfigDefaults.SQL_MAX_RESPONSE_BYTES, db.maxResponseBytes());
    }

    @Test
    void noSqlSectionAllowsNoDatabase() throws Exception {
        assertTrue(Gateway.configLoader().load(write(ConfigLoaderTest.full())).policy().allowances(SqlDatabase.class).isEmpty());
    }

    @Test
    void aLoopbackDatabaseMayTurnTlsOffAndAllowItsPrivateAddress() throws Exception {
        Path file = write(edit(r -> {
            db(r).put("host", "127.0.0.1").put("allowPrivateAddresses", true).putObject("tls").put("mode", "disable");
        }));

        SqlDatabase db = Gateway.configLoader().load(file).policy().allowances(SqlDatabase.class).get(0);

        assertEquals(SqlDatabase.Tls.disabled(), db.tls());
        assertTrue(db.allowPrivateAddresses());
    }

    @Test
    void tlsOffForARemoteHostIsRefusedAtTheDatabase() throws Exception {
        refused(edit(r -> db(r).putObject("tls").put("mode", "disable")), "/sql/databases/0", "loopback");
    }

    @Test
    void aCaFileWithTlsOffIsRefusedAtTls() throws Exception {
        refused(edit(r -> {
            db(r).put("host", "localhost");
            ((ObjectNode) db(r).get("tls")).put("mode", "disable");
        }), "/sql/databases/0/tls", "caFile");
    }

    @Test
    void aMissingCaFileIsRefusedNamingTheResolvedPath() throws Exception {
        ConfigException e = refused(edit(r -> ((ObjectNode) db(r).get("tls")).put("caFile", "nope.pem")),
                "/sql/databases/0/tls/caFile", "readable CA file");
        assertTrue(e.getMessage().contains(dir.resolve("nope.pem").toString()), e.getMessage());
    }

    @Test
    void aStatementHoldingTwoStatementsIsRefusedAtThatStatement() throws Exception {
        refused(edit(r -> statement(r, 0).put("sql", "SELECT 1; DROP TABLE orders").remove("params")),
                "/sql/databases/0/statements/0", "statement");
    }

    @Test
    void aPlaceholderWithoutAParamAndAParamWithoutAPlaceholderAreRefusedAtTheStatement() throws Exception {
        refused(edit(r -> statement(r, 0).remove("params")), "/sql/databases/0/statements/0", "placeholders without a param [id]");
        refused(edit(r -> statement(r, 0).put("sql", "SELECT 1")), "/sql/databases/0/statements/0", "params without a placeholder [id]");
    }

    @Test
    void aStatementMarkedConfirmAndADatabasesRateLimitLoad() throws Exception {
        Path file = write(edit(r -> {
            statement(r, 0).put("confirm", true);
            db(r).putObject("rateLimit").put("calls", 3).put("perSeconds", 60);
        }));
        SqlDatabase db = Gateway.configLoader().load(file).policy().allowances(SqlDatabase.class).get(0);
        assertTrue(db.statements().get(0).confirm());
        assertFalse(db.statements().get(1).confirm(), "no approval unless the statement asks for it");
        assertEquals(Optional.of(new RateLimit(3, Duration.ofSeconds(60))), db.rateLimit());
    }

    @Test
    void anIntegerParamWhoseBoundsCrossIsRefusedAtTheParam() throws Exception {
        refused(edit(r -> ((ObjectNode) statement(r, 1).get("params").get("id")).put("minimum", 100)),
                "/sql/databases/0/statements/1/params/id", "exceeds");
    }

    @Test
    void anUnknownKeyInADatabaseOrStatementIsNamedByItsPointer() throws Exception {
        refused(edit(r -> db(r).put("sslmode", "require")), "/sql/databases/0/sslmode", "not defined");
        refused(edit(r -> statement(r, 0).put("confirm", "yes")), "/sql/databases/0/statements/0/confirm", "");
    }

    @Test
    void aParamOfAnotherTypeIsRefusedByTheSchema() throws Exception {
        Path file = write(edit(r -> ((ObjectNode) statement(r, 0).get("params").get("id")).put("type", "array")));
        ConfigException e = assertThrows(ConfigException.class, () -> Gateway.configLoader().load(file));
        assertTrue(e.pointer().startsWith("/sql/databases/0/statements/0/params/id"), e.getMessage());
    }

    @Test
    void aDatabaseNamedTwiceIsRefused() throws Exception {
        Path file = write(edit(r -> ((com.fasterxml.jackson.databind.node.ArrayNode) r.get("sql").get("databases")).add(db(r).deepCopy())));
        ConfigException e = assertThrows(ConfigException.class, () -> Gateway.configLoader().load(file));
        assertTrue(e.getMessage().contains("shop") && e.getMessage().contains("twice"), e.getMessage());
    }

    @Test
    void aPasswordThatNamesNoCredentialIsRefusedWithoutEchoingIt() throws Exception {
        for (Consumer<ObjectNode> secret : List.<Consumer<ObjectNode>>of(
                d -> d.put("password", "hunter2-s3cret"),
                d -> d.put("password", "correct horse battery staple"),
                d -> d.put("password", 424242424242L))) {
            ConfigException e = refused(edit(r -> secret.accept(db(r))), "/sql/databases/0/password", "credential defined under /credentials");
            assertTrue(e.getMessage().contains("value is not shown"), e.getMessage());
            assertFalse(e.getMessage().contains("hunter2") || e.getMessage().contains("horse") || e.getMessage().contains("424242"),
                    e.getMessage());
        }
    }

    @Test
    void aStringParamWithABadRegexIsNamedAtItsPattern() throws Exception {
        refused(edit(r -> ((ObjectNode) statement(r, 2).get("params").get("status")).put("pattern", "(")),
                "/sql/databases/0/statements/2/params/status/pattern", "regular expression");
    }

    @Test
    void theShippedSqlExampleLoads() throws Exception {
        var databases = Gateway.configLoader().load(Path.of("..", "examples", "postern-sql.json")).policy().allowances(SqlDatabase.class);

        assertEquals(List.of("shop", "local-dev"), databases.stream().map(SqlDatabase::name).toList());
        assertFalse(databases.get(0).statement("cancel-order").orElseThrow().readOnly());
    }
}
