package dev.postern.policy.action;

import java.util.Objects;

/** A value for one {@code {placeholder}} of a configured SSH command: text or a whole number. */
public sealed interface SshArgument {

    /** The text the placeholder is replaced with, before shell quoting. */
    String render();

    record Text(String value) implements SshArgument {
        public Text {
            Objects.requireNonNull(value, "value");
        }

        @Override
        public String render() {
            return value;
        }
    }

    record Whole(long value) implements SshArgument {
        @Override
        public String render() {
            return Long.toString(value);
        }
    }
}
