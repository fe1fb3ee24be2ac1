package dev.postern.policy.action;

import java.util.Map;
import java.util.Objects;

/**
 * A request to run one configured command on one configured host, with values for the command's
 * placeholders. There is no raw command line here, by design: the argv comes from the policy file.
 */
public record SshCommandAction(String host, String command, Map<String, Argument> args) implements Action {
    /** The generic tool that asks for this action; its name is the kernel's, the protocol's kind repeats none. */
    public static final String TOOL = "ssh_exec";


    public SshCommandAction {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(command, "command");
        args = Map.copyOf(Objects.requireNonNull(args, "args"));
    }
}
