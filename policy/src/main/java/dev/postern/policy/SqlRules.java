package dev.postern.policy;

import dev.postern.policy.model.Printable;
import dev.postern.policy.Decision.Deny;
import dev.postern.policy.Decision.Permit;
import dev.postern.policy.action.Argument;
import dev.postern.policy.action.SqlQueryAction;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import dev.postern.policy.model.SqlText;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The SQL rules of DESIGN §4: a configured database, one of its configured statements, and exactly
 * the statement's params, each of its declared type (an integer param takes only a whole number, a
 * number param a whole or decimal one) and valid against its spec. The values are put in the order
 * of the statement's placeholders, typed as declared, ready to bind.
 */
final class SqlRules implements Rules<SqlQueryAction> {
    /** Digits a decimal argument may carry; PostgreSQL's numeric holds more, an agent needs fewer. */
    static final int MAX_DECIMAL_DIGITS = 1000;

    private final Policy policy;

    SqlRules(Policy policy) {
        this.policy = policy;
    }

    @Override
    public Class<SqlQueryAction> actionType() {
        return SqlQueryAction.class;
    }

    @Override
    public Decision decide(SqlQueryAction request) {
        Optional<SqlDatabase> database = policy.allowances(SqlDatabase.class).stream()
                .filter(d -> d.name().equals(request.database())).findFirst();
        if (database.isEmpty()) {
            return new Deny("sql.database", "no database named \"" + Printable.shown(request.database()) + "\" is configured");
        }
        Optional<SqlStatementSpec> spec = database.get().statement(request.statement());
        if (spec.isEmpty()) {
            return new Deny("sql.statement", "database " + request.database() + " has no statement named \""
                    + Printable.shown(request.statement()) + '"');
        }
        Map<String, ParamSpec> params = spec.get().params();
        ParamChecks checks = new ParamChecks("sql", "statement " + request.statement());
        Optional<Deny> badNames = checks.names(params.keySet(), request.args().keySet());
        if (badNames.isPresent()) {
            return badNames.get();
        }
        Map<String, Argument> typed = new TreeMap<>();
        for (var e : ParamChecks.inOrder(params).entrySet()) {
            Object checked = check(checks, e.getKey(), e.getValue(), request.args().get(e.getKey()));
            if (checked instanceof Deny deny) {
                return deny;
            }
            typed.put(e.getKey(), (Argument) checked);
        }
        SqlText text = spec.get().text();
        List<Argument> bound = new ArrayList<>();
        for (String placeholder : text.placeholders()) {
            bound.add(typed.get(placeholder));
        }
        String rule = "sql.statement:" + database.get().name() + "." + spec.get().name();
        SqlDatabase on = database.get();
        SqlStatementSpec statement = spec.get();
        if (statement.confirm()) {
            List<ShownAction.Field> fields = new ArrayList<>(List.of(
                    new ShownAction.Field("database", on.name()),
                    new ShownAction.Field("statement", statement.name()),
                    new ShownAction.Field("sql", statement.sql())));
            typed.forEach((name, value) -> fields.add(new ShownAction.Field("value " + name, shown(value))));
            return new Decision.ApprovalRequired(new PendingApproval(request, rule,
                    "statement " + statement.name() + " on " + on.name() + " needs a human's approval",
                    new ShownAction(SqlQueryAction.TOOL, fields),
                    () -> new AuthorizedSqlStatement(request, on, statement, text.jdbcSql(), bound, rule)));
        }
        return new Permit(new AuthorizedSqlStatement(request, on, statement, text.jdbcSql(), bound, rule));
    }

    /** A value as a human approves it: text as a JSON string (quoted, escaped), numbers exact, booleans as words. */
    private static String shown(Argument value) {
        if (value instanceof Argument.Text t) {
            StringBuilder b = new StringBuilder("\"");
            t.value().codePoints().forEach(c -> {
                if (c == '"' || c == '\\') {
                    b.append('\\').appendCodePoint(c);
                } else if (Printable.deceives(c)) {
                    b.append(String.format("\\u%04x", c));
                } else {
                    b.appendCodePoint(c);
                }
            });
            return b.append('"').toString();
        }
        if (value instanceof Argument.Whole w) {
            return Long.toString(w.value());
        }
        if (value instanceof Argument.Decimal d) {
            return d.value().toPlainString();
        }
        return Boolean.toString(((Argument.Bool) value).value());
    }

    /** The value to bind, typed as {@code spec} declares, or the denial. */
    private static Object check(ParamChecks checks, String name, ParamSpec spec, Argument value) {
        if (spec instanceof ParamSpec.IntegerParam p) {
            if (value instanceof Argument.Decimal d && d.value().stripTrailingZeros().scale() <= 0
                    && (d.value().compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) < 0 || d.value().compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0)) {
                // A whole number past 64 bits is out of any integer param's range, not of the wrong type.
                return checks.outOfRange(name, p);
            }
            if (!(value instanceof Argument.Whole w)) {
                return checks.type(name, "an integer");
            }
            return checks.whole(name, p, w.value()).map(Object.class::cast).orElse(w);
        }
        if (spec instanceof ParamSpec.NumberParam p) {
            BigDecimal number;
            if (value instanceof Argument.Whole w) {
                number = BigDecimal.valueOf(w.value());
            } else if (value instanceof Argument.Decimal d) {
                number = d.value();
            } else {
                return checks.type(name, "a number");
            }
            if (number.precision() > MAX_DECIMAL_DIGITS || Math.abs((long) number.scale()) > MAX_DECIMAL_DIGITS) {
                return checks.range(name, "has more than " + MAX_DECIMAL_DIGITS + " digits");
            }
            if (p.minimum().isPresent() && number.compareTo(p.minimum().get()) < 0
                    || p.maximum().isPresent() && number.compareTo(p.maximum().get()) > 0) {
                return checks.range(name, "must be in " + p.minimum().map(BigDecimal::toPlainString).orElse("") + ".."
                        + p.maximum().map(BigDecimal::toPlainString).orElse(""));
            }
            return new Argument.Decimal(number);
        }
        if (spec instanceof ParamSpec.BooleanParam) {
            return value instanceof Argument.Bool b ? b : checks.type(name, "a boolean");
        }
        ParamSpec.StringParam p = (ParamSpec.StringParam) spec;
        if (!(value instanceof Argument.Text t)) {
            return checks.type(name, "a string");
        }
        return checks.text(name, p, t.value()).map(Object.class::cast).orElse(t);
    }
}
