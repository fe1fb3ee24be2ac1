package dev.postern.protocol.archfixtures;

import dev.postern.app.archfixtures.Wiring;

/** Violation: the protocol depending on the composition root. Never run. */
public final class ProtocolReachingIntoApp {
    private ProtocolReachingIntoApp() {
    }

    static String wiring(Wiring wiring) {
        return wiring.toString();
    }
}
