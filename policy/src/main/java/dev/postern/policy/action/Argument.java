package dev.postern.policy.action;

import java.math.BigDecimal;
import java.util.Objects;

/**
 * A value for one placeholder of an operation the operator wrote (an SSH command's {@code {name}}, a
 * SQL statement's {@code :name}), typed as the agent sent it: text, a whole number, an exact decimal,
 * or a truth value. The one argument type of every kind; each kind's rules refuse the types its params
 * do not take (an SSH param is text or a whole number). A SQL executor binds it as a typed parameter,
 * never spliced into SQL text; an SSH command shell-quotes its {@link #render() rendering}.
 */
public sealed interface Argument {

    /** The value as text, as an argv placeholder shows it (before shell quoting). */
    String render();

    record Text(String value) implements Argument {
        public Text {
            Objects.requireNonNull(value, "value");
        }

        @Override
        public String render() {
            return value;
        }
    }

    record Whole(long value) implements Argument {
        @Override
        public String render() {
            return Long.toString(value);
        }
    }

    /** An exact decimal (a JSON number with a fraction or exponent); never a binary double. */
    record Decimal(BigDecimal value) implements Argument {
        public Decimal {
            Objects.requireNonNull(value, "value");
        }

        @Override
        public String render() {
            return value.toPlainString();
        }
    }

    record Bool(boolean value) implements Argument {
        @Override
        public String render() {
            return Boolean.toString(value);
        }
    }
}
