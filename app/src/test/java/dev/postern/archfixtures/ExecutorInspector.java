package dev.postern.archfixtures;

import dev.postern.policy.port.ActionExecutor;

/** Compliant: uses an executor's other methods, which anyone wiring executors may. Never run. */
public final class ExecutorInspector {
    private ExecutorInspector() {
    }

    static String describeAndClose(ActionExecutor<?> executor) {
        String name = executor.permitType().getSimpleName();
        executor.close();
        return name;
    }
}
