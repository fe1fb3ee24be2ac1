package dev.postern.app.cli;

import dev.postern.app.ExitStatus;
import dev.postern.app.Gateway;
import dev.postern.app.Version;
import dev.postern.app.check.DeepReport;
import dev.postern.app.config.GatewayConfig;
import java.util.List;
import java.util.stream.Collectors;

/** {@code postern mcp-stdio --config FILE}: the gateway. stdout carries protocol lines only. */
final class McpStdioCommand implements Command {
    @Override
    public String name() {
        return "mcp-stdio";
    }

    @Override
    public String summary() {
        return "mcp-stdio --config FILE      run the gateway: MCP over stdin/stdout";
    }

    @Override
    public String help() {
        return String.join("\n",
                "usage: postern mcp-stdio --config FILE",
                "",
                "Serves MCP over stdin/stdout for one client. stdout carries only protocol lines;",
                "diagnostics go to stderr: first one line naming the config, the journal and the",
                "version, then a warning per problem check-config --deep would find (never blocking).",
                "FILE may also be given as --config=FILE or in the environment variable",
                "POSTERN_CONFIG (useful when the client has a --config of its own). Exit statuses: 0 end of input, 2 protocol error,",
                "3 stdout broken, 4 configuration error, 5 start-up failure, 7 internal fault,",
                "8 interrupted.");
    }

    @Override
    public ExitStatus run(List<String> args, Io io) {
        // The schema validation runs after the initialize answer, and before any tool (Gateway, ConfigGate);
        // a config that cannot be loaded at all is the answer to initialize (ConfigRefusal).
        return ConfigArgument.withDeferredConfig(args, this, io, deferred -> {
            GatewayConfig config = deferred.config();
            io.stderr().println(startLine(config));
            DeepReport.atStart(config, Gateway.kindChecks(), io.stderr());
            return Gateway.serve(deferred, io.stdin(), io.stdout(), io.stderr());
        }, invalid -> Gateway.refuse(invalid, io.stdin(), io.stdout(), io.stderr()));
    }

    /**
     * The one line an operator sees first in the client's log: which config, journal and version, and
     * how many allowances of each registered kind ({@code HTTP targets: 2, SSH hosts: 0, SQL databases: 1}).
     */
    static String startLine(GatewayConfig config) {
        String counts = Gateway.kinds().all().stream()
                .map(k -> k.allowancesNoun() + ": " + config.policy().allowances(k.allowanceType()).size())
                .collect(Collectors.joining(", "));
        return "postern " + Version.current() + ": serving " + config.file() + " (journal " + config.journalDirectory() + "; "
                + counts + ")";
    }
}
