package dev.postern.app;

import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.ActionExecutor;
import dev.postern.policy.port.Cancellation;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Routes a permit to the executor for its type; the only caller of
 * {@link ActionExecutor#execute} (an ArchUnit rule keeps it so). An executor that throws despite its
 * contract yields EXECUTOR_FAILED rather than a broken session. Immutable; thread-safe.
 */
public final class Dispatcher implements AutoCloseable {
    private final Map<Class<?>, ActionExecutor<?>> byPermitType = new HashMap<>();

    public Dispatcher(List<ActionExecutor<?>> executors) {
        for (ActionExecutor<?> e : executors) {
            if (byPermitType.put(e.permitType(), e) != null) {
                throw new IllegalArgumentException("two executors for " + e.permitType().getSimpleName());
            }
        }
    }

    public Outcome dispatch(AuthorizedAction permit, Cancellation cancellation) {
        ActionExecutor<?> executor = byPermitType.get(permit.getClass());
        if (executor == null) {
            return new ExecutionFailure(FailureCode.EXECUTOR_FAILED, "no executor handles " + permit.getClass().getSimpleName());
        }
        try {
            return invoke(executor, permit, cancellation);
        } catch (RuntimeException e) {
            return new ExecutionFailure(FailureCode.EXECUTOR_FAILED, "executor failed: " + e.getClass().getSimpleName());
        }
    }

    private static <P extends AuthorizedAction> Outcome invoke(ActionExecutor<P> executor, AuthorizedAction permit,
            Cancellation cancellation) {
        return executor.execute(executor.permitType().cast(permit), cancellation);
    }

    @Override
    public void close() {
        byPermitType.values().forEach(ActionExecutor::close);
    }
}
