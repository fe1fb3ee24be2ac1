package dev.postern.archfixtures;

import dev.postern.policy.AuthorizedHttpRequest;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.ActionExecutor;
import dev.postern.policy.port.Cancellation;
import java.util.function.BiFunction;

/** Violation: hands out a method reference to an executor, a call by another name. Never run. */
public final class ExecutorReferencer {
    private ExecutorReferencer() {
    }

    static BiFunction<AuthorizedHttpRequest, Cancellation, Outcome> escape(
            ActionExecutor<AuthorizedHttpRequest> executor) {
        return executor::execute;
    }
}
