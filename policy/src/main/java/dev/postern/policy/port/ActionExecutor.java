package dev.postern.policy.port;

import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.outcome.Outcome;

/**
 * Performs the one external effect a permit authorizes. The only entry point takes a permit of
 * the executor's own type, so an executor can be handed neither raw JSON nor an unjudged request.
 *
 * <p>Implementations are thread-safe (calls run concurrently up to the session's limit), return
 * instead of throwing (every failure is an {@link dev.postern.policy.outcome.ExecutionFailure}
 * with a stable code), cause at most one effect per call, and stop when {@code cancellation} fires.
 * See docs/executor-contract.md for the numbered clauses.
 */
public interface ActionExecutor<P extends AuthorizedAction> extends AutoCloseable {

    /** The permit type this executor accepts; the dispatcher routes by it. */
    Class<P> permitType();

    Outcome execute(P permit, Cancellation cancellation);

    /** Releases pooled connections and threads; calls after close fail with EXECUTOR_FAILED. */
    @Override
    void close();
}
