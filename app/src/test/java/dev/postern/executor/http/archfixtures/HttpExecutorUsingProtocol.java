package dev.postern.executor.http.archfixtures;

import dev.postern.protocol.archfixtures.ToolBinder;

/** Violation: an executor depending on the protocol module. Never run. */
public final class HttpExecutorUsingProtocol {
    private HttpExecutorUsingProtocol() {
    }

    static String binder(ToolBinder binder) {
        return binder.toString();
    }
}
