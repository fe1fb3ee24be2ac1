package dev.postern.protocol.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.AuthorizedSqlStatement;
import dev.postern.policy.Decision;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.action.Argument;
import dev.postern.policy.action.SqlQueryAction;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import dev.postern.policy.outcome.SqlRowsOutcome;
import dev.postern.policy.outcome.SqlValue;
import dev.postern.protocol.json.StrictJson;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code sql_query}'s binder and rendering: arguments typed as written, never through a double; values out exactly. */
class SqlQueryKindTest {
    private static final SqlQueryKind KIND = new SqlQueryKind();

    private static SqlDatabase database(String name, SqlStatementSpec... statements) {
        return new SqlDatabase(name, "db.internal", 5432, "shop", "agent", new CredentialRef("db-pw"), SqlDatabase.Tls.verifyFull(),
                false, Duration.ofSeconds(5), 100, 4096, List.of(statements));
    }

    private static final SqlStatementSpec READ = new SqlStatementSpec("by-id", "SELECT note FROM t WHERE id = :id",
            Map.of("id", new ParamSpec.IntegerParam(1, 10)));
    private static final SqlStatementSpec WRITE = new SqlStatementSpec("touch", "UPDATE t SET n = n + 1", Map.of(), false, false);

    private static SqlQueryAction bound(String args) throws Exception {
        JsonNode parsed = new StrictJson(1 << 20).parse(args);
        Binding b = SqlQueryKind.bind(parsed);
        return (SqlQueryAction) assertInstanceOf(Binding.ToAction.class, b, b::toString).action();
    }

    @Test
    void argumentsAreTypedAsTheAgentWroteThemAndNumbersStayExact() throws Exception {
        SqlQueryAction a = bound("{\"database\":\"shop\",\"statement\":\"s\",\"args\":{\"t\":\"1; DROP TABLE t\",\"w\":-42,"
                + "\"big\":92233720368547758070,\"d\":0.1,\"e\":1.10,\"x\":1e400,\"b\":false}}");

        assertEquals("shop", a.database());
        assertEquals("s", a.statement());
        assertEquals(new Argument.Text("1; DROP TABLE t"), a.args().get("t"));
        assertEquals(new Argument.Whole(-42), a.args().get("w"));
        assertEquals(new Argument.Decimal(new BigDecimal("92233720368547758070")), a.args().get("big"), "past 64 bits: exact decimal");
        assertEquals(new Argument.Decimal(new BigDecimal("0.1")), a.args().get("d"), "0.1 as written, not 0.1000000000000000055...");
        assertEquals(new Argument.Decimal(new BigDecimal("1.10")), a.args().get("e"));
        assertEquals(new Argument.Decimal(new BigDecimal("1e400")), a.args().get("x"), "beyond a double, still exact");
        assertEquals(new Argument.Bool(false), a.args().get("b"));
    }

    @Test
    void aNumberThatWasReadAsADoubleIsRefusedRatherThanRounded() {
        var args = JsonNodeFactory.instance.objectNode().put("database", "shop").put("statement", "s");
        args.putObject("args").put("d", 0.1d);

        Binding b = SqlQueryKind.bind(args);

        assertEquals("/args/d", assertInstanceOf(Binding.Invalid.class, b).pointer());
    }

    @Test
    void theToolOffersTheConfiguredNamesAndSaysWhetherAnyStatementWrites() {
        Tool readOnly = KIND.tool(Policy.of(database("shop", READ), database("crm", READ)));
        assertEquals("[\"shop\",\"crm\"]", readOnly.inputSchema().at("/properties/database/enum").toString());
        assertEquals("[\"by-id\"]", readOnly.inputSchema().at("/properties/statement/enum").toString());
        assertFalse(readOnly.inputSchema().get("additionalProperties").asBoolean(true));
        assertTrue(readOnly.annotations().get("readOnlyHint").asBoolean());
        assertFalse(readOnly.annotations().get("destructiveHint").asBoolean());

        Tool writes = KIND.tool(Policy.of(database("shop", READ, WRITE)));
        assertFalse(writes.annotations().get("readOnlyHint").asBoolean());
        assertTrue(writes.annotations().get("destructiveHint").asBoolean());
        assertTrue(KIND.offeredBy(Policy.of(database("shop", READ))));
        assertFalse(KIND.offeredBy(Policy.denyAll()), "no databases, no sql_query");
    }

