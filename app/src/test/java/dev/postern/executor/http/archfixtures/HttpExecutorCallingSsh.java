package dev.postern.executor.http.archfixtures;

import dev.postern.executor.ssh.archfixtures.SshExecutor;

/** Violation: one executor knowing another. Never run. */
public final class HttpExecutorCallingSsh {
    private HttpExecutorCallingSsh() {
    }

    static SshExecutor sibling() {
        return new SshExecutor();
    }
}
