package dev.postern.app;

import dev.postern.app.config.GatewayConfig;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.port.ActionExecutor;
import dev.postern.policy.port.CredentialStore;
import dev.postern.protocol.tools.EffectKind;
import java.util.Objects;

/**
 * One kind of effect as the composition root registers it: its protocol description and how to build
 * its executor from the config and the credential store (on the kind's first permit). Immutable.
 */
public record Registration<P extends AuthorizedAction>(EffectKind<?, P, ?> kind, ExecutorFactory<P> executor) {

    /** Builds one kind's executor. */
    @FunctionalInterface
    public interface ExecutorFactory<P extends AuthorizedAction> {
        ActionExecutor<P> build(GatewayConfig config, CredentialStore credentials);
    }

    public Registration {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(executor, "executor");
    }

    public static <P extends AuthorizedAction> Registration<P> of(EffectKind<?, P, ?> kind, ExecutorFactory<P> executor) {
        return new Registration<>(kind, executor);
    }

    /** The dispatcher's slot for this kind: the executor built on the first permit. */
    Dispatcher.OnFirstUse<P> slot(GatewayConfig config, CredentialStore credentials) {
        return Dispatcher.OnFirstUse.of(kind.permitType(), () -> executor.build(config, credentials));
    }

    /**
     * The same kind with {@code substitute} as its executor if it takes this kind's permits, else this
     * registration unchanged: how tests put recording executors at the one registration point.
     */
    Registration<P> withExecutor(ActionExecutor<?> substitute) {
        if (!substitute.permitType().equals(kind.permitType())) {
            return this;
        }
        @SuppressWarnings("unchecked") // the permit types were just compared
        ActionExecutor<P> typed = (ActionExecutor<P>) substitute;
        return new Registration<>(kind, (config, credentials) -> typed);
    }
}
