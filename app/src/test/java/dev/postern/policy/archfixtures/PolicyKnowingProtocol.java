package dev.postern.policy.archfixtures;

import dev.postern.protocol.archfixtures.ToolBinder;

/** Violation: the kernel depending on an outer ring of the hexagon. Never run. */
public final class PolicyKnowingProtocol {
    private PolicyKnowingProtocol() {
    }

    static String binderName(ToolBinder binder) {
        return binder.toString();
    }
}
