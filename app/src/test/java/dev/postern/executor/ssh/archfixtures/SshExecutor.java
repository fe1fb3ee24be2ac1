package dev.postern.executor.ssh.archfixtures;

import dev.postern.policy.AuthorizedSshCommand;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.ActionExecutor;
import dev.postern.policy.port.Cancellation;
import org.apache.sshd.client.SshClient;

/** Compliant: an SSH adapter that knows its permit, the kernel and SSHD. Never run. */
public final class SshExecutor implements ActionExecutor<AuthorizedSshCommand> {
    @Override
    public Class<AuthorizedSshCommand> permitType() {
        return AuthorizedSshCommand.class;
    }

    @Override
    public Outcome execute(AuthorizedSshCommand permit, Cancellation cancellation) {
        SshClient client = SshClient.setUpDefaultClient();
        throw new UnsupportedOperationException(client + permit.commandLine());
    }

    @Override
    public void close() {
    }
}
