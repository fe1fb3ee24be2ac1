package dev.postern.policy.port;

import java.math.BigDecimal;
import java.util.Optional;

/**
 * Progress of one running call, passed to the client under its own progress token (MCP
 * {@code notifications/progress}). An executor reports only what its effect itself reported (an
 * upstream server's progress); the message is shown to the agent, so it is masked first. Thread-safe.
 */
public interface ProgressSink {
    /** Drops everything: the client gave no progress token. */
    ProgressSink NONE = (progress, total, message) -> { };

    void progress(BigDecimal progress, Optional<BigDecimal> total, Optional<String> message);
}
