package dev.postern.policy.model;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What one placeholder of an SSH command accepts: a JSON-Schema-like subset, checked by the
 * engine. A string param always has a length bound; a pattern must match the whole value.
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
}
