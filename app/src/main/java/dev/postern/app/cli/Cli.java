package dev.postern.app.cli;

import dev.postern.app.ExitStatus;
import dev.postern.app.Version;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** Finds the subcommand and runs it; prints usage and help. The one list of commands is here. */
public final class Cli {
    private static final List<Command> COMMANDS = List.of(
            new McpStdioCommand(),
            new CheckConfigCommand(),
            new ExplainCommand(),
            new AuditVerifyCommand(),
            new TrustHostCommand(),
            new UpstreamPinCommand(),
            new ApprovalsCommand(),
            new InitCommand(),
            new DemoEntry());

    private Cli() {
    }

    static Optional<Command> find(String name) {
        return COMMANDS.stream().filter(c -> c.name().equals(name)).findFirst();
    }

    static String usage() {
        StringBuilder b = new StringBuilder("usage: postern <command> [options]\n\ncommands:\n");
        COMMANDS.forEach(c -> b.append("  ").append(c.summary()).append('\n'));
        b.append("  --version                    print the version\n");
        b.append("  --help                       print this help\n\n");
        b.append("Run 'postern <command> --help' for a command's options.");
        return b.toString();
    }

    public static ExitStatus run(String[] args, Io io) {
        if (args.length == 0) {
            io.stderr().println(usage());
            return ExitStatus.USAGE;
        }
        String name = args[0];
        List<String> rest = Arrays.asList(args).subList(1, args.length);
        if (name.equals("--help") || name.equals("-h") || name.equals("help")) {
            io.report().println(usage());
            return ExitStatus.OK;
        }
        if (name.equals("--version")) {
            io.report().println("postern " + Version.current());
            return ExitStatus.OK;
        }
        Optional<Command> command = find(name);
        if (command.isEmpty()) {
            io.stderr().println("postern: unknown command '" + name + "'\n\n" + usage());
            return ExitStatus.USAGE;
        }
        if (rest.contains("--help") || rest.contains("-h")) {
            // In mcp-stdio, stdout is the protocol stream even for help; help goes to stderr there.
            (command.get() instanceof McpStdioCommand ? io.stderr() : io.report()).println(command.get().help(rest));
            return ExitStatus.OK;
        }
        return command.get().run(rest, io);
    }
}
