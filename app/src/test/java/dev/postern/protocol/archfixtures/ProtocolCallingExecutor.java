package dev.postern.protocol.archfixtures;

import dev.postern.executor.http.archfixtures.HttpExecutor;

/** Violation: the protocol reaching a concrete executor past the policy. Never run. */
public final class ProtocolCallingExecutor {
    private ProtocolCallingExecutor() {
    }

    static HttpExecutor executor() {
        return new HttpExecutor();
    }
}
