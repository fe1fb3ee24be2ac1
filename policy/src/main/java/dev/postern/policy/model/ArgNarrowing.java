package dev.postern.policy.model;

import dev.postern.policy.json.JsonValue;
import java.math.BigDecimal;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The operator's narrowing of one declared argument of an upstream tool: what the upstream would
 * accept, cut down further (DESIGN §4: {@code enum}, {@code const}, {@code pattern}, {@code maxLength},
 * {@code minimum}, {@code maximum}). The catalog adds these to the advertised schema, and the policy
 * checks them again on every call. A pattern is a Java regular expression that must match the whole
 * value (the schema's {@code pattern} is searched, so the advertised form is anchored).
 */
public record ArgNarrowing(
        Optional<List<JsonValue>> allowed,
        Optional<JsonValue> constant,
        Optional<Pattern> pattern,
        OptionalInt maxLength,
        Optional<BigDecimal> minimum,
        Optional<BigDecimal> maximum) {

    public ArgNarrowing {
        Objects.requireNonNull(allowed, "allowed");
        allowed = allowed.map(List::copyOf);
        Objects.requireNonNull(constant, "constant");
        Objects.requireNonNull(pattern, "pattern");
        Objects.requireNonNull(maxLength, "maxLength");
        Objects.requireNonNull(minimum, "minimum");
        Objects.requireNonNull(maximum, "maximum");
        if (allowed.isPresent() && allowed.get().isEmpty()) {
            throw new IllegalArgumentException("enum must list at least one value");
        }
        if (maxLength.isPresent() && maxLength.getAsInt() < 0) {
            throw new IllegalArgumentException("maxLength must not be negative");
        }
        if (minimum.isPresent() && maximum.isPresent() && minimum.get().compareTo(maximum.get()) > 0) {
            throw new IllegalArgumentException("minimum is above maximum");
        }
        if (allowed.isEmpty() && constant.isEmpty() && pattern.isEmpty() && maxLength.isEmpty() && minimum.isEmpty()
                && maximum.isEmpty()) {
            throw new IllegalArgumentException("a narrowing needs at least one of enum, const, pattern, maxLength, minimum, maximum");
        }
    }

    /** A pattern compiled for {@link #pattern}, or an IllegalArgumentException saying why it is no pattern. */
    public static Pattern compile(String regex) {
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("pattern is not a valid regular expression: " + e.getDescription());
        }
    }
}
