package dev.postern.policy.outcome;

import java.util.Objects;

/** An action that did not complete: a stable code and a message fit for the agent (no secrets). */
public record ExecutionFailure(FailureCode code, String message) implements Outcome {
    public ExecutionFailure {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
    }
}
