package dev.postern.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.postern.policy.action.Argument;
import dev.postern.policy.action.Argument.Bool;
import dev.postern.policy.action.Argument.Decimal;
import dev.postern.policy.action.Argument.Text;
import dev.postern.policy.action.SqlQueryAction;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The exact edges of SQL param checks: inclusive number bounds, the digit limit, 64-bit integers, and values as a human approves them. */
class SqlRulesBoundariesTest {
    private static final SqlDatabase DB = new SqlDatabase("shop", "db.internal", 5432, "shop", "agent",
            new CredentialRef("pw"), SqlDatabase.Tls.verifyFull(), false, Duration.ofSeconds(5), 500, 1 << 20,
            List.of(new SqlStatementSpec("bounded", "SELECT :n", Map.of("n",
                            new ParamSpec.NumberParam(Optional.of(BigDecimal.ZERO), Optional.of(new BigDecimal("99.99"))))),
                    new SqlStatementSpec("free", "SELECT :n", Map.of("n", new ParamSpec.NumberParam(Optional.empty(), Optional.empty()))),
                    new SqlStatementSpec("whole", "SELECT :n", Map.of("n", new ParamSpec.IntegerParam(Long.MIN_VALUE, Long.MAX_VALUE))),
                    new SqlStatementSpec("note", "INSERT INTO notes VALUES (:t, :n, :b)", Map.of(
                            "t", new ParamSpec.StringParam(Optional.empty(), Optional.empty(), 100),
                            "n", new ParamSpec.NumberParam(Optional.empty(), Optional.empty()),
                            "b", new ParamSpec.BooleanParam()), false, true)));
    private static final PolicyEngine ENGINE = new PolicyEngine(Policy.of(DB));

    private static String ruleOf(String statement, Argument n) {
        Decision d = ENGINE.decide(new SqlQueryAction("shop", statement, Map.of("n", n)));
        return d instanceof Decision.Deny deny ? deny.rule() : "permitted";
    }

    private static Decimal decimal(String value) {
        return new Decimal(new BigDecimal(value));
    }

    @Test
    void aNumberParamsBoundsAreInclusive() {
        assertEquals("permitted", ruleOf("bounded", decimal("0")));
        assertEquals("permitted", ruleOf("bounded", decimal("99.99")));
        assertEquals("sql.args.range", ruleOf("bounded", decimal("-0.001")));
        assertEquals("sql.args.range", ruleOf("bounded", decimal("99.991")));
    }

    @Test
    void aNumberOfExactlyTheDigitLimitIsTakenAndOneDigitMoreIsNot() {
        String digits = "9".repeat(SqlRules.MAX_DECIMAL_DIGITS);
        assertEquals("permitted", ruleOf("free", decimal(digits)));
        assertEquals("sql.args.range", ruleOf("free", decimal(digits + "9")));
        assertEquals("permitted", ruleOf("free", new Decimal(BigDecimal.ONE.scaleByPowerOfTen(-SqlRules.MAX_DECIMAL_DIGITS))));
        assertEquals("sql.args.range", ruleOf("free", new Decimal(BigDecimal.ONE.scaleByPowerOfTen(-SqlRules.MAX_DECIMAL_DIGITS - 1))));
        assertEquals("permitted", ruleOf("free", new Decimal(BigDecimal.ONE.scaleByPowerOfTen(SqlRules.MAX_DECIMAL_DIGITS))));
        assertEquals("sql.args.range", ruleOf("free", new Decimal(BigDecimal.ONE.scaleByPowerOfTen(SqlRules.MAX_DECIMAL_DIGITS + 1))));
    }

    @Test
    void anIntegralDecimalForAnIntegerParamIsOfTheWrongTypeWithin64BitsAndOutOfRangePastThem() {
        BigInteger max = BigInteger.valueOf(Long.MAX_VALUE);
        BigInteger min = BigInteger.valueOf(Long.MIN_VALUE);
        assertEquals("sql.args.type", ruleOf("whole", new Decimal(new BigDecimal(max))));
        assertEquals("sql.args.range", ruleOf("whole", new Decimal(new BigDecimal(max.add(BigInteger.ONE)))));
        assertEquals("sql.args.type", ruleOf("whole", new Decimal(new BigDecimal(min))));
        assertEquals("sql.args.range", ruleOf("whole", new Decimal(new BigDecimal(min.subtract(BigInteger.ONE)))));
    }

    @Test
    void aStringParamGivenANumberAndABooleanParamGivenTextAreOfTheWrongType() {
        Decision number = ENGINE.decide(new SqlQueryAction("shop", "note", Map.of(
                "t", decimal("1"), "n", decimal("1"), "b", new Bool(true))));
        Decision text = ENGINE.decide(new SqlQueryAction("shop", "note", Map.of(
                "t", new Text("x"), "n", decimal("1"), "b", new Text("true"))));
        assertEquals("argument t must be a string", assertInstanceOf(Decision.Deny.class, number).reason());
        assertEquals("argument b must be a boolean", assertInstanceOf(Decision.Deny.class, text).reason());
    }

    @Test
    void theHumanSeesTextQuotedWithControlCharactersEscapedNumbersExactAndBooleansAsWords() {
        String text = "a\u001f \u007f\u0080\u009f\u00a0\"\\\u2028\u2029\u202e~";
        Decision d = ENGINE.decide(new SqlQueryAction("shop", "note", Map.of(
                "t", new Text(text), "n", decimal("1.50"), "b", new Bool(false))));
        ShownAction shown = assertInstanceOf(Decision.ApprovalRequired.class, d).pending().shown();
        assertEquals(List.of(
                        new ShownAction.Field("database", "shop"),
                        new ShownAction.Field("statement", "note"),
                        new ShownAction.Field("sql", "INSERT INTO notes VALUES (:t, :n, :b)"),
                        new ShownAction.Field("value b", "false"),
                        new ShownAction.Field("value n", "1.50"),
                        new ShownAction.Field("value t", "\"a\\u001f \\u007f\\u0080\\u009f\u00a0\\\"\\\\\\u2028\\u2029\\u202e~\"")),
                shown.fields());
    }
}
