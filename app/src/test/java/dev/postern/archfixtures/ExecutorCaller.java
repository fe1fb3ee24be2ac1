package dev.postern.archfixtures;

import dev.postern.policy.AuthorizedHttpRequest;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.ActionExecutor;
import dev.postern.policy.port.Cancellation;

/** Violation: calls an executor without being the dispatcher, as does its nested class. Never run. */
public final class ExecutorCaller {
    private ExecutorCaller() {
    }

    static Outcome run(ActionExecutor<AuthorizedHttpRequest> executor, AuthorizedHttpRequest permit) {
        return executor.execute(permit, new Cancellation());
    }

    /** Violation too, unless the enclosing class is the exempt one. */
    public static final class Worker {
        private Worker() {
        }

        static Outcome run(ActionExecutor<AuthorizedHttpRequest> executor, AuthorizedHttpRequest permit) {
            return executor.execute(permit, new Cancellation());
        }
    }
}
