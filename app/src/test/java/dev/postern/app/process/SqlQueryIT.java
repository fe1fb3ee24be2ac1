package dev.postern.app.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.postern.fixtures.LocalPostgres;
import dev.postern.fixtures.StdoutTranscript;
import dev.postern.fixtures.ToolErrors;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sql_query} through the packaged {@code bin/postern} against a real PostgreSQL
 * ({@link LocalPostgres}): an allowed call returns typed rows; denied and rejected calls open no
 * connection, counted at the server ({@code log_connections}); {@code explain} shows the statement
 * and the bound values without connecting; {@code check-config} shows every statement with its
 * params and read-only flag.
 */
class SqlQueryIT {
    private static final String ROLE = "it_agent";
    private static final String PASSWORD = "it-db-password-5c1e";
    private static LocalPostgres pg;

    @TempDir
    Path dir;

    @BeforeAll
    static void startDatabase() {
        pg = LocalPostgres.start();
        pg.psql("postgres", "CREATE DATABASE shop");
        pg.psql("shop", "CREATE ROLE " + ROLE + " LOGIN PASSWORD '" + PASSWORD + "';"
                + " CREATE TABLE orders (id int PRIMARY KEY, status text NOT NULL, total numeric(20,2) NOT NULL);"
                + " INSERT INTO orders VALUES (1, 'open', 19.90), (2, 'paid', 12345678901.25), (3, 'open', 7.25);"
                + " GRANT SELECT, UPDATE ON orders TO " + ROLE);
    }

    @AfterAll
    static void stopDatabase() {
        if (pg != null) {
            pg.close();
        }
    }

    private Path config() throws Exception {
        Path password = dir.resolve("db-password");
        Files.writeString(password, PASSWORD);
        Files.setPosixFilePermissions(password, PosixFilePermissions.fromString("rw-------"));
        Path config = dir.resolve("postern.json");
        Files.writeString(config, """
                { "journal": { "directory": "journal" },
                  "credentials": { "shop-db": { "file": "%s" } },
                  "sql": { "databases": [
                    { "name": "shop", "host": "127.0.0.1", "port": %d, "database": "shop", "user": "%s", "password": "shop-db",
                      "tls": { "mode": "disable" }, "allowPrivateAddresses": true, "timeoutMs": 5000, "maxRows": 10,
                      "statements": [
                        { "name": "order-by-id", "sql": "SELECT id, status, total FROM orders WHERE id = :id",
                          "params": { "id": { "type": "integer", "minimum": 1 } } },
                        { "name": "orders-by-status", "sql": "SELECT id FROM orders WHERE status = :status ORDER BY id",
                          "params": { "status": { "type": "string", "enum": ["open", "paid"] } } },
                        { "name": "close-order", "readOnly": false, "sql": "UPDATE orders SET status = 'closed' WHERE id = :id AND :really",
                          "params": { "id": { "type": "integer", "minimum": 1, "maximum": 3 }, "really": { "type": "boolean" } } } ] } ] } }
                """.formatted(password, pg.port(), ROLE));
        return config;
    }

