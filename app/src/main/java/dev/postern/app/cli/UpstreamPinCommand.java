package dev.postern.app.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.app.ExitStatus;
import dev.postern.app.Gateway;
import dev.postern.app.config.GatewayConfig;
import dev.postern.policy.json.JsonValue;
import dev.postern.policy.json.Pins;
import dev.postern.policy.model.LiveTools;
import dev.postern.policy.model.Printable;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.model.UpstreamTool;
import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code postern upstream pin}: starts each named upstream MCP server as the gateway would, lists its
 * tools, and prints per tool its pin, title and the first line of its description, then a
 * {@code tools} array ready to paste into the config. Runs no tool. What it prints on stdout is only
 * that; a server that cannot be started is said on stderr and makes the exit status non-zero.
 */
final class UpstreamPinCommand implements Command {
    @Override
    public String name() {
        return "upstream";
    }

    @Override
    public String summary() {
        return "upstream pin --config FILE [SERVER...]\n"
                + "                               list upstream MCP servers' tools with the pins to allowlist them; runs no tool";
    }

    @Override
    public String help() {
        return String.join("\n",
                "usage: postern upstream pin --config FILE [SERVER...]",
                "",
                "Starts each named server of the config's mcp.servers (all when none is named) exactly as",
                "the gateway starts it (argv without a shell, its cwd, a minimal environment plus its env),",
                "lists its tools and stops it. For each tool it prints the pin (sha256: over the RFC 8785",
                "canonical JSON of name, title, description, inputSchema, outputSchema and annotations),",
                "the title and the first line of the description; then, per server, a \"tools\" array of",
                "every tool that can be allowlisted, ready to paste. Review each definition before you pin",
                "it: the pin says the gateway offers exactly this definition, nothing about its safety.",
                "",
                "Exit status 0 when every server listed its tools, 5 when one could not be started or",
                "listed, 4 when the config does not load, 1 on a usage error.");
    }

    @Override
    public ExitStatus run(List<String> args, Io io) {
        String file;
        List<String> names;
        try {
            Options o = Options.parse(args, Set.of("--config"));
            if (o.positional().isEmpty() || !o.positional().get(0).equals("pin")) {
                throw new Options.UsageException("expected the subcommand pin");
            }
            file = ConfigArgument.file(o);
            names = o.positional().subList(1, o.positional().size());
        } catch (Options.UsageException e) {
            io.stderr().println("postern upstream: " + e.getMessage() + "\n\n" + help());
            return ExitStatus.USAGE;
        }
        Optional<GatewayConfig> loaded = ConfigArgument.load(file, io);
        if (loaded.isEmpty()) {
            return ExitStatus.CONFIG_ERROR;
        }
        GatewayConfig config = loaded.get();
        List<UpstreamServer> all = config.policy().allowances(UpstreamServer.class);
        for (String n : names) {
            if (all.stream().noneMatch(s -> s.name().equals(n))) {
                io.stderr().println("postern upstream pin: the config has no upstream server named " + n + " (it has "
                        + (all.isEmpty() ? "none" : String.join(", ", all.stream().map(UpstreamServer::name).toList())) + ")");
                return ExitStatus.USAGE;
            }
        }
        LiveTools live = Gateway.listNow(config, io.stderr());
        PrintStream out = io.report();
        boolean failed = false;
        for (UpstreamServer s : all) {
            if (!names.isEmpty() && !names.contains(s.name())) {
                continue;
            }
            LiveTools.Listing listing = live.of(s);
            if (!(listing instanceof LiveTools.Listing.Listed listed)) {
                failed = true;
                io.stderr().println("postern upstream pin: server " + s.name() + " "
                        + (listing instanceof LiveTools.Listing.Unavailable u ? "could not be started or listed: " + u.reason()
                        : "did not list its tools within " + s.startTimeout().toMillis() + " ms"));
                continue;
            }
            out.println("server " + s.name() + ": " + listed.tools().size() + " tools");
            ArrayNode paste = JsonNodeFactory.instance.arrayNode();
            for (JsonValue.JsonObject tool : listed.tools()) {
                String name = tool.string("name").orElse("");
                String pin = Pins.of(tool);
                Optional<String> unusable = unusable(s, name);
                out.println("  " + name + "  " + pin + (unusable.isPresent() ? "  (cannot be allowlisted: " + unusable.get() + ")" : ""));
                tool.string("title").ifPresent(t -> out.println("    title: " + oneLine(t)));
                tool.string("description").ifPresent(d -> out.println("    " + oneLine(d)));
                if (unusable.isEmpty()) {
                    ObjectNode entry = paste.addObject();
                    entry.put("name", name);
                    entry.put("pin", pin);
                }
            }
            out.println("  \"tools\": " + paste.toPrettyString().replace("\n", "\n  "));
        }
        out.flush();
        return failed ? ExitStatus.STARTUP_FAILED : ExitStatus.OK;
    }

    /** Why a listed tool cannot be allowlisted as it is named, if it cannot (DESIGN §5's name rule). */
    static Optional<String> unusable(UpstreamServer server, String name) {
        if (!UpstreamTool.NAME.matcher(name).matches()) {
            return Optional.of("its name has characters other than letters, digits, _ and -");
        }
        String exposed = UpstreamServer.exposedName(server.name(), name);
        if (exposed.length() > UpstreamTool.MAX_EXPOSED_NAME) {
            return Optional.of(exposed + " is longer than " + UpstreamTool.MAX_EXPOSED_NAME + " characters");
        }
        return Optional.empty();
    }

    /** The first line, at most 200 code points, escaped (Printable) so a hostile description can neither move the terminal nor reorder what it shows. */
    static String oneLine(String text) {
        return Printable.escaped(text.lines().findFirst().orElse(""), 200);
    }
}
