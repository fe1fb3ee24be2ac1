package dev.postern.protocol.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.AuthorizedSqlStatement;
import dev.postern.policy.action.Argument;
import dev.postern.policy.action.SqlQueryAction;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.RateLimit;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import dev.postern.policy.outcome.SqlRowsOutcome;
import dev.postern.policy.outcome.SqlValue;
import dev.postern.transport.Sha256;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What {@code sql_query} writes for each surface: check-config's database and statement lines
 * (address, user, TLS and every param rule for the operator), postern_targets' statements (no host,
 * user or credential for the agent), explain's bound values by param name, and the journal's intent,
 * denial and outcome fields with and without redacted arguments. Each kind of bound value (text,
 * whole, decimal, truth value; a whole number given for a number param) is shown once.
 */
class SqlQueryKindPresentationTest {
    private static final SqlQueryKind KIND = new SqlQueryKind();

    private static final SqlStatementSpec BY_ID = new SqlStatementSpec("by-id", "SELECT note FROM t WHERE id = :id",
            Map.of("id", new ParamSpec.IntegerParam(1, 10)));
    private static final SqlStatementSpec TOUCH = new SqlStatementSpec("touch", "UPDATE t SET n = n + 1", Map.of(), false, true);
    /** One param of every type and rule. */
    private static final SqlStatementSpec FIND = new SqlStatementSpec("find",
            "SELECT id FROM t WHERE note = :note AND total > :min AND flag = :flag AND n < :n AND kind = :kind AND amount = :amount",
            Map.of("note", new ParamSpec.StringParam(Optional.empty(), Optional.empty(), 64),
                    "min", new ParamSpec.NumberParam(Optional.of(new BigDecimal("0.10")), Optional.empty()),
                    "flag", new ParamSpec.BooleanParam(),
                    "n", new ParamSpec.IntegerParam(Long.MIN_VALUE, 100),
                    "kind", new ParamSpec.StringParam(Optional.of(Pattern.compile("[a-z]+")), Optional.of(List.of("a", "b")), 8),
                    "amount", new ParamSpec.NumberParam(Optional.empty(), Optional.empty())));
    private static final SqlStatementSpec BUMP = new SqlStatementSpec("bump", "UPDATE t SET n = n + 1", Map.of(), false, false);
    private static final SqlStatementSpec RANGE = new SqlStatementSpec("range", "SELECT :lo, :hi",
            Map.of("lo", new ParamSpec.NumberParam(Optional.empty(), Optional.of(new BigDecimal("1E+3"))),
                    "hi", new ParamSpec.IntegerParam(-5, Long.MAX_VALUE)));

    private static final SqlDatabase SHOP = new SqlDatabase("shop", "db.internal", 5432, "shop", "agent", new CredentialRef("db-pw"),
            new SqlDatabase.Tls(SqlDatabase.TlsMode.VERIFY_FULL, Optional.of(Path.of("/etc/postern/ca.pem"))), false,
            Duration.ofSeconds(5), 100, 4096, List.of(BY_ID, TOUCH, FIND), Optional.of(RateLimit.perSeconds(30, 60)));
    private static final SqlDatabase LOCAL = new SqlDatabase("local", "::1", 5433, "dev", "me", new CredentialRef("local-pw"),
            SqlDatabase.Tls.disabled(), true, Duration.ofMillis(250), 1, 10, List.of(BUMP, RANGE));
    private static final SqlDatabase CRM = new SqlDatabase("crm", "crm.internal", 5432, "crm", "agent", new CredentialRef("crm-pw"),
            SqlDatabase.Tls.verifyFull(), false, Duration.ofSeconds(1), 5, 100, List.of());
    private static final Policy POLICY = Policy.of(SHOP, LOCAL, CRM);

