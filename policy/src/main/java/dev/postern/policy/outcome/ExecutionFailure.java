package dev.postern.policy.outcome;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An action that did not complete: a stable code, a message fit for the agent (no secrets), and, when
 * the executor had read part of the result before it stopped (a {@code TIMEOUT} mid-command), that part
 * as the outcome a success would have been, with what was never received left empty (an
 * {@link SshExitOutcome} without exit status or signal). A partial is never itself a failure.
 *
 * <p>The partial rides on the failure, rather than a success type growing a {@code timedOut} flag,
 * so that every consumer that branches on failure (the journal, the dispatcher, the protocol's
 * {@code isError}) keeps seeing a timeout as one, while the bytes read so far still reach the agent.
 */
public record ExecutionFailure(FailureCode code, String message, Optional<Outcome> partial) implements Outcome {
    public ExecutionFailure {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(partial, "partial");
        if (partial.isPresent() && partial.get() instanceof ExecutionFailure) {
            throw new IllegalArgumentException("partial must be what was read before the failure, not another failure");
        }
    }

    /** A failure with nothing read before it. */
    public ExecutionFailure(FailureCode code, String message) {
        this(code, message, Optional.empty());
    }

    /** A partial result (what a timed-out call read so far) is capped like any output. */
    @Override
    public List<CapturedStream> streams() {
        return partial.map(Outcome::streams).orElse(List.of());
    }

    @Override
    public List<byte[]> visibleParts() {
        List<byte[]> parts = new java.util.ArrayList<>();
        parts.add(code.name().getBytes(StandardCharsets.UTF_8));
        parts.add(message.getBytes(StandardCharsets.UTF_8));
        partial.ifPresent(p -> parts.addAll(p.visibleParts()));
        return parts;
    }
}
