package dev.postern.policy.outcome;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An action that did not complete: a stable code, a message fit for the agent (no secrets, and none of
 * what the policy hides from it: no address, port, user, file path or exception class; the configured
 * names of targets, hosts, databases and credentials are fine), the operator's {@code detail} (the
 * address, the exception chain, the server's own words; empty when the message says it all), and, when
 * the executor had read part of the result before it stopped (a {@code TIMEOUT} mid-command), that part
 * as the outcome a success would have been, with what was never received left empty (an
 * {@link SshExitOutcome} without exit status or signal). A partial is never itself a failure.
 *
 * <p>The partial rides on the failure, rather than a success type growing a {@code timedOut} flag,
 * so that every consumer that branches on failure (the journal, the dispatcher, the protocol's
 * {@code isError}) keeps seeing a timeout as one, while the bytes read so far still reach the agent.
 *
 * <p>The detail never reaches the agent: the protocol renders code, message and partial only, and the
 * journal's outcome row writes the detail masked. It is not among {@link #visibleParts()}.
 */
public record ExecutionFailure(FailureCode code, String message, Optional<Outcome> partial, String detail) implements Outcome {
    public ExecutionFailure {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(partial, "partial");
        Objects.requireNonNull(detail, "detail");
        if (partial.isPresent() && partial.get() instanceof ExecutionFailure) {
            throw new IllegalArgumentException("partial must be what was read before the failure, not another failure");
        }
    }

    /** A failure with nothing read before it and no more for the operator than the message says. */
    public ExecutionFailure(FailureCode code, String message) {
        this(code, message, Optional.empty(), "");
    }

    /** A failure with what was read before it and no more for the operator than the message says. */
    public ExecutionFailure(FailureCode code, String message, Optional<Outcome> partial) {
        this(code, message, partial, "");
    }

    /** This failure with {@code detail} for the operator's journal (never shown to the agent). */
    public ExecutionFailure withDetail(String detail) {
        return new ExecutionFailure(code, message, partial, detail);
    }

    /**
     * An exception and its causes in the operator's words: each one's simple class name and message,
     * joined by "; caused by ", at most 8 deep. For a detail, never for a message.
     */
    public static String chain(Throwable e) {
        StringBuilder b = new StringBuilder();
        Throwable t = e;
        for (int depth = 0; t != null && depth < 8; depth++, t = t.getCause() == t ? null : t.getCause()) {
            if (depth > 0) {
                b.append("; caused by ");
            }
            b.append(t.getClass().getSimpleName());
            String m = t.getMessage();
            if (m != null && !m.isBlank()) {
                b.append(": ").append(m);
            }
        }
        return b.toString();
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
