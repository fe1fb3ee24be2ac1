package dev.postern.app;

import dev.postern.policy.port.ToolSource;
import dev.postern.policy.port.UpstreamReports;
import dev.postern.protocol.tools.StaticToolKind;

import dev.postern.app.check.KindCheck;
import dev.postern.app.config.GatewayConfig;
import dev.postern.app.config.KindSection;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.port.ActionExecutor;
import dev.postern.policy.port.CredentialStore;
import dev.postern.protocol.tools.EffectKind;
import java.util.Objects;

/**
 * One kind of effect as the composition root registers it: its protocol description, the section of
 * the config file it reads its allowances from ({@link KindSection}), how to build its executor from the
 * config and the credential store (on the kind's first permit), and its part of {@code check-config --deep}
 * (its own {@link KindCheck}, or {@link KindCheck#none} said out loud). Immutable.
 */
public record Registration<P extends AuthorizedAction>(EffectKind<?, P, ?> kind, KindSection<?> section, ExecutorFactory<P> executor,
        KindCheck checks, boolean toolSource) {

    /** Builds one kind's executor. */
    @FunctionalInterface
    public interface ExecutorFactory<P extends AuthorizedAction> {
        ActionExecutor<P> build(GatewayConfig config, CredentialStore credentials, Surroundings around);
    }

    /**
     * What an executor may report to besides its outcomes: the journal's {@code upstream} rows (what an
     * upstream sent that was not passed on) and the diagnostics stream (stderr; never stdout).
     */
    public record Surroundings(UpstreamReports reports, java.io.PrintStream diagnostics) {
        public Surroundings {
            Objects.requireNonNull(reports, "reports");
            Objects.requireNonNull(diagnostics, "diagnostics");
        }
    }

    public Registration {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(section, "section");
        Objects.requireNonNull(executor, "executor");
        Objects.requireNonNull(checks, "checks");
        if (toolSource == kind instanceof StaticToolKind) {
            throw new IllegalArgumentException(toolSource
                    ? "kind " + kind.toolName() + " has one tool fixed by the config: register it with Registration.of"
                    : "kind " + kind.toolName() + " has tools known only at run time: register it with Registration.discovering,"
                            + " so that its executor lists them");
        }
        if (!section.allowanceType().equals(kind.allowanceType())) {
            throw new IllegalArgumentException("the config section registered for " + kind.toolName() + " reads "
                    + section.allowanceType().getSimpleName() + ", not its " + kind.allowanceType().getSimpleName());
        }
        if (!checks.allowanceType().equals(kind.allowanceType())) {
            throw new IllegalArgumentException("the deep checks registered for " + kind.toolName() + " check "
                    + checks.allowanceType().getSimpleName() + ", not its " + kind.allowanceType().getSimpleName());
        }
    }

    /** A kind whose one tool the config fixes ({@link StaticToolKind}). */
    public static <P extends AuthorizedAction> Registration<P> of(EffectKind<?, P, ?> kind, KindSection<?> section,
            ExecutorFactory<P> executor, KindCheck checks) {
        return new Registration<>(kind, section, executor, checks, false);
    }

    /**
     * A kind whose tools are known only at run time: its executor is also their {@link ToolSource}
     * (discovery and calls share one connection), built when the session starts serving rather than on
     * the first permit. A factory whose executor is no tool source fails the session's start.
     */
    public static <P extends AuthorizedAction> Registration<P> discovering(EffectKind<?, P, ?> kind, KindSection<?> section,
            ExecutorFactory<P> executor, KindCheck checks) {
        return new Registration<>(kind, section, executor, checks, true);
    }

    /** A discovering kind's executor as the source of its tools; IllegalStateException when its factory built no source. */
    static ToolSource toolSource(ActionExecutor<?> executor) {
        if (!(executor instanceof ToolSource source)) {
            throw new IllegalStateException("the executor for " + executor.permitType().getSimpleName()
                    + " lists no tools (it is no ToolSource)");
        }
        return source;
    }

    /** The dispatcher's slot for this kind: the executor built on the first permit. */
    Dispatcher.OnFirstUse<P> slot(GatewayConfig config, CredentialStore credentials, Surroundings around) {
        return Dispatcher.OnFirstUse.of(kind.permitType(), () -> executor.build(config, credentials, around));
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
        return new Registration<>(kind, section, (config, credentials, around) -> typed, checks, toolSource);
    }
}
