package dev.postern.transport.archfixtures;

import dev.postern.policy.action.Action;

/** Violation: framing that knows the kernel's types. Never run. */
public final class TransportKnowingPolicy {
    private TransportKnowingPolicy() {
    }

    static boolean isAction(Object frame) {
        return frame instanceof Action;
    }
}
