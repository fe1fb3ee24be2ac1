package dev.postern.policy.action;

import java.math.BigDecimal;
import java.util.Objects;

/**
 * A value for one {@code :placeholder} of a configured SQL statement, typed as the agent sent it:
 * text, a whole number, an exact decimal, or a truth value. The executor binds it as a typed
 * parameter; it is never spliced into SQL text.
 */
public sealed interface SqlArgument {

    record Text(String value) implements SqlArgument {
        public Text {
            Objects.requireNonNull(value, "value");
        }
    }

    record Whole(long value) implements SqlArgument {
    }

    /** An exact decimal (a JSON number with a fraction or exponent); never a binary double. */
    record Decimal(BigDecimal value) implements SqlArgument {
        public Decimal {
            Objects.requireNonNull(value, "value");
        }
    }

    record Bool(boolean value) implements SqlArgument {
    }
}
