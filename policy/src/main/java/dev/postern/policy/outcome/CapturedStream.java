package dev.postern.policy.outcome;

import java.util.Objects;

/** One output stream an executor captured for an outcome: its name, bytes read up to the cap, whether it was cut there. */
public record CapturedStream(String name, byte[] bytes, boolean truncated) {
    public CapturedStream {
        Objects.requireNonNull(name, "name");
        bytes = Objects.requireNonNull(bytes, "bytes").clone();
    }

    @Override
    public byte[] bytes() {
        return bytes.clone();
    }
}
