package dev.postern.executor.ssh.archfixtures;

import dev.postern.executor.http.archfixtures.internal.HttpSocketFactory;

/** Violation: one executor module using another's internal package. Never run. */
public final class SshExecutorUsingHttpInternal {
    private SshExecutorUsingHttpInternal() {
    }

    static Object borrowed() {
        return new HttpSocketFactory("x");
    }
}
