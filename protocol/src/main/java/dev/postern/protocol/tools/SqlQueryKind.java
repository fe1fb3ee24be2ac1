package dev.postern.protocol.tools;

import java.util.Optional;
import static dev.postern.protocol.tools.ToolCatalog.JSON;
import static dev.postern.protocol.tools.ToolCatalog.MAX_ENTRIES;
import static dev.postern.protocol.tools.ToolCatalog.annotations;
import static dev.postern.protocol.tools.ToolCatalog.objectSchema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.AuthorizedSqlStatement;
import dev.postern.policy.action.Argument;
import dev.postern.policy.action.SqlQueryAction;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.HostSyntax;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import dev.postern.policy.outcome.SqlRowsOutcome;
import dev.postern.policy.outcome.SqlValue;
import dev.postern.transport.Sha256;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@code sql_query}: one statement the operator wrote, on one configured database, with typed values
 * for its placeholders; presented once for every surface. The agent never sends SQL. Numbers are
 * bound from their exact decimal text, never through a double; result numbers a double cannot carry
 * exactly go out as strings. Stateless.
 */
public final class SqlQueryKind implements StaticToolKind<SqlQueryAction, AuthorizedSqlStatement, SqlRowsOutcome> {
    public static final String TOOL = SqlQueryAction.TOOL;
    /** The longest string argument the schema lets through; a param's own maxLength is checked by the policy. */
    static final int MAX_ARGUMENT = 65536;
    /** Integers from -2^53 to 2^53 survive any JSON reader's double; beyond, a whole number goes out as a string. */
    private static final long EXACT_IN_A_DOUBLE = 1L << 53;

    @Override
    public String toolName() {
        return TOOL;
    }

    @Override
    public String displayName() {
        return "SQL statement";
    }

    @Override
    public Class<SqlQueryAction> actionType() {
        return SqlQueryAction.class;
    }

    @Override
    public Class<AuthorizedSqlStatement> permitType() {
        return AuthorizedSqlStatement.class;
    }

    @Override
    public Class<SqlRowsOutcome> outcomeType() {
        return SqlRowsOutcome.class;
    }

    @Override
    public Class<? extends Allowance> allowanceType() {
        return SqlDatabase.class;
    }

    @Override
    public String allowancesNoun() {
        return "SQL databases";
    }

    @Override
    public String allowancesSummary() {
        return "SQL databases with their statements, argument rules and read-only flags";
    }

    @Override
    public String targetsField() {
        return "sql";
    }

    @Override
    public Tool tool(Policy policy) {
        List<SqlDatabase> databases = policy.allowances(SqlDatabase.class);
        ObjectNode in = objectSchema();
        ObjectNode p = in.putObject("properties");
        ArrayNode names = p.putObject("database").put("type", "string").put("description", "A configured database").putArray("enum");
        TreeSet<String> statements = new TreeSet<>();
        boolean allReadOnly = true;
        StringBuilder help = new StringBuilder("Run one statement the operator configured, on one configured database, with"
                + " typed values for its :placeholders (bound as parameters; no SQL is accepted). Statements: ");
        for (SqlDatabase d : databases) {
            names.add(d.name());
            for (SqlStatementSpec s : d.statements()) {
                statements.add(s.name());
                allReadOnly &= s.readOnly();
                help.append(d.name()).append('/').append(s.name()).append(s.readOnly() ? "" : " (writes)");
                if (!s.params().isEmpty()) {
                    help.append(" args ").append(new TreeSet<>(s.params().keySet()));
                }
                help.append("; ");
            }
        }
        ArrayNode statementEnum = p.putObject("statement").put("type", "string")
                .put("description", "A statement configured for that database").putArray("enum");
        statements.forEach(statementEnum::add);
        ObjectNode argValue = JSON.objectNode();
        argValue.putArray("type").add("string").add("number").add("boolean");
        argValue.put("maxLength", MAX_ARGUMENT);
        p.putObject("args").put("type", "object").put("maxProperties", MAX_ENTRIES)
                .put("description", "Values for the statement's :placeholders, by name")
                .<ObjectNode>set("propertyNames", JSON.objectNode().put("maxLength", 64))
                .set("additionalProperties", argValue);
        in.putArray("required").add("database").add("statement");

        ObjectNode out = outputSchema();
        // The list's last "; " becomes ". " before the sentence on rows; the approval sentence brings its own leading space.
        boolean asks = databases.stream().flatMap(d -> d.statements().stream()).anyMatch(SqlStatementSpec::confirm);
        if (help.length() >= 2 && help.charAt(help.length() - 2) == ';') {
            help.setLength(help.length() - 2);
        }
        help.append(". ");
        help.append(ROWS);
        return new Tool(TOOL, "SQL statement", help.toString().trim() + (asks ? ToolCatalog.WAITS_FOR_A_HUMAN : ""), in, out,
                annotations(allReadOnly, !allReadOnly, allReadOnly, true), SqlQueryKind::bind);
    }

