package dev.postern.policy.model;

import java.math.BigDecimal;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What one placeholder of an SSH command or SQL statement accepts: a JSON-Schema-like subset,
 * checked by the engine. A string param always has a length bound; a pattern must match the whole
 * value. SSH commands take strings and integers only; SQL statements take all four types.
 */
public sealed interface ParamSpec {

    record StringParam(Optional<Pattern> pattern, Optional<List<String>> allowed, int maxLength) implements ParamSpec {
        public StringParam {
            Objects.requireNonNull(pattern, "pattern");
            allowed = Objects.requireNonNull(allowed, "allowed").map(List::copyOf);
            if (maxLength < 1 || maxLength > 65536) {
                throw new IllegalArgumentException("maxLength must be 1..65536, got " + maxLength);
            }
        }
    }

    record IntegerParam(long minimum, long maximum) implements ParamSpec {
        public IntegerParam {
            if (minimum > maximum) {
                throw new IllegalArgumentException("minimum " + minimum + " exceeds maximum " + maximum);
            }
        }
    }

    /** An exact number (a JSON number, integral or not), with optional inclusive bounds. */
    record NumberParam(Optional<BigDecimal> minimum, Optional<BigDecimal> maximum) implements ParamSpec {
        public NumberParam {
            Objects.requireNonNull(minimum, "minimum");
            Objects.requireNonNull(maximum, "maximum");
            if (minimum.isPresent() && maximum.isPresent() && minimum.get().compareTo(maximum.get()) > 0) {
                throw new IllegalArgumentException("minimum " + minimum.get() + " exceeds maximum " + maximum.get());
            }
        }
    }

    /** A JSON {@code true} or {@code false}. */
    record BooleanParam() implements ParamSpec {
    }
}
