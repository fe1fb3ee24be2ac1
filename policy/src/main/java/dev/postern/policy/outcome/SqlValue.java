package dev.postern.policy.outcome;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;

/**
 * One value of a result row, typed as the database sent it: SQL NULL, text, a whole number, an exact
 * decimal (numeric, and whole numbers past a long), a binary float, a truth value, bytes (bytea), or a
 * date/time. A type PostgreSQL has no closer match for here (json, uuid, arrays, intervals...) comes
 * as the server's text for it. {@link #text()} is the value's plain text form (numbers in full,
 * bytes as base64, times ISO-8601), which also measures it against the byte cap.
 */
public sealed interface SqlValue {

    /** The value as plain text; SQL NULL as {@code null}. */
    String text();

    /** SQL NULL. */
    record Null() implements SqlValue {
        @Override
        public String text() {
            return null;
        }
    }

    record Text(String value) implements SqlValue {
        public Text {
            Objects.requireNonNull(value, "value");
        }

        @Override
        public String text() {
            return value;
        }
    }

    record Whole(long value) implements SqlValue {
        @Override
        public String text() {
            return Long.toString(value);
        }
    }

    /** An exact decimal: kept whole, never rounded to a double. */
    record Decimal(BigDecimal value) implements SqlValue {
        public Decimal {
            Objects.requireNonNull(value, "value");
        }

        @Override
        public String text() {
            return value.toPlainString();
        }
    }

    /** A real or double precision value; may be NaN or infinite, as PostgreSQL allows. */
    record Float(double value) implements SqlValue {
        @Override
        public String text() {
            return Double.toString(value);
        }
    }

    record Bool(boolean value) implements SqlValue {
        @Override
        public String text() {
            return Boolean.toString(value);
        }
    }

    record Bytes(byte[] value) implements SqlValue {
        public Bytes {
            value = Objects.requireNonNull(value, "value").clone();
        }

        @Override
        public byte[] value() {
            return value.clone();
        }

        @Override
        public String text() {
            return Base64.getEncoder().encodeToString(value);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Bytes other && Arrays.equals(value, other.value);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(value);
        }

        @Override
        public String toString() {
            return "Bytes[" + value.length + " bytes]";
        }
    }

    /**
     * A date, time or timestamp: one of {@link LocalDate}, {@link LocalTime}, {@link OffsetTime},
     * {@link LocalDateTime} (timestamp) or {@link OffsetDateTime} (timestamptz, in UTC).
     */
    record Temporal(java.time.temporal.Temporal value) implements SqlValue {
        public Temporal {
            Objects.requireNonNull(value, "value");
            if (!(value instanceof LocalDate || value instanceof LocalTime || value instanceof OffsetTime
                    || value instanceof LocalDateTime || value instanceof OffsetDateTime)) {
                throw new IllegalArgumentException("not a SQL date/time type: " + value.getClass().getName());
            }
        }

        @Override
        public String text() {
            return value.toString();
        }
    }
}
