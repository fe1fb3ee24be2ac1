package dev.postern.app.samples;

import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import dev.postern.policy.model.TypedTool;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.outcome.SqlRowsOutcome;
import dev.postern.policy.outcome.SqlValue;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The SQL statement kind's samples: a database with one statement offered as a typed tool, rows of every
 * value type, 100 rows of control characters.
 */
public final class SqlQuerySamples implements KindSamples {

    @Override
    public Allowance exampleAllowance() {
        return new SqlDatabase("shop", "db.internal", 5432, "shop", "agent_ro", new CredentialRef("shop-db-password"),
                SqlDatabase.Tls.verifyFull(), false, Duration.ofSeconds(5), 500, 1_048_576,
                List.of(new SqlStatementSpec("order-by-id", "SELECT id, status, total FROM orders WHERE id = :id",
                        Map.of("id", new ParamSpec.IntegerParam(1, Long.MAX_VALUE)), true, false,
                        Optional.of(new TypedTool("shop__order_by_id")))));
    }

    @Override
    public Outcome outcome() {
        return new SqlRowsOutcome("shop", "order-by-id", List.of(new SqlRowsOutcome.Column("id", "int8"),
                new SqlRowsOutcome.Column("total", "numeric"), new SqlRowsOutcome.Column("raw", "bytea")),
                List.of(List.of(new SqlValue.Whole(1), new SqlValue.Decimal(new BigDecimal("12345678901234567890.01")),
                        new SqlValue.Bytes(new byte[] {(byte) 0xff, 0})),
                        List.of(new SqlValue.Null(), new SqlValue.Float(Double.NaN), new SqlValue.Bool(true))), 2, true);
    }

    @Override
    public Optional<Outcome> tooLargeForAResult() {
        return Optional.of(new SqlRowsOutcome("shop", "dump", List.of(new SqlRowsOutcome.Column("v", "text")),
                Collections.nCopies(100, List.of(new SqlValue.Text("\u0001".repeat(1000)))), 100, false));
    }
}
