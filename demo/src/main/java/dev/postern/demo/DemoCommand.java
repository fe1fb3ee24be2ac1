package dev.postern.demo;

import dev.postern.app.ExitStatus;
import dev.postern.app.cli.Io;
import dev.postern.app.cli.Options;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code postern demo [--dir DIR]}: the embedded default of DESIGN §3. Colours its transcript only
 * when stdout is a terminal (and {@code NO_COLOR} is unset); clean text when piped.
 */
final class DemoCommand {
    /** The command's name, as the launcher passes it first; its usage line is app's {@code DemoEntry}. */
    static final String NAME = "demo";

    String help() {
        return String.join("\n",
                "usage: postern demo [--dir DIR]",
                "",
                "Starts a loopback HTTP service and an in-process SSH server (canned answers, no shell),",
                "writes a demo config for them, runs a scripted MCP session through a real",
                "'postern mcp-stdio' process and prints what was allowed, denied and rejected, ending",
                "with how many calls each server received. With PostgreSQL installed it adds sql_query;",
                "with Node 20+ and the reference MCP server (npm ci --prefix interop) it adds that server",
                "behind the gateway, its echo pinned from its live listing and narrowed: one call allowed,",
                "one refused. Without them it says how to enable each. Files go to a temporary directory that is",
                "deleted afterwards, or to DIR, which is kept (config, keys, journal, gateway stderr).",
                "Exit status 0 when everything happened as expected, 6 when not.");
    }

    ExitStatus run(List<String> args, Io io) {
        Optional<Path> dir;
        try {
            Options o = Options.parse(args, Set.of("--dir"));
            if (!o.positional().isEmpty()) {
                throw new Options.UsageException("unexpected argument " + o.positional().get(0));
            }
            dir = o.get("--dir").map(Path::of);
        } catch (Options.UsageException e) {
            io.stderr().println("postern demo: " + e.getMessage() + "\n\n" + help());
            return ExitStatus.USAGE;
        }
        return Demo.run(dir.map(Path::toAbsolutePath), io.report(), io.stderr(), colourful());
    }

    /** ANSI colour only on an interactive terminal whose stdout is the process's own, and never under NO_COLOR or TERM=dumb. */
    static boolean colourful() {
        return System.console() != null
                && System.getProperty("postern.protocol.fd") == null
                && System.getenv("NO_COLOR") == null
                && !"dumb".equals(System.getenv("TERM"));
    }
}
