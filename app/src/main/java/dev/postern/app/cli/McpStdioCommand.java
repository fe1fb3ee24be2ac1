package dev.postern.app.cli;

import dev.postern.app.ExitStatus;
import dev.postern.app.Gateway;
import dev.postern.app.config.GatewayConfig;
import java.util.List;
import java.util.Optional;
import java.util.Set;

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
                "diagnostics go to stderr. Exit statuses: 0 end of input, 2 protocol error,",
                "3 stdout broken, 4 configuration error, 5 start-up failure.");
    }

    @Override
    public ExitStatus run(List<String> args, Io io) {
        String file;
        try {
            Options o = Options.parse(args, Set.of("--config"));
            if (!o.positional().isEmpty()) {
                throw new Options.UsageException("unexpected argument " + o.positional().get(0));
            }
            file = o.require("--config");
        } catch (Options.UsageException e) {
            io.stderr().println("postern mcp-stdio: " + e.getMessage() + "\n\n" + help());
            return ExitStatus.USAGE;
        }
        Optional<GatewayConfig> config = ConfigArgument.load(file, io);
        if (config.isEmpty()) {
            return ExitStatus.CONFIG_ERROR;
        }
        return Gateway.serve(config.get(), io.stdin(), io.stdout(), io.stderr());
    }
}
