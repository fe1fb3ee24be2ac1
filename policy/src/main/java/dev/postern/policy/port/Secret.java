package dev.postern.policy.port;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * A credential's value. Its {@code toString} never shows it, so a secret that reaches a log line
 * by mistake shows as {@code Secret[****]}. Only executors call {@link #reveal()}.
 */
public final class Secret {
    private final byte[] value;

    public Secret(byte[] value) {
        this.value = Objects.requireNonNull(value, "value").clone();
        if (value.length == 0) {
            throw new IllegalArgumentException("a secret must not be empty");
        }
    }

    public static Secret of(String value) {
        return new Secret(value.getBytes(StandardCharsets.UTF_8));
    }

    public byte[] reveal() {
        return value.clone();
    }

    public String revealAsString() {
        return new String(value, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "Secret[****]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Secret other && Arrays.equals(value, other.value);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(value);
    }
}