    /** What a result holds, the same for {@code sql_query} and every typed statement tool. */
    private static ObjectNode outputSchema() {
        ObjectNode out = objectSchema();
        ObjectNode o = out.putObject("properties");
        o.putObject("database").put("type", "string");
        o.putObject("statement").put("type", "string");
        ObjectNode column = o.putObject("columns").put("type", "array").putObject("items");
        column.put("type", "object").put("additionalProperties", false);
        ObjectNode columnProperties = column.putObject("properties");
        columnProperties.putObject("name").put("type", "string");
        columnProperties.putObject("type").put("type", "string");
        column.putArray("required").add("name").add("type");
        ObjectNode value = o.putObject("rows").put("type", "array").putObject("items").put("type", "array").putObject("items");
        value.putArray("type").add("string").add("number").add("boolean").add("null");
        o.putObject("rowCount").put("type", "integer").put("minimum", 0);
        o.putObject("truncated").put("type", "boolean");
        out.putArray("required").add("database").add("statement").add("columns").add("rows").add("rowCount").add("truncated");
        return out;
    }

    /** How the rows of a result are cut, told in every SQL tool's description. */
    private static final String ROWS = "Rows stop at the database's maxRows, at its maxResponseBytes of values as rendered"
            + " (escapes counted), or where the result is full; then truncated is true.";

    /**
     * One tool per statement whose config names a {@code tool}: its params as the input schema, read-only
     * and idempotent when the statement is read-only, destructive when it writes; a call is
     * {@code sql_query} on that database and statement with the same values.
     */
    @Override
    public List<Tool> typedTools(Policy policy) {
        List<Tool> tools = new java.util.ArrayList<>();
        for (SqlDatabase d : policy.allowances(SqlDatabase.class)) {
            for (SqlStatementSpec s : d.statements()) {
                s.tool().ifPresent(name -> tools.add(new Tool(name.name(), "SQL statement " + s.name() + " on " + d.name(),
                        "Run the statement " + s.name() + " on the database " + d.name() + ", "
                                + (s.readOnly() ? "read-only (in a read-only transaction)" : "which writes (committed)")
                                + ", its :placeholders bound from the arguments of the same names as typed parameters (no SQL is"
                                + " accepted). " + ROWS + (s.confirm() ? ToolCatalog.WAITS_FOR_A_HUMAN : "") + " The statement: " + s.sql(),
                        TypedTools.paramsSchema(s.params()), outputSchema(),
                        annotations(s.readOnly(), !s.readOnly(), s.readOnly(), true),
                        TypedTools.binding(typed -> TypedTools.named("database", d.name(), "statement", s.name(), typed),
                                SqlQueryKind::bind))));
            }
        }
        return List.copyOf(tools);
    }

