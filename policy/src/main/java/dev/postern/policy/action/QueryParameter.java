package dev.postern.policy.action;

import java.util.Objects;

/** One query parameter of an HTTP request, unencoded; the policy encodes it into the URL it permits. */
public record QueryParameter(String name, String value) {
    public QueryParameter {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
    }
}
