package dev.postern.app;

import dev.postern.app.config.ConfigException;
import dev.postern.app.config.ConfigLoader;
import dev.postern.app.config.GatewayConfig;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The command line of DESIGN §3. {@code mcp-stdio} hands the claimed stdout to the protocol writer
 * and writes nothing else there; the human-facing commands print their report to it. Errors and
 * diagnostics go to stderr.
 */
public final class Cli {
    static final String USAGE = String.join("\n",
            "usage: postern <command> [options]",
            "",
            "commands:",
            "  mcp-stdio --config FILE      run the gateway: MCP over stdin/stdout",
            "  check-config --config FILE   validate a config and print what it allows",
            "  --version                    print the version",
            "  --help                       print this help",
            "",
            "Run 'postern <command> --help' for a command's options.");

    private static final Map<String, String> HELP = Map.of(
            "mcp-stdio", String.join("\n",
                    "usage: postern mcp-stdio --config FILE",
                    "",
                    "Serves MCP over stdin/stdout for one client. stdout carries only protocol lines;",
                    "diagnostics go to stderr. Exit statuses: 0 end of input, 2 protocol error,",
                    "3 stdout broken, 4 configuration error, 5 start-up failure."),
            "check-config", String.join("\n",
                    "usage: postern check-config --config FILE",
                    "",
                    "Validates FILE against the configuration schema and the policy rules, and prints",
                    "what it allows, target by target. Exit status 0 when valid, 4 when not."));

    private Cli() {
    }

    public static ExitStatus run(String[] args, OutputStream stdout, InputStream stdin, PrintStream stderr) {
        if (args.length == 0) {
            stderr.println(USAGE);
            return ExitStatus.USAGE;
        }
        String command = args[0];
        List<String> rest = Arrays.asList(args).subList(1, args.length);
        switch (command) {
            case "--help":
            case "-h":
            case "help":
                return print(stdout, USAGE);
            case "--version":
                return print(stdout, "postern " + Version.current());
            case "mcp-stdio":
            case "check-config":
                break;
            default:
                stderr.println("postern: unknown command '" + command + "'\n\n" + USAGE);
                return ExitStatus.USAGE;
        }
        if (rest.contains("--help") || rest.contains("-h")) {
            if (command.equals("mcp-stdio")) {
                // stdout is the protocol stream in this mode, even for help.
                stderr.println(HELP.get(command));
                return ExitStatus.OK;
            }
            return print(stdout, HELP.get(command));
        }
        if (rest.size() != 2 || !rest.get(0).equals("--config")) {
            stderr.println("postern " + command + ": expected --config FILE\n\n" + HELP.get(command));
            return ExitStatus.USAGE;
        }
        GatewayConfig config;
        try {
            config = ConfigLoader.load(Path.of(rest.get(1)));
        } catch (ConfigException e) {
            stderr.println("postern: invalid configuration: " + e.getMessage());
            return ExitStatus.CONFIG_ERROR;
        }
        if (command.equals("mcp-stdio")) {
            return Gateway.serve(config, stdin, stdout, stderr);
        }
        return print(stdout, describe(config));
    }

    static String describe(GatewayConfig config) {
        StringBuilder b = new StringBuilder();
        b.append("configuration ").append(config.file()).append(" is valid\n");
        b.append("journal: ").append(config.journalDirectory()).append('\n');
        b.append("session: maxFrameBytes ").append(config.maxFrameBytes()).append(", maxInFlight ").append(config.maxInFlight()).append('\n');
        if (config.policy().httpTargets().isEmpty() && config.policy().sshHosts().isEmpty()) {
            b.append("it allows nothing: no HTTP targets and no SSH hosts\n");
        }
        for (HttpTarget t : config.policy().httpTargets()) {
            b.append("http target ").append(t.name()).append(": ").append(new TreeSet<>(t.methods()))
                    .append(' ').append(t.origin().toUrl()).append(" under ").append(t.pathPrefixes());
            if (!t.headers().isEmpty()) {
                b.append(", headers ").append(new TreeSet<>(t.headers()));
            }
            t.auth().ifPresent(a -> b.append(", auth ").append(a.scheme().name().toLowerCase(java.util.Locale.ROOT))
                    .append(" with credential ").append(a.credential()));
            b.append(t.allowPrivateAddresses() ? ", private addresses allowed" : "").append('\n');
        }
        for (SshHost h : config.policy().sshHosts()) {
            b.append("ssh host ").append(h.name()).append(": ").append(h.user()).append('@').append(h.address())
                    .append(':').append(h.port()).append('\n');
            for (SshCommandSpec c : h.commands()) {
                b.append("  command ").append(c.name()).append(": ").append(c.argv()).append('\n');
            }
        }
        return b.toString().stripTrailing();
    }

    private static ExitStatus print(OutputStream stdout, String text) {
        PrintStream out = new PrintStream(stdout, true, StandardCharsets.UTF_8);
        out.println(text);
        out.flush();
        return ExitStatus.OK;
    }
}