    private static String call(int id, String arguments) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"sql_query\",\"arguments\":"
                + arguments + "}}\n";
    }

    private static final String HANDSHAKE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
            + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}\n"
            + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

    /** The last session's stdout as text, to check numbers as they were written rather than as a double reads them. */
    private static String lastStdout = "";

    private static Map<Integer, JsonNode> session(Path config, String calls, Path dir) throws Exception {
        LauncherProcess p = LauncherProcess.run(List.of("mcp-stdio", "--config", config.toString()),
                (HANDSHAKE + calls).getBytes(StandardCharsets.UTF_8), dir, Map.of());
        List<JsonNode> messages = StdoutTranscript.assertProtocolOnly(p.stdout, String.join(" ", p.command), p.stderr);
        assertEquals(0, p.exitStatus, p.describe());
        lastStdout = new String(p.stdout, StandardCharsets.UTF_8);
        Map<Integer, JsonNode> byId = new HashMap<>();
        messages.forEach(m -> byId.put(m.get("id").asInt(), m));
        return byId;
    }

    @Test
    void deniedAndRejectedCallsOpenNoConnectionAndAnAllowedOneReturnsTypedRows() throws Exception {
        Path config = config();
        long before = pg.connectionsOf(ROLE);

        Map<Integer, JsonNode> refused = session(config,
                call(2, "{\"database\":\"shop\",\"statement\":\"drop-everything\"}")
                        + call(3, "{\"database\":\"shop\",\"statement\":\"order-by-id\",\"args\":{\"id\":\"1 OR 1=1\"}}")
                        + call(4, "{\"database\":\"shop\",\"statement\":\"orders-by-status\",\"args\":{\"status\":\"open' OR '1'='1\"}}")
                        + call(5, "{\"database\":\"shop\",\"statement\":\"order-by-id\",\"args\":{\"id\":0}}")
                        + call(6, "{\"database\":\"shop\",\"statement\":\"order-by-id\",\"args\":{\"id\":1,\"extra\":2}}")
                        + call(7, "{\"database\":\"other\",\"statement\":\"order-by-id\",\"args\":{\"id\":1}}")
                        + call(8, "{\"database\":\"shop\",\"statement\":\"order-by-id\",\"args\":{\"id\":{\"nested\":1}}}")
                        + call(9, "{\"database\":\"shop\",\"statement\":\"order-by-id\",\"sql\":\"DROP TABLE orders\"}"),
                dir);

        assertEquals(before, pg.connectionsOf(ROLE), "a denied or rejected call must open no connection:\n" + pg.logText());
        assertEquals("INVALID_ARGUMENTS", ToolErrors.error(refused.get(2).get("result")).get("code").textValue(),
                "an unknown statement fails the tool's enum");
        assertEquals("sql.args.type", ToolErrors.error(refused.get(3).get("result")).get("rule").textValue());
        assertEquals("sql.args.enum", ToolErrors.error(refused.get(4).get("result")).get("rule").textValue());
        assertEquals("sql.args.range", ToolErrors.error(refused.get(5).get("result")).get("rule").textValue());
        assertEquals("sql.args.unknown", ToolErrors.error(refused.get(6).get("result")).get("rule").textValue());
        for (int id : List.of(7, 8, 9)) {
            assertEquals("INVALID_ARGUMENTS", ToolErrors.error(refused.get(id).get("result")).get("code").textValue(),
                    refused.get(id).toString());
        }

        Map<Integer, JsonNode> allowed = session(config,
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n"
                        + call(3, "{\"database\":\"shop\",\"statement\":\"order-by-id\",\"args\":{\"id\":2}}")
                        + call(4, "{\"database\":\"shop\",\"statement\":\"orders-by-status\",\"args\":{\"status\":\"open\"}}"),
                dir);

        JsonNode tool = null;
        for (JsonNode t : allowed.get(2).get("result").get("tools")) {
            if (t.get("name").textValue().equals("sql_query")) {
                tool = t;
            }
        }
        assertTrue(tool != null, "tools/list offers sql_query: " + allowed.get(2));
        assertEquals("[\"shop\"]", tool.get("inputSchema").get("properties").get("database").get("enum").toString());
        assertTrue(tool.get("annotations").get("destructiveHint").asBoolean(), "a writing statement makes the tool destructive");

        JsonNode rows = allowed.get(3).get("result");
        assertFalse(rows.get("isError").asBoolean(), rows.toString());
        JsonNode s = rows.get("structuredContent");
        assertEquals("shop", s.get("database").textValue());
        assertEquals("order-by-id", s.get("statement").textValue());
        assertEquals("[{\"name\":\"id\",\"type\":\"int4\"},{\"name\":\"status\",\"type\":\"text\"},{\"name\":\"total\",\"type\":\"numeric\"}]",
                s.get("columns").toString());
        assertEquals(2, s.get("rows").get(0).get(0).asInt());
        assertEquals("paid", s.get("rows").get(0).get(1).textValue());
        assertTrue(lastStdout.contains("\"rows\":[[2,\"paid\",12345678901.25]]"), "numbers as JSON numbers, written exactly: " + lastStdout);
        assertEquals(1, s.get("rowCount").asInt());
        assertFalse(s.get("truncated").asBoolean());
        assertEquals("[[1],[3]]", allowed.get(4).get("result").get("structuredContent").get("rows").toString());
        long opened = pg.connectionsOf(ROLE) - before;
        assertTrue(opened >= 1 && opened <= 2, "the two allowed calls (which may run at once) opened " + opened + " connections:\n"
                + pg.logText());
        String journal = Files.readString(dir.resolve("journal").resolve("actions.jsonl"));
        assertTrue(journal.contains("order-by-id"), journal);
        assertFalse(journal.contains(PASSWORD), "the journal never holds the password");
    }

    @Test
    void explainShowsTheStatementAndItsBoundValuesWithoutConnecting() throws Exception {
        Path config = config();
        long before = pg.connectionsOf(ROLE);

        LauncherProcess p = LauncherProcess.run(List.of("explain", "--config", config.toString(), "--tool", "sql_query", "--arguments",
                "{\"database\":\"shop\",\"statement\":\"close-order\",\"args\":{\"id\":3,\"really\":true}}"), new byte[0], dir, Map.of());

        String out = new String(p.stdout, StandardCharsets.UTF_8);
        assertEquals(0, p.exitStatus, p.describe());
        assertTrue(out.startsWith("PERMIT"), out);
        assertTrue(out.contains("UPDATE orders SET status = 'closed' WHERE id = :id AND :really"), out);
        assertTrue(out.contains("id = 3") && out.contains("really = true"), out);
        assertTrue(out.contains("read-write"), out);
        assertTrue(out.contains(ROLE + "@127.0.0.1:" + pg.port() + "/shop"), out);
        assertFalse(out.contains(PASSWORD), out);
        assertEquals(before, pg.connectionsOf(ROLE), "explain never connects");

        LauncherProcess denied = LauncherProcess.run(List.of("explain", "--config", config.toString(), "--tool", "sql_query", "--arguments",
                "{\"database\":\"shop\",\"statement\":\"close-order\",\"args\":{\"id\":4,\"really\":true}}"), new byte[0], dir, Map.of());
        assertEquals(6, denied.exitStatus, denied.describe());
        assertTrue(new String(denied.stdout, StandardCharsets.UTF_8).contains("sql.args.range"), denied.describe());
    }

    @Test
    void checkConfigShowsEveryStatementWithItsParamsAndReadOnlyFlag() throws Exception {
        LauncherProcess p = LauncherProcess.run(List.of("check-config", "--config", config().toString()), new byte[0], dir, Map.of());

        String out = new String(p.stdout, StandardCharsets.UTF_8);
        assertEquals(0, p.exitStatus, p.describe());
        assertTrue(out.contains("sql database shop: " + ROLE + "@127.0.0.1:" + pg.port() + "/shop"), out);
        assertTrue(out.contains("statement order-by-id (read-only): SELECT id, status, total FROM orders WHERE id = :id"), out);
        assertTrue(out.contains("statement close-order (read-write): UPDATE orders"), out);
        assertTrue(out.contains("id: integer 1.."), out);
        assertTrue(out.contains("status: string enum [open, paid]"), out);
        assertTrue(out.contains("really: boolean"), out);
        assertFalse(out.contains(PASSWORD), out);
    }
}
