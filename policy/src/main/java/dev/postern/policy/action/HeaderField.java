package dev.postern.policy.action;

import java.util.Objects;

/** One HTTP header as asked for or received; name and value unjudged here (the policy judges them). */
public record HeaderField(String name, String value) {
    public HeaderField {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
    }
}