    /** The values find is asked with, shown sorted by name: a whole number for a number param, an exponent, a quote. */
    private static final Map<String, Argument> FIND_ARGS = Map.of(
            "note", new Argument.Text("it's \"late\""),
            "min", new Argument.Decimal(new BigDecimal("1E+1")),
            "flag", new Argument.Bool(true),
            "n", new Argument.Whole(5),
            "kind", new Argument.Text("a"),
            "amount", new Argument.Whole(7));
    private static final String FIND_VALUES = " amount=7 (numeric) flag=true kind=\"a\" min=10 n=5 note=\"it's \\\"late\\\"\"";

    private static ObjectNode row() {
        return JsonNodeFactory.instance.objectNode();
    }

    private static List<String> fieldNames(ObjectNode row) {
        List<String> names = new ArrayList<>();
        row.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static AuthorizedSqlStatement find() {
        return Permits.permit(POLICY, new SqlQueryAction("shop", "find", FIND_ARGS), AuthorizedSqlStatement.class);
    }

    @Test
    void theKindNamesItsToolTypesAndTargetsField() {
        assertEquals("sql_query", KIND.toolName());
        assertEquals("sql", KIND.targetsField());
        assertEquals("SQL databases", KIND.allowancesNoun());
        assertEquals("SQL databases with their statements, argument rules and read-only flags", KIND.allowancesSummary());
        assertEquals(SqlQueryAction.class, KIND.actionType());
        assertEquals(AuthorizedSqlStatement.class, KIND.permitType());
        assertEquals(SqlRowsOutcome.class, KIND.outcomeType());
        assertEquals(SqlDatabase.class, KIND.allowanceType());
    }

    @Test
    void checkConfigPrintsEachDatabaseWithTlsAndLimitsThenEachStatementAndItsParamsSortedByName() {
        assertEquals("sql database shop: agent@db.internal:5432/shop (TLS verify-full, CA /etc/postern/ca.pem; private addresses refused;"
                + " timeout 5000 ms, at most 100 rows and 4096 bytes), rate limit 30 calls per 60 s\n"
                + "  statement by-id (read-only): SELECT note FROM t WHERE id = :id\n"
                + "    id: integer 1..10\n"
                + "  statement touch (read-write, only with a human's approval): UPDATE t SET n = n + 1\n"
                + "  statement find (read-only): " + FIND.sql() + "\n"
                + "    amount: number ..\n"
                + "    flag: boolean\n"
                + "    kind: string enum [a, b] pattern [a-z]+ maxLength 8\n"
                + "    min: number 0.10..\n"
                + "    n: integer ..100\n"
                + "    note: string maxLength 64\n"
                + "sql database local: me@[::1]:5433/dev (TLS off (loopback only); private addresses allowed;"
                + " timeout 250 ms, at most 1 rows and 10 bytes)\n"
                + "  statement bump (read-write): UPDATE t SET n = n + 1\n"
                + "  statement range (read-only): SELECT :lo, :hi\n"
                + "    hi: integer -5..\n"
                + "    lo: number ..1000\n"
                + "sql database crm: agent@crm.internal:5432/crm (TLS verify-full, the JVM's trust store; private addresses refused;"
                + " timeout 1000 ms, at most 5 rows and 100 bytes)\n",
                KIND.describeForOperator(POLICY));
    }

    @Test
    void posternTargetsShowsStatementsSqlAndParamsButNoHostUserOrCredential() {
        String agent = KIND.describeForAgent(POLICY).toString();
        assertEquals("[{\"name\":\"shop\",\"maxRows\":100,\"rateLimit\":{\"calls\":30,\"perSeconds\":60},\"statements\":["
                + "{\"name\":\"by-id\",\"sql\":\"SELECT note FROM t WHERE id = :id\",\"readOnly\":true,\"confirm\":false,"
                + "\"params\":{\"id\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10}}},"
                + "{\"name\":\"touch\",\"sql\":\"UPDATE t SET n = n + 1\",\"readOnly\":false,\"confirm\":true,\"params\":{}},"
                + "{\"name\":\"find\",\"sql\":\"" + FIND.sql() + "\",\"readOnly\":true,\"confirm\":false,\"params\":{"
                + "\"amount\":{\"type\":\"number\"},\"flag\":{\"type\":\"boolean\"},"
                + "\"kind\":{\"type\":\"string\",\"maxLength\":8,\"pattern\":\"[a-z]+\",\"enum\":[\"a\",\"b\"]},"
                + "\"min\":{\"type\":\"number\",\"minimum\":0.10},"
                + "\"n\":{\"type\":\"integer\",\"minimum\":-9223372036854775808,\"maximum\":100},"
                + "\"note\":{\"type\":\"string\",\"maxLength\":64}}}]},"
                + "{\"name\":\"local\",\"maxRows\":1,\"statements\":["
                + "{\"name\":\"bump\",\"sql\":\"UPDATE t SET n = n + 1\",\"readOnly\":false,\"confirm\":false,\"params\":{}},"
                + "{\"name\":\"range\",\"sql\":\"SELECT :lo, :hi\",\"readOnly\":true,\"confirm\":false,\"params\":{"
                + "\"hi\":{\"type\":\"integer\",\"minimum\":-5,\"maximum\":9223372036854775807},"
                + "\"lo\":{\"type\":\"number\",\"maximum\":1E+3}}}]},"
                + "{\"name\":\"crm\",\"maxRows\":5,\"statements\":[]}]", agent);
        for (String hidden : List.of("db.internal", "agent", "db-pw", "ca.pem", "::1", "local-pw", "crm-pw", "5432")) {
            assertFalse(agent.contains(hidden), hidden);
        }
    }

    @Test
    void explainShowsWhereTheCredentialNameTlsTheSqlAndEachValueAsItWillBeBound() {
        assertEquals("would run on shop (agent@db.internal:5432/shop, password from credential db-pw, TLS verify-full, CA /etc/postern/ca.pem):"
                + " statement find, read-only (in a read-only transaction)\n"
                + "  " + FIND.sql() + "\n"
                + "  with amount = 7 (numeric), flag = true, kind = \"a\", min = 10, n = 5, note = \"it's \\\"late\\\"\" (bound as parameters)\n"
                + "  limits: timeout 5000 ms, at most 100 rows and 4096 bytes of values", KIND.explain(find()));
    }

    @Test
    void explainOfAWriteWithoutValuesSaysItCommitsAndHasNoValues() {
        AuthorizedSqlStatement bump = Permits.permit(POLICY, new SqlQueryAction("local", "bump", Map.of()), AuthorizedSqlStatement.class);
        assertEquals("would run on local (me@[::1]:5433/dev, password from credential local-pw, TLS off (loopback only)):"
                + " statement bump, read-write (committed)\n"
                + "  UPDATE t SET n = n + 1\n"
                + "  with no values\n"
                + "  limits: timeout 250 ms, at most 1 rows and 10 bytes of values", KIND.explain(bump));
    }

    @Test
    void anIntentRowHoldsEachValueTypedByNameAndAPreviewWithTheValuesAsShown() {
        ObjectNode row = row();
        KIND.journalIntent(find(), row, false);
        assertEquals(List.of("target", "statement", "sql", "values", "preview"), fieldNames(row));
        assertEquals("shop", row.get("target").textValue());
        assertEquals("find", row.get("statement").textValue());
        assertEquals(FIND.sql(), row.get("sql").textValue());
        assertEquals("{\"amount\":7,\"flag\":true,\"kind\":\"a\",\"min\":\"10\",\"n\":5,\"note\":\"it's \\\"late\\\"\"}",
                row.get("values").toString(), "whole numbers and truth values as JSON, a decimal as its exact text");
        assertEquals("find" + FIND_VALUES, row.get("preview").textValue());
    }

    @Test
    void aRedactedIntentRowHoldsTheStatementButOnlyTheDigestOfTheValuesAsShown() {
        ObjectNode row = row();
        KIND.journalIntent(find(), row, true);
        assertEquals(List.of("target", "statement", "sql", "preview", "argumentsSha256"), fieldNames(row));
        assertEquals("find", row.get("preview").textValue());
        assertEquals(Sha256.of(FIND_VALUES.getBytes(StandardCharsets.UTF_8)), row.get("argumentsSha256").textValue());
    }

    @Test
    void aDenialRowShowsTheValuesAsAskedWithoutParamTypes() {
        Map<String, Argument> asked = new LinkedHashMap<>();
        asked.put("x", new Argument.Whole(7));
        asked.put("t", new Argument.Text("o'k"));
        asked.put("d", new Argument.Decimal(new BigDecimal("0.50")));
        asked.put("b", new Argument.Bool(false));
        ObjectNode row = row();
        KIND.journalDenial(new SqlQueryAction("nowhere", "drop", asked), row, false);
        assertEquals("{\"target\":\"nowhere\",\"refused\":\"drop b=false d=0.50 t=\\\"o'k\\\" x=7\"}", row.toString());

        ObjectNode redacted = row();
        KIND.journalDenial(new SqlQueryAction("nowhere", "drop", asked), redacted, true);
        assertEquals("{\"target\":\"nowhere\",\"refused\":\"drop\",\"argumentsSha256\":\""
                + Sha256.of(" b=false d=0.50 t=\"o'k\" x=7".getBytes(StandardCharsets.UTF_8)) + "\"}", redacted.toString());

        ObjectNode bare = row();
        KIND.journalDenial(new SqlQueryAction("shop", "drop", Map.of()), bare, false);
        assertEquals("{\"target\":\"shop\",\"refused\":\"drop\"}", bare.toString());
    }

    @Test
    void anOutcomeRowHoldsTheRowCountAndTruncationButNoValues() {
        ObjectNode row = row();
        KIND.journalOutcome(new SqlRowsOutcome("shop", "by-id", List.of(new SqlRowsOutcome.Column("note", "text")),
                List.of(List.of(new SqlValue.Text("secret")), List.of(new SqlValue.Null())), 2, false), row);
        assertEquals("{\"rowCount\":2,\"truncated\":false}", row.toString());
    }

    @Test
    void wholeNumbersAtTheNegativeEdgeOfADoubleStayNumbersAndBeyondItBecomeText() {
        assertEquals("-9007199254740992", SqlQueryKind.json(new SqlValue.Whole(-(1L << 53))).toString());
        assertEquals("\"-9007199254740993\"", SqlQueryKind.json(new SqlValue.Whole(-(1L << 53) - 1)).toString());
    }

    /** The sentence after the list of statements: where rows stop. */
    private static final String ROWS = " Rows stop at the database's maxRows, at its maxResponseBytes of values as rendered (escapes counted), or where the result is full; then truncated is true.";

    @Test
    void theToolListsEachStatementSayingWhichWriteAndWhichArgumentsEachTakes() {
        String quiet = KIND.tool(Policy.of(LOCAL, CRM)).describe().get("description").textValue();
        assertEquals("Run one statement the operator configured, on one configured database, with typed values for its"
                + " :placeholders (bound as parameters; no SQL is accepted). Statements: local/bump (writes); local/range args [hi, lo]."
                + ROWS, quiet);
        assertEquals("Run one statement the operator configured, on one configured database, with typed values for its"
                + " :placeholders (bound as parameters; no SQL is accepted). Statements: shop/by-id args [id]; shop/touch (writes);"
                + " shop/find args [amount, flag, kind, min, n, note]; local/bump (writes); local/range args [hi, lo]."
                + ROWS + ToolCatalog.WAITS_FOR_A_HUMAN, KIND.tool(POLICY).describe().get("description").textValue(),
                "touch asks for a human: said once, after one space");
    }
}
