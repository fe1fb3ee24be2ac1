package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.app.config.GatewayConfig;
import dev.postern.journal.FileAuditJournal;
import dev.postern.fixtures.RecordingExecutor;
import dev.postern.fixtures.StdoutTranscript;
import dev.postern.fixtures.ToolErrors;
import dev.postern.policy.AuthorizedSqlStatement;
import dev.postern.policy.action.Argument;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import dev.postern.policy.outcome.SqlRowsOutcome;
import dev.postern.policy.outcome.SqlValue;
import dev.postern.protocol.tools.ToolResults;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sql_query} at the seam, through Gateway's own wiring with a recording executor for SQL
 * permits: arguments that fail the schema or the policy never reach it, one valid call reaches it
 * once with its values typed exactly, and the journal names the statement but not the values.
 */
class SqlSeamTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final RecordingExecutor<AuthorizedSqlStatement> sql = new RecordingExecutor<>(AuthorizedSqlStatement.class,
            permit -> new SqlRowsOutcome(permit.database().name(), permit.statement().name(),
                    List.of(new SqlRowsOutcome.Column("total", "numeric")),
                    List.of(List.of(new SqlValue.Decimal(new BigDecimal("12345678901234567890.01")))), 1, false));
    private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();

    private static Policy policy() {
        SqlDatabase shop = new SqlDatabase("shop", "127.0.0.1", 5432, "shop", "agent", new CredentialRef("db"),
                SqlDatabase.Tls.disabled(), true, Duration.ofSeconds(5), 100, 4096, List.of(
                        new SqlStatementSpec("over", "SELECT id FROM orders WHERE total > :min AND status = :status",
                                Map.of("min", new ParamSpec.NumberParam(Optional.empty(), Optional.empty()),
                                        "status", new ParamSpec.StringParam(Optional.empty(), Optional.of(List.of("open", "paid")), 16)))));
        return Policy.of(shop);
    }

    private static String call(int id, String arguments) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"sql_query\",\"arguments\":"
                + arguments + "}}\n";
    }

    private ExitStatus run(String input) throws Exception {
        GatewayConfig config = SessionHarness.config(dir, policy(), 4);
        PrintStream diagnostics = new PrintStream(stderr, true, StandardCharsets.UTF_8);
        try (FileAuditJournal journal = Gateway.journal(config, diagnostics)) {
            return Gateway.run(config, journal, List.of(sql), ToolResults.DEFAULT_MAX_RESULT_BYTES,
                    new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), stdout, diagnostics, session -> { });
        }
    }

    @Test
    void aCallThatFailsItsSchemaIsJournaledWithItsToolAndThePointerThatFailedNeverItsValues() throws Exception {
        run(SessionHarness.INIT + SessionHarness.INITIALIZED
                + call(2, "{\"database\":[\"secret-value-4f1\"],\"statement\":\"over\"}")
                + call(4, "{\"database\":\"shop\",\"statement\":\"over\",\"args\":{\"secret-key-9a2\":[1]}}")
                + "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"sql_querry\",\"arguments\":{}}}\n");

        List<JsonNode> rows = new java.util.ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve(FileAuditJournal.DECISIONS), StandardCharsets.UTF_8)) {
            rows.add(JSON.readTree(line));
        }
        List<JsonNode> schema = rows.stream().filter(r -> "schema".equals(r.path("stage").asText())).toList();
        assertEquals(2, schema.size(), rows.toString());
        assertEquals("sql_query", schema.get(0).path("tool").asText(), schema.toString());
        assertEquals("/database", schema.get(0).path("pointer").asText(), "a member the tool declares: " + schema);
        assertEquals("sql_query", schema.get(1).path("tool").asText(), schema.toString());
        assertFalse(schema.get(1).has("pointer"), "a key of the client's own is raw input, never journaled: " + schema);
        assertFalse(rows.toString().contains("secret-key-9a2"), rows.toString());
        JsonNode unknown = rows.stream().filter(r -> "mcp".equals(r.path("stage").asText())).findFirst().orElseThrow();
        assertFalse(unknown.has("tool"), "a name no tool has is the client's raw input, kept only as the frame's digest: " + unknown);
        assertFalse(rows.toString().contains("secret-value-4f1"), "no argument value in the decisions journal: " + rows);
    }

    @Test
    void badArgumentsNeverReachTheExecutorAndOneValidCallReachesItOnceWithExactValues() throws Exception {
        ExitStatus exit = run(SessionHarness.INIT + SessionHarness.INITIALIZED
                + call(2, "{\"database\":\"shop\",\"statement\":\"over\",\"args\":{\"min\":1,\"status\":\"open' OR '1'='1\"}}")
                + call(3, "{\"database\":\"shop\",\"statement\":\"over\",\"args\":{\"min\":[1],\"status\":\"open\"}}")
                + call(4, "{\"database\":\"shop\",\"statement\":\"drop\",\"args\":{}}")
                + call(5, "{\"database\":\"shop\",\"statement\":\"over\",\"sql\":\"DROP TABLE orders\"}")
                + call(6, "{\"database\":\"shop\",\"statement\":\"over\",\"args\":{\"min\":\"0.1\",\"status\":\"open\"}}")
                + call(7, "{\"database\":\"shop\",\"statement\":\"over\",\"args\":{\"min\":0.0271828,\"status\":\"open\"}}"));

        assertEquals(ExitStatus.OK, exit);
        AuthorizedSqlStatement permit = sql.take(Duration.ofSeconds(5));
        assertEquals(1, sql.count(), "exactly the valid call reached the executor");
        assertEquals(List.of(new Argument.Decimal(new BigDecimal("0.0271828")), new Argument.Text("open")), permit.boundValues(),
                "0.0271828 arrives as the decimal the agent wrote");

        List<JsonNode> messages = StdoutTranscript.assertProtocolOnly(stdout.toByteArray(), "in-memory session", stderr.toByteArray());
        Map<Integer, JsonNode> byId = new java.util.HashMap<>();
        messages.forEach(m -> byId.put(m.get("id").asInt(), m.get("result")));
        assertEquals("sql.args.enum", ToolErrors.error(byId.get(2)).get("rule").textValue());
        assertEquals("INVALID_ARGUMENTS", ToolErrors.error(byId.get(3)).get("code").textValue());
        assertEquals("INVALID_ARGUMENTS", ToolErrors.error(byId.get(4)).get("code").textValue());
        assertEquals("INVALID_ARGUMENTS", ToolErrors.error(byId.get(5)).get("code").textValue());
        assertEquals("sql.args.type", ToolErrors.error(byId.get(6)).get("rule").textValue());
        JsonNode ok = byId.get(7);
        assertFalse(ok.get("isError").asBoolean(), ok.toString());
        assertEquals("\"12345678901234567890.01\"", ok.get("structuredContent").get("rows").get(0).get(0).toString(),
                "a numeric a double cannot hold goes out as its exact text");

        String actions = Files.readString(dir.resolve("actions.jsonl"));
        assertTrue(actions.contains("\"target\":\"shop\"") && actions.contains("\"statement\":\"over\""), actions);
        assertTrue(actions.contains("\"values\":{\"min\":\"0.0271828\",\"status\":\"open\"}"),
                "the intent row holds the bound values, the decimal exactly: " + actions);
        assertFalse(actions.contains("127.0.0.1"), "no host address: " + actions);
    }
}
