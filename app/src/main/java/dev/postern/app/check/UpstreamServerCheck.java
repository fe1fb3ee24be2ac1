package dev.postern.app.check;

import dev.postern.app.config.GatewayConfig;
import dev.postern.policy.json.JsonValue;
import dev.postern.policy.json.Pins;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.LiveTools;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.model.UpstreamTool;
import dev.postern.protocol.tools.UpstreamToolKind;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The deep checks of upstream MCP servers: each command's program exists and is executable (an
 * absolute path, or a name found on the gateway's {@code PATH}), with {@code --connect} each server
 * started as the gateway would start it, its tools listed (none run), and each allowlisted tool
 * compared with its pin: missing, moved, or narrowing an argument it does not declare. Resolves no
 * host name: an upstream is a local process. Stateless.
 */
public final class UpstreamServerCheck implements KindCheck {
    private final Function<GatewayConfig, LiveTools> lister;

    /** With {@code lister}: starts every server of a config, waits for their listings, stops them. */
    public UpstreamServerCheck(Function<GatewayConfig, LiveTools> lister) {
        this.lister = lister;
    }

    @Override
    public Class<? extends Allowance> allowanceType() {
        return UpstreamServer.class;
    }

    @Override
    public List<Finding> local(GatewayConfig config) {
        List<Finding> out = new ArrayList<>();
        List<UpstreamServer> servers = config.policy().allowances(UpstreamServer.class);
        for (int i = 0; i < servers.size(); i++) {
            UpstreamServer s = servers.get(i);
            String program = s.command().get(0);
            if (program(program).isEmpty()) {
                out.add(Finding.error("command-not-found", "/mcp/servers/" + i + "/command/0", "upstream server " + s.name() + ": "
                        + (program.startsWith("/") ? program + " is not an executable file" : program + " is not found on PATH")
                        + ", so the server cannot start"));
            }
        }
        return out;
    }

    /** The executable file a command's first element names: absolute as it is, a bare name looked up on {@code PATH}. */
    static Optional<Path> program(String name) {
        if (name.startsWith("/")) {
            Path p = Path.of(name);
            return Files.isRegularFile(p) && Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
        }
        String path = Optional.ofNullable(System.getenv("PATH")).orElse("");
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty()) {
                Path p = Path.of(dir, name);
                if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                    return Optional.of(p);
                }
            }
        }
        return Optional.empty();
    }

    @Override
    public List<Finding> addresses(GatewayConfig config, HostNames names) {
        return List.of();
    }

    @Override
    public List<Finding> connect(GatewayConfig config) {
        List<UpstreamServer> servers = config.policy().allowances(UpstreamServer.class);
        if (servers.isEmpty()) {
            return List.of();
        }
        LiveTools live = lister.apply(config);
        List<Finding> out = new ArrayList<>();
        for (int i = 0; i < servers.size(); i++) {
            UpstreamServer s = servers.get(i);
            String at = "/mcp/servers/" + i;
            LiveTools.Listing listing = live.of(s);
            if (listing instanceof LiveTools.Listing.Pending) {
                out.add(Finding.error("upstream-start-timeout", at, "upstream server " + s.name() + " did not list its tools within "
                        + s.startTimeout().toMillis() + " ms"));
                continue;
            }
            if (listing instanceof LiveTools.Listing.Unavailable u) {
                out.add(Finding.error("upstream-unavailable", at, "upstream server " + s.name() + " could not be started or listed: "
                        + u.reason()));
                continue;
            }
            LiveTools.Listing.Listed listed = (LiveTools.Listing.Listed) listing;
            for (int j = 0; j < s.tools().size(); j++) {
                UpstreamTool t = s.tools().get(j);
                String tool = at + "/tools/" + j;
                Optional<JsonValue.JsonObject> definition = listed.tool(t.name());
                if (definition.isEmpty()) {
                    out.add(Finding.error("upstream-tool-missing", tool + "/name", "upstream server " + s.name() + " lists no tool "
                            + t.name()));
                } else if (!Pins.of(definition.get()).equals(t.pin())) {
                    out.add(Finding.error("upstream-pin-mismatch", tool + "/pin", "tool " + t.name() + " of " + s.name()
                            + " now has pin " + Pins.of(definition.get()) + ": review the definition (postern upstream pin) and"
                            + " update the pin; until then it is withheld"));
                } else {
                    UpstreamToolKind.whyWithheld(s, t, live).ifPresent(why -> out.add(Finding.error("upstream-tool-withheld",
                            tool, "tool " + t.name() + " of " + s.name() + " is withheld: " + why)));
                }
            }
        }
        return out;
    }
}
