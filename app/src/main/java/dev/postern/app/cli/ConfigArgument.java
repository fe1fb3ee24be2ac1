package dev.postern.app.cli;

import dev.postern.app.ExitStatus;
import dev.postern.app.config.ConfigException;
import dev.postern.app.config.ConfigLoader;
import dev.postern.app.config.GatewayConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/** The {@code --config FILE} argument: parsed strictly, loaded, failures reported on stderr. */
final class ConfigArgument {
    private ConfigArgument() {
    }

    /**
     * For commands whose only argument is {@code --config FILE}: runs {@code then} on the loaded
     * config, or reports a usage error (status 1) or an invalid config (status 4).
     */
    static ExitStatus withConfig(List<String> args, Command command, Io io, Function<GatewayConfig, ExitStatus> then) {
        return file(args, command, io).map(f -> load(f, io).map(then).orElse(ExitStatus.CONFIG_ERROR)).orElse(ExitStatus.USAGE);
    }

    /**
     * As {@link #withConfig}, but the config's JSON Schema validation is left to {@code then}
     * (ConfigLoader.loadDeferringSchema): for mcp-stdio, which must run it before any tool is used.
     */
    static ExitStatus withDeferredConfig(List<String> args, Command command, Io io, Function<ConfigLoader.Deferred, ExitStatus> then) {
        return file(args, command, io).map(f -> {
            try {
                return then.apply(ConfigLoader.loadDeferringSchema(Path.of(f)));
            } catch (ConfigException e) {
                io.stderr().println("postern: invalid configuration: " + e.getMessage());
                return ExitStatus.CONFIG_ERROR;
            }
        }).orElse(ExitStatus.USAGE);
    }

    /** The value of {@code --config}, or empty after a usage error has been reported. */
    private static Optional<String> file(List<String> args, Command command, Io io) {
        String file;
        try {
            Options o = Options.parse(args, Set.of("--config"));
            if (!o.positional().isEmpty()) {
                throw new Options.UsageException("unexpected argument " + o.positional().get(0));
            }
            file = o.require("--config");
        } catch (Options.UsageException e) {
            io.stderr().println("postern " + command.name() + ": " + e.getMessage() + "\n\n" + command.help());
            return Optional.empty();
        }
        return Optional.of(file);
    }

    static Optional<GatewayConfig> load(String file, Io io) {
        try {
            return Optional.of(ConfigLoader.load(Path.of(file)));
        } catch (ConfigException e) {
            io.stderr().println("postern: invalid configuration: " + e.getMessage());
            return Optional.empty();
        }
    }
}