    /**
     * Each argument as the agent typed it: a string is text, an integral number within 64 bits a whole
     * number, any other number the exact decimal it was written as, a boolean a truth value.
     */
    static Binding bind(JsonNode args) {
        Map<String, Argument> values = new LinkedHashMap<>();
        JsonNode a = args.get("args");
        if (a != null) {
            Iterator<Map.Entry<String, JsonNode>> it = a.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode v = e.getValue();
                String pointer = "/args/" + SchemaErrors.escape(e.getKey());
                if (v.isTextual()) {
                    values.put(e.getKey(), new Argument.Text(v.textValue()));
                } else if (v.isBoolean()) {
                    values.put(e.getKey(), new Argument.Bool(v.booleanValue()));
                } else if (v.isIntegralNumber() && v.canConvertToLong()) {
                    values.put(e.getKey(), new Argument.Whole(v.longValue()));
                } else if (v.isIntegralNumber() || v.isBigDecimal()) {
                    values.put(e.getKey(), new Argument.Decimal(v.decimalValue()));
                } else {
                    // A binary double would have rounded the number the agent wrote: refuse it rather than bind it.
                    return new Binding.Invalid(pointer, "must be a string, a number read exactly, or a boolean");
                }
            }
        }
        return new Binding.ToAction(new SqlQueryAction(args.get("database").textValue(), args.get("statement").textValue(), values));
    }

    /** Databases by name with their statements (SQL, params, read-only flag); no host, user or credential. */
    @Override
    public ArrayNode describeForAgent(Policy policy) {
        ArrayNode sql = JSON.arrayNode();
        for (SqlDatabase d : policy.allowances(SqlDatabase.class)) {
            ObjectNode n = sql.addObject();
            n.put("name", d.name());
            n.put("maxRows", d.maxRows());
            RateLimitShown.toAgent(n, d);
            ArrayNode statements = n.putArray("statements");
            for (SqlStatementSpec s : d.statements()) {
                ObjectNode sn = statements.addObject();
                sn.put("name", s.name());
                sn.put("sql", s.sql());
                sn.put("readOnly", s.readOnly());
                sn.put("confirm", s.confirm());
                sn.set("params", ParamSchema.of(s.params()));
                s.tool().ifPresent(t -> sn.put("tool", t.name()));
            }
        }
        return sql;
    }

    @Override
    public String describeForOperator(Policy policy) {
        StringBuilder b = new StringBuilder();
        for (SqlDatabase d : policy.allowances(SqlDatabase.class)) {
            b.append("sql database ").append(d.name()).append(": ").append(where(d)).append(" (").append(tls(d))
                    .append("; private addresses ").append(d.allowPrivateAddresses() ? "allowed" : "refused")
                    .append("; timeout ").append(d.timeout().toMillis()).append(" ms, at most ").append(d.maxRows())
                    .append(" rows and ").append(d.maxResponseBytes()).append(" bytes)");
            RateLimitShown.toOperator(b, d);
            b.append('\n');
            for (SqlStatementSpec s : d.statements()) {
                b.append("  statement ").append(s.name()).append(s.readOnly() ? " (read-only" : " (read-write")
                        .append(s.confirm() ? ", only with a human's approval" : "")
                        .append(s.tool().map(t -> ", also as tool " + t.name()).orElse("")).append("): ").append(s.sql()).append('\n');
                new TreeMap<>(s.params()).forEach((name, spec) -> b.append("    ").append(name).append(": ")
                        .append(operatorText(spec)).append('\n'));
            }
        }
        return b.toString();
    }

    private static String where(SqlDatabase d) {
        return d.user() + '@' + HostSyntax.inAuthority(d.host()) + ':' + d.port() + '/' + d.database();
    }

    private static String tls(SqlDatabase d) {
        if (d.tls().mode() == SqlDatabase.TlsMode.DISABLE) {
            return "TLS off (loopback only)";
        }
        return "TLS verify-full, " + d.tls().caFile().map(f -> "CA " + f).orElse("the JVM's trust store");
    }

    private static String operatorText(ParamSpec spec) {
        if (spec instanceof ParamSpec.IntegerParam i) {
            return "integer " + (i.minimum() == Long.MIN_VALUE ? "" : Long.toString(i.minimum())) + ".."
                    + (i.maximum() == Long.MAX_VALUE ? "" : Long.toString(i.maximum()));
        }
        if (spec instanceof ParamSpec.NumberParam d) {
            return "number " + d.minimum().map(BigDecimal::toPlainString).orElse("") + ".."
                    + d.maximum().map(BigDecimal::toPlainString).orElse("");
        }
        if (spec instanceof ParamSpec.BooleanParam) {
            return "boolean";
        }
        ParamSpec.StringParam s = (ParamSpec.StringParam) spec;
        return "string" + s.allowed().map(values -> " enum " + values).orElse("")
                + s.pattern().map(p -> " pattern " + p.pattern()).orElse("") + " maxLength " + s.maxLength();
    }

    @Override
    public ObjectNode render(SqlRowsOutcome r) {
        return render(r, r.rows().size());
    }

    /**
     * As {@link #render}, with only the leading rows that fit {@code maxRenderedBytes}, flagged
     * truncated, when all of them would not: the executor caps the rendered values at
     * {@code maxResponseBytes}, but the result carries them twice, and a large cap can pass the
     * gateway's.
     */
    @Override
    public ObjectNode renderWithin(SqlRowsOutcome r, long maxRenderedBytes) {
        ObjectNode all = render(r);
        long room = maxRenderedBytes - ToolResults.renderedSuccess(render(r, 0));
        int kept = 0;
        for (JsonNode row : all.get("rows")) {
            // The row's JSON in structuredContent, escaped once in the text item, and a comma in each.
            String json = row.toString();
            long cost = RenderedSize.ofUtf8(json) + RenderedSize.ofJsonString(json) - 2 + 2;
            if (cost > room) {
                break;
            }
            room -= cost;
            kept++;
        }
        return kept == r.rows().size() ? all : render(r, kept);
    }

    private ObjectNode render(SqlRowsOutcome r, int rowsKept) {
        boolean cut = rowsKept < r.rows().size();
        ObjectNode n = JSON.objectNode();
        n.put("database", r.database());
        n.put("statement", r.statement());
        ArrayNode columns = n.putArray("columns");
        for (SqlRowsOutcome.Column c : r.columns()) {
            columns.addObject().put("name", c.name()).put("type", c.type());
        }
        ArrayNode rows = n.putArray("rows");
        for (List<SqlValue> row : r.rows().subList(0, rowsKept)) {
            ArrayNode values = rows.addArray();
            row.forEach(v -> values.add(json(v)));
        }
        n.put("rowCount", cut ? rowsKept : r.rowCount());
        n.put("truncated", r.truncated() || cut);
        return n;
    }

    /**
     * One value as JSON: numbers as numbers when any JSON reader's double gets them back exactly, else
     * as their exact text; NaN and infinities as text; bytes as base64; dates and times ISO-8601.
     */
    static JsonNode json(SqlValue v) {
        if (v instanceof SqlValue.Null) {
            return JSON.nullNode();
        }
        if (v instanceof SqlValue.Whole w) {
            return Math.abs(w.value()) <= EXACT_IN_A_DOUBLE && w.value() != Long.MIN_VALUE
                    ? JSON.numberNode(w.value()) : JSON.textNode(w.text());
        }
        if (v instanceof SqlValue.Decimal d) {
            return survivesADouble(d.value()) ? DecimalNode.valueOf(d.value()) : JSON.textNode(d.text());
        }
        if (v instanceof SqlValue.Float f) {
            return Double.isFinite(f.value()) ? JSON.numberNode(f.value()) : JSON.textNode(f.text());
        }
        if (v instanceof SqlValue.Bool b) {
            return JSON.booleanNode(b.value());
        }
        return JSON.textNode(v.text()); // Text, Bytes (base64), Temporal (ISO-8601)
    }

    /** Whether reading the decimal into a double and printing that double gives back the same number. */
    private static boolean survivesADouble(BigDecimal value) {
        double d = value.doubleValue();
        return Double.isFinite(d) && new BigDecimal(Double.toString(d)).compareTo(value) == 0;
    }

    @Override
    public String explain(AuthorizedSqlStatement s) {
        SqlDatabase d = s.database();
        SqlStatementSpec spec = s.statement();
        StringJoiner values = new StringJoiner(", ");
        new TreeMap<>(s.action().args()).forEach((name, value) -> values.add(name + " = " + shown(value, spec.params().get(name))));
        return "would run on " + d.name() + " (" + where(d) + ", password from credential " + d.password().name() + ", " + tls(d)
                + "): statement " + spec.name() + ", " + (spec.readOnly() ? "read-only (in a read-only transaction)" : "read-write (committed)")
                + "\n  " + spec.sql()
                + (values.length() == 0 ? "\n  with no values" : "\n  with " + values + " (bound as parameters)")
                + "\n  limits: timeout " + d.timeout().toMillis() + " ms, at most " + d.maxRows() + " rows and "
                + d.maxResponseBytes() + " bytes of values";
    }

    /** A value as it will be bound: text quoted, a number param's value as the exact decimal. */
    private static String shown(Argument value, ParamSpec spec) {
        if (value instanceof Argument.Text t) {
            return JSON.textNode(t.value()).toString();
        }
        if (value instanceof Argument.Whole w) {
            return spec instanceof ParamSpec.NumberParam ? Long.toString(w.value()) + " (numeric)" : Long.toString(w.value());
        }
        if (value instanceof Argument.Decimal d) {
            return d.value().toPlainString();
        }
        return Boolean.toString(((Argument.Bool) value).value());
    }

    /**
     * The database, the statement's name and SQL, and each bound value by param name (a decimal as its
     * exact text); with {@code redactArguments}, only a digest of the values. Never the host, user or credential.
     */
    @Override
    public void journalIntent(AuthorizedSqlStatement s, ObjectNode row, boolean redactArguments) {
        SqlStatementSpec spec = s.statement();
        row.put("target", s.database().name());
        row.put("statement", spec.name());
        row.put("sql", spec.sql());
        String values = rendered(s.action().args(), spec);
        if (redactArguments) {
            row.put("preview", spec.name());
            row.put("argumentsSha256", Sha256.of(values.getBytes(StandardCharsets.UTF_8)));
        } else {
            ObjectNode bound = row.putObject("values");
            new TreeMap<>(s.action().args()).forEach((name, value) -> bound.set(name, journaled(value)));
            row.put("preview", spec.name() + values);
        }
    }

    @Override
    public void journalDenial(SqlQueryAction a, ObjectNode row, boolean redactArguments) {
        row.put("target", a.database());
        String values = rendered(a.args(), null);
        if (redactArguments) {
            row.put("refused", a.statement());
            row.put("argumentsSha256", Sha256.of(values.getBytes(StandardCharsets.UTF_8)));
        } else {
            row.put("refused", a.statement() + values);
        }
    }

    /** A value in an intent row: text as a string, a whole number as a number, a decimal as its exact text, a boolean. */
    private static JsonNode journaled(Argument value) {
        if (value instanceof Argument.Text t) {
            return JSON.textNode(t.value());
        }
        if (value instanceof Argument.Whole w) {
            return JSON.numberNode(w.value());
        }
        if (value instanceof Argument.Decimal d) {
            return JSON.textNode(d.value().toPlainString());
        }
        return JSON.booleanNode(((Argument.Bool) value).value());
    }

    /** The values by name, sorted, each as {@code " name=value"} (text quoted). */
    private static String rendered(Map<String, Argument> args, SqlStatementSpec spec) {
        StringBuilder b = new StringBuilder();
        new TreeMap<>(args).forEach((name, value) -> b.append(' ').append(name).append('=')
                .append(shown(value, spec == null ? null : spec.params().get(name))));
        return b.toString();
    }

    @Override
    public void journalOutcome(SqlRowsOutcome r, ObjectNode row) {
        row.put("rowCount", r.rowCount());
        row.put("truncated", r.truncated());
    }

    /**
     * Database, statement, and each value by its type: text a string, a whole number a number, a
     * boolean, a decimal {@code {"decimal": "1.50"}} (its exact text, scale kept).
     */
    @Override
    public ObjectNode asked(SqlQueryAction a) {
        ObjectNode n = JSON.objectNode();
        n.put("database", a.database());
        n.put("statement", a.statement());
        ObjectNode args = n.putObject("args");
        new TreeMap<>(a.args()).forEach((name, value) -> {
            if (value instanceof Argument.Decimal d) {
                args.putObject(name).put("decimal", d.value().toString());
            } else {
                args.set(name, journaled(value));
            }
        });
        return n;
    }

    @Override
    public Optional<SqlQueryAction> actionOf(JsonNode asked) {
        Optional<String> database = AskedFields.text(asked, "database");
        Optional<String> statement = AskedFields.text(asked, "statement");
        Optional<Map<String, Argument>> args = AskedFields.members(asked, "args", SqlQueryKind::argumentOf);
        if (database.isEmpty() || statement.isEmpty() || args.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new SqlQueryAction(database.get(), statement.get(), args.get()));
    }

    private static Optional<Argument> argumentOf(JsonNode v) {
        if (v.isTextual()) {
            return Optional.of(new Argument.Text(v.textValue()));
        }
        if (v.isBoolean()) {
            return Optional.of(new Argument.Bool(v.booleanValue()));
        }
        if (AskedFields.whole(v)) {
            return Optional.of(new Argument.Whole(v.longValue()));
        }
        if (v.isObject() && v.size() == 1 && v.path("decimal").isTextual()) {
            try {
                return Optional.of(new Argument.Decimal(new BigDecimal(v.get("decimal").textValue())));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }
}
