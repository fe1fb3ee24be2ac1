package dev.postern.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.postern.policy.action.Argument;
import dev.postern.policy.action.Argument.Bool;
import dev.postern.policy.action.Argument.Decimal;
import dev.postern.policy.action.Argument.Text;
import dev.postern.policy.action.Argument.Whole;
import dev.postern.policy.action.SqlQueryAction;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The SQL rules of DESIGN §4 through {@link PolicyEngine#decide}: lookup, exact types, bounds, binding order. */
class SqlRulesTest {
    private static final SqlDatabase SHOP = new SqlDatabase("shop", "db.internal", 5432, "shop", "agent_ro",
            new CredentialRef("shop-pw"), SqlDatabase.Tls.verifyFull(), false, Duration.ofSeconds(5), 500, 1 << 20,
            List.of(new SqlStatementSpec("by-id", "SELECT * FROM orders WHERE id = :id", Map.of("id", new ParamSpec.IntegerParam(1, 1000))),
                    new SqlStatementSpec("search", "SELECT * FROM orders WHERE status = :status AND total >= :min AND paid = :paid AND note LIKE :note || '%' AND total < :min * 10",
                            Map.of("status", new ParamSpec.StringParam(Optional.empty(), Optional.of(List.of("open", "closed")), 16),
                                    "min", new ParamSpec.NumberParam(Optional.of(BigDecimal.ZERO), Optional.of(new BigDecimal("99.99"))),
                                    "paid", new ParamSpec.BooleanParam(),
                                    "note", new ParamSpec.StringParam(Optional.of(Pattern.compile("[a-z ]*")), Optional.empty(), 5))),
                    new SqlStatementSpec("cancel", "UPDATE orders SET status = 'cancelled' WHERE id = :id",
                            Map.of("id", new ParamSpec.IntegerParam(1, Long.MAX_VALUE)), false, true)));
    private static final PolicyEngine ENGINE = new PolicyEngine(Policy.of(SHOP));

    private static Map<String, Argument> search(Argument min) {
        return Map.of("status", new Text("open"), "min", min, "paid", new Bool(true), "note", new Text("ab"));
    }

    @Test
    void aPermitCarriesTheJdbcTextAndTheValuesInPlaceholderOrderTypedAsDeclared() {
        Decision d = ENGINE.decide(new SqlQueryAction("shop", "search", search(new Whole(5))));
        AuthorizedSqlStatement permit = assertInstanceOf(AuthorizedSqlStatement.class,
                assertInstanceOf(Decision.Permit.class, d).permit());
        assertEquals("SELECT * FROM orders WHERE status = ? AND total >= ? AND paid = ? AND note LIKE ? || '%' AND total < ? * 10",
                permit.jdbcSql());
        assertEquals(List.of(new Text("open"), new Decimal(BigDecimal.valueOf(5)), new Bool(true), new Text("ab"),
                new Decimal(BigDecimal.valueOf(5))), permit.boundValues());
        assertEquals("sql.statement:shop.search", permit.rule());
        assertEquals(SHOP, permit.database());
    }

    @Test
    void aWriteStatementKeepsItsFlags() {
        PendingApproval pending = assertInstanceOf(Decision.ApprovalRequired.class, ENGINE.decide(
                new SqlQueryAction("shop", "cancel", Map.of("id", new Whole(7))))).pending();
        AuthorizedSqlStatement permit = assertInstanceOf(AuthorizedSqlStatement.class,
                pending.grant(new HumanApproval(pending.digest(), "test")).permit());
        assertEquals(false, permit.statement().readOnly());
        assertEquals(true, permit.statement().confirm());
        assertEquals(List.of(new Whole(7)), permit.boundValues());
    }

    static Stream<Arguments> denied() {
        return Stream.of(
                arguments(new SqlQueryAction("nope", "by-id", Map.of("id", new Whole(1))), "sql.database"),
                arguments(new SqlQueryAction("shop", "DROP TABLE orders", Map.of()), "sql.statement"),
                arguments(new SqlQueryAction("shop", "by-id", Map.of()), "sql.args.missing"),
                arguments(new SqlQueryAction("shop", "by-id", Map.of("id", new Whole(1), "x", new Whole(1))), "sql.args.unknown"),
                arguments(new SqlQueryAction("shop", "by-id", Map.of("id", new Text("1"))), "sql.args.type"),
                arguments(new SqlQueryAction("shop", "by-id", Map.of("id", new Decimal(BigDecimal.ONE))), "sql.args.type"),
                arguments(new SqlQueryAction("shop", "by-id", Map.of("id", new Decimal(new BigDecimal("92233720368547758070")))),
                        "sql.args.range"),
                arguments(new SqlQueryAction("shop", "by-id", Map.of("id", new Bool(true))), "sql.args.type"),
                arguments(new SqlQueryAction("shop", "by-id", Map.of("id", new Whole(0))), "sql.args.range"),
                arguments(new SqlQueryAction("shop", "by-id", Map.of("id", new Whole(1001))), "sql.args.range"),
                arguments(new SqlQueryAction("shop", "search", search(new Text("5"))), "sql.args.type"),
                arguments(new SqlQueryAction("shop", "search", search(new Decimal(new BigDecimal("99.991")))), "sql.args.range"),
                arguments(new SqlQueryAction("shop", "search", search(new Decimal(new BigDecimal("-0.01")))), "sql.args.range"),
                arguments(new SqlQueryAction("shop", "search", search(new Decimal(new BigDecimal("1e-2000")))), "sql.args.range"),
                arguments(new SqlQueryAction("shop", "search", Map.of("status", new Text("open"), "min", new Whole(1),
                        "paid", new Text("true"), "note", new Text("ab"))), "sql.args.type"),
                arguments(new SqlQueryAction("shop", "search", Map.of("status", new Text("gone"), "min", new Whole(1),
                        "paid", new Bool(false), "note", new Text("ab"))), "sql.args.enum"),
                arguments(new SqlQueryAction("shop", "search", Map.of("status", new Text("open"), "min", new Whole(1),
                        "paid", new Bool(false), "note", new Text("a;b"))), "sql.args.pattern"),
                arguments(new SqlQueryAction("shop", "search", Map.of("status", new Text("open"), "min", new Whole(1),
                        "paid", new Bool(false), "note", new Text("abcdef"))), "sql.args.length"),
                arguments(new SqlQueryAction("shop", "search", Map.of("status", new Text("open"), "min", new Whole(1),
                        "paid", new Bool(false), "note", new Text("a\0"))), "sql.args.nul"));
    }

    @ParameterizedTest
    @MethodSource("denied")
    void whatTheStatementDoesNotDeclareIsDenied(SqlQueryAction action, String rule) {
        assertEquals(rule, assertInstanceOf(Decision.Deny.class, ENGINE.decide(action)).rule());
    }

    @Test
    void aPolicyWithoutDatabasesDeniesEverySqlQuery() {
        Decision d = new PolicyEngine(Policy.denyAll()).decide(new SqlQueryAction("shop", "by-id", Map.of("id", new Whole(1))));
        assertEquals("sql.database", assertInstanceOf(Decision.Deny.class, d).rule());
    }
}
