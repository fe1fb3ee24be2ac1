package dev.postern.app.archfixtures;

import dev.postern.executor.http.archfixtures.HttpExecutor;
import dev.postern.executor.ssh.archfixtures.SshExecutor;
import dev.postern.policy.port.ActionExecutor;
import java.util.List;

/** Compliant: the composition root constructs the executors. Never run. */
public final class Wiring {
    static List<ActionExecutor<?>> executors() {
        return List.of(new HttpExecutor(), new SshExecutor());
    }
}
