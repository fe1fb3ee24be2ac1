package dev.postern.app;

import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.LiveTools;
import java.util.function.BiConsumer;

import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.ActionExecutor;
import dev.postern.policy.port.Cancellation;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Routes a permit to the executor for its type; the only caller of
 * {@link ActionExecutor#execute} (an ArchUnit rule keeps it so). An executor may be built on the
 * first permit of its type ({@link OnFirstUse}), so a session that never sends an SSH command never
 * loads an SSH client. An executor that throws despite its contract, or cannot be built, yields
 * EXECUTOR_FAILED rather than a broken session. Thread-safe.
 */
public final class Dispatcher implements AutoCloseable {
    private final Map<Class<?>, OnFirstUse<?>> byPermitType;

    /** A dispatcher over executors that already exist. */
    public Dispatcher(List<ActionExecutor<?>> executors) {
        this(byPermitType(executors.stream().<OnFirstUse<?>>map(OnFirstUse::built).toList()));
    }

    private Dispatcher(Map<Class<?>, OnFirstUse<?>> byPermitType) {
        this.byPermitType = byPermitType;
    }

    /** A dispatcher whose executors are each built on the first permit of their type. */
    public static Dispatcher onFirstUse(List<OnFirstUse<?>> executors) {
        return new Dispatcher(byPermitType(executors));
    }

    private static Map<Class<?>, OnFirstUse<?>> byPermitType(List<OnFirstUse<?>> executors) {
        Map<Class<?>, OnFirstUse<?>> map = new HashMap<>();
        for (OnFirstUse<?> e : executors) {
            if (map.put(e.permitType, e) != null) {
                throw new IllegalArgumentException("two executors for " + e.permitType.getSimpleName());
            }
        }
        return map;
    }

    public Outcome dispatch(AuthorizedAction permit, Cancellation cancellation) {
        OnFirstUse<?> slot = byPermitType.get(permit.getClass());
        if (slot == null) {
            return new ExecutionFailure(FailureCode.EXECUTOR_FAILED, "no executor handles this kind of call")
                    .withDetail("no executor handles " + permit.getClass().getSimpleName());
        }
        try {
            return invoke(slot.get(), permit, cancellation);
        } catch (RuntimeException e) {
            return new ExecutionFailure(FailureCode.EXECUTOR_FAILED, "the executor failed unexpectedly")
                    .withDetail(ExecutionFailure.chain(e));
        }
    }

    private static <P extends AuthorizedAction> Outcome invoke(ActionExecutor<P> executor, AuthorizedAction permit,
            Cancellation cancellation) {
        return executor.execute(executor.permitType().cast(permit), cancellation);
    }

    /**
     * Builds the executor of a permit type now and starts it as the source of its kind's run-time tools
     * (see {@code Registration.discovering}); IllegalStateException when that executor is no tool source.
     */
    void startSource(Class<? extends AuthorizedAction> permitType, BiConsumer<Allowance, LiveTools.Listing> listener) {
        OnFirstUse<?> slot = byPermitType.get(permitType);
        if (slot == null) {
            throw new IllegalStateException("no executor handles " + permitType.getSimpleName());
        }
        Registration.toolSource(slot.get()).start(listener);
    }

    /** Closes the executors that were built; none is built afterwards. */
    @Override
    public void close() {
        byPermitType.values().forEach(OnFirstUse::close);
    }

    /**
     * One executor for one permit type, built by its factory at most once, on the first call of
     * {@link #get()}; after {@link #close()} it is never built. Thread-safe.
     */
    public static final class OnFirstUse<P extends AuthorizedAction> {
        private final Class<P> permitType;
        private final Supplier<? extends ActionExecutor<P>> factory;
        private ActionExecutor<P> executor;
        private boolean closed;

        private OnFirstUse(Class<P> permitType, Supplier<? extends ActionExecutor<P>> factory, ActionExecutor<P> executor) {
            this.permitType = Objects.requireNonNull(permitType, "permitType");
            this.factory = factory;
            this.executor = executor;
        }

        public static <P extends AuthorizedAction> OnFirstUse<P> of(Class<P> permitType, Supplier<? extends ActionExecutor<P>> factory) {
            return new OnFirstUse<>(permitType, Objects.requireNonNull(factory, "factory"), null);
        }

        static <P extends AuthorizedAction> OnFirstUse<P> built(ActionExecutor<P> executor) {
            return new OnFirstUse<>(executor.permitType(), null, executor);
        }

        /** The executor, built now if this is the first call; IllegalStateException once closed. */
        synchronized ActionExecutor<P> get() {
            if (closed) {
                throw new IllegalStateException("the dispatcher is closed");
            }
            if (executor == null) {
                ActionExecutor<P> built = factory.get();
                if (!permitType.equals(built.permitType())) {
                    built.close();
                    throw new IllegalStateException("the factory for " + permitType.getSimpleName() + " built an executor for "
                            + built.permitType().getSimpleName());
                }
                executor = built;
            }
            return executor;
        }

        /** Whether the executor has been built (and not yet closed). */
        synchronized boolean isBuilt() {
            return executor != null && !closed;
        }

        synchronized void close() {
            if (!closed && executor != null) {
                executor.close();
            }
            closed = true;
        }
    }
}
