package dev.postern.executor.ssh.archfixtures;

import dev.postern.app.archfixtures.Wiring;

/** Violation: an executor depending on the composition root. Never run. */
public final class SshExecutorReadingConfig {
    private SshExecutorReadingConfig() {
    }

    static String wiring(Wiring wiring) {
        return wiring.toString();
    }
}