    @Test
    void valuesRenderAsJsonNumbersOnlyWhenADoubleReadsThemBackExactly() {
        assertEquals("null", SqlQueryKind.json(new SqlValue.Null()).toString());
        assertEquals("\"it's\"", SqlQueryKind.json(new SqlValue.Text("it's")).toString());
        assertEquals("9007199254740992", SqlQueryKind.json(new SqlValue.Whole(1L << 53)).toString());
        assertEquals("\"9007199254740993\"", SqlQueryKind.json(new SqlValue.Whole((1L << 53) + 1)).toString());
        assertEquals("\"-9223372036854775808\"", SqlQueryKind.json(new SqlValue.Whole(Long.MIN_VALUE)).toString());
        assertEquals("19.90", SqlQueryKind.json(new SqlValue.Decimal(new BigDecimal("19.90"))).toString());
        assertEquals("12345678901.25", SqlQueryKind.json(new SqlValue.Decimal(new BigDecimal("12345678901.25"))).toString());
        assertEquals("\"12345678901234567890.01\"", SqlQueryKind.json(new SqlValue.Decimal(new BigDecimal("12345678901234567890.01"))).toString());
        assertEquals("\"0.12345678901234567890\"", SqlQueryKind.json(new SqlValue.Decimal(new BigDecimal("0.12345678901234567890"))).toString());
        assertEquals("1.5", SqlQueryKind.json(new SqlValue.Float(1.5)).toString());
        assertEquals("\"NaN\"", SqlQueryKind.json(new SqlValue.Float(Double.NaN)).toString());
        assertEquals("\"-Infinity\"", SqlQueryKind.json(new SqlValue.Float(Double.NEGATIVE_INFINITY)).toString());
        assertEquals("true", SqlQueryKind.json(new SqlValue.Bool(true)).toString());
        assertEquals("\"/wA=\"", SqlQueryKind.json(new SqlValue.Bytes(new byte[] {(byte) 0xff, 0})).toString());
        assertEquals("\"2026-12-01\"", SqlQueryKind.json(new SqlValue.Temporal(LocalDate.of(2026, 12, 1))).toString());
        assertEquals("\"2026-12-01T03:04:05Z\"", SqlQueryKind.json(new SqlValue.Temporal(
                OffsetDateTime.of(2026, 12, 1, 3, 4, 5, 0, ZoneOffset.UTC))).toString());
    }

    @Test
    void anOutcomeRendersWithColumnsRowsCountAndTruncation() {
        var out = KIND.render(new SqlRowsOutcome("shop", "by-id", List.of(new SqlRowsOutcome.Column("id", "int8"),
                new SqlRowsOutcome.Column("note", "text")), List.of(List.of(new SqlValue.Whole(1), new SqlValue.Null())), 1, true));

        assertEquals("{\"database\":\"shop\",\"statement\":\"by-id\",\"columns\":[{\"name\":\"id\",\"type\":\"int8\"},"
                + "{\"name\":\"note\",\"type\":\"text\"}],\"rows\":[[1,null]],\"rowCount\":1,\"truncated\":true}", out.toString());
    }

    @Test
    void theOperatorAndTheAgentSeeStatementsButTheAgentNoHostUserOrCredential() {
        Policy policy = Policy.of(database("shop", READ, WRITE));

        String operator = KIND.describeForOperator(policy);
        assertTrue(operator.contains("sql database shop: agent@db.internal:5432/shop"), operator);
        assertTrue(operator.contains("statement by-id (read-only): SELECT note FROM t WHERE id = :id"), operator);
        assertTrue(operator.contains("statement touch (read-write): UPDATE t SET n = n + 1"), operator);
        assertTrue(operator.contains("id: integer 1..10"), operator);

        String agent = KIND.describeForAgent(policy).toString();
        assertTrue(agent.contains("\"name\":\"by-id\"") && agent.contains("\"readOnly\":false"), agent);
        assertFalse(agent.contains("db.internal") || agent.contains("agent@") || agent.contains("db-pw"), agent);
    }

    @Test
    void anIntentRowHoldsDatabaseStatementSqlAndBoundValuesOrWithRedactionOnlyTheirDigest() {
        SqlStatementSpec find = new SqlStatementSpec("find", "SELECT id FROM t WHERE note = :note AND total > :min",
                Map.of("note", new ParamSpec.StringParam(Optional.empty(), Optional.empty(), 64),
                        "min", new ParamSpec.NumberParam(Optional.empty(), Optional.empty())));
        Decision d = new PolicyEngine(Policy.of(database("shop", find))).decide(new SqlQueryAction("shop", "find",
                Map.of("note", new Argument.Text("late"), "min", new Argument.Decimal(new BigDecimal("0.10")))));
        AuthorizedSqlStatement permit = (AuthorizedSqlStatement) assertInstanceOf(Decision.Permit.class, d).permit();

        ObjectNode row = JsonNodeFactory.instance.objectNode();
        KIND.journalIntent(permit, row, false);
        assertEquals("shop", row.get("target").textValue());
        assertEquals("find", row.get("statement").textValue());
        assertEquals(find.sql(), row.get("sql").textValue());
        assertEquals("{\"min\":\"0.10\",\"note\":\"late\"}", row.get("values").toString());
        assertEquals("find min=0.10 note=\"late\"", row.get("preview").textValue());
        assertFalse(row.toString().contains("db.internal") || row.toString().contains("db-pw"), row.toString());

        ObjectNode redacted = JsonNodeFactory.instance.objectNode();
        KIND.journalIntent(permit, redacted, true);
        assertEquals("find", redacted.get("preview").textValue());
        assertFalse(redacted.has("values"), redacted.toString());
        assertFalse(redacted.toString().contains("late") || redacted.toString().contains("0.10"), redacted.toString());
        assertTrue(redacted.get("argumentsSha256").textValue().matches("[0-9a-f]{64}"), redacted.toString());
    }

    @Test
    void aDenialRowNamesTheStatementAndTheValuesAsAsked() {
        SqlQueryAction asked = new SqlQueryAction("shop", "drop", Map.of("x", new Argument.Whole(1)));
        ObjectNode row = JsonNodeFactory.instance.objectNode();
        KIND.journalDenial(asked, row, false);
        assertEquals("shop", row.get("target").textValue());
        assertEquals("drop x=1", row.get("refused").textValue());
        ObjectNode redacted = JsonNodeFactory.instance.objectNode();
        KIND.journalDenial(asked, redacted, true);
        assertEquals("drop", redacted.get("refused").textValue());
        assertTrue(redacted.has("argumentsSha256"), redacted.toString());
    }
}
