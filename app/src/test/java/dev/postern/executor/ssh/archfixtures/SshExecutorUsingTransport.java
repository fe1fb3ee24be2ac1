package dev.postern.executor.ssh.archfixtures;

import dev.postern.transport.archfixtures.LineFramer;

/** Violation: an executor depending on the transport module. Never run. */
public final class SshExecutorUsingTransport {
    private SshExecutorUsingTransport() {
    }

    static String framer(LineFramer framer) {
        return framer.toString();
    }
}
