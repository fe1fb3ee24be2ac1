package dev.postern.policy;

import dev.postern.policy.action.SshCommandAction;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.SshHost;
import java.util.List;
import java.util.Objects;

/**
 * A permitted SSH command: the host (address, user, credential, host-key rule, limits), the argv
 * rendered from the operator's template, and that argv as one command line with every element
 * quoted for a POSIX shell. Immutable.
 */
public final class AuthorizedSshCommand extends AuthorizedAction {
    private final SshCommandAction action;
    private final SshHost host;
    private final List<String> argv;
    private final String commandLine;

    AuthorizedSshCommand(SshCommandAction action, SshHost host, List<String> argv, String rule) {
        super(rule);
        this.action = Objects.requireNonNull(action, "action");
        this.host = Objects.requireNonNull(host, "host");
        this.argv = List.copyOf(argv);
        this.commandLine = ShellQuoting.commandLine(this.argv);
    }

    @Override
    public SshCommandAction action() {
        return action;
    }

    public SshHost host() {
        return host;
    }

    public List<String> argv() {
        return argv;
    }

    /** What the remote shell receives: each argv element single-quoted, joined by spaces. */
    public String commandLine() {
        return commandLine;
    }

    @Override
    public Allowance allowance() {
        return host;
    }

    @Override
    public String toString() {
        return "AuthorizedSshCommand[" + action.command() + " on " + host.name() + ", rule=" + rule() + ']';
    }
}
