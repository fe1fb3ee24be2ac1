package dev.postern.app.cli;

import dev.postern.app.ExitStatus;
import dev.postern.app.Gateway;
import java.util.List;

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
        // The schema validation runs after the initialize answer, and before any tool (Gateway, ConfigGate).
        return ConfigArgument.withDeferredConfig(args, this, io,
                config -> Gateway.serve(config, io.stdin(), io.stdout(), io.stderr()));
    }
}
