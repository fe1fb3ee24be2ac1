package dev.postern.app.archfixtures;

import dev.postern.app.Gateway;
import dev.postern.app.config.GatewayConfig;
import dev.postern.policy.port.ActionExecutor;
import java.io.PrintStream;

/** Violation: a replay that starts the upstream servers and holds an executor. Never run. */
public final class ReplayListingUpstreams {
    static Object replay(GatewayConfig candidate, PrintStream diagnostics, ActionExecutor<?> executor) {
        return Gateway.listNow(candidate, diagnostics) + executor.toString();
    }
}
