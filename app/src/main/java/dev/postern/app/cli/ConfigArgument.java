package dev.postern.app.cli;

import dev.postern.app.ExitStatus;
import dev.postern.app.Gateway;
import dev.postern.app.config.ConfigException;
import dev.postern.app.config.ConfigLoader;
import dev.postern.app.config.GatewayConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The config file argument: {@code --config FILE}, {@code --config=FILE} or the environment
 * variable {@code POSTERN_CONFIG} (the option wins); parsed strictly, loaded, failures reported on
 * stderr.
 */
final class ConfigArgument {
    /** The environment variable that names the config when no {@code --config} is given. */
    static final String ENVIRONMENT_VARIABLE = "POSTERN_CONFIG";

    private ConfigArgument() {
    }

    /**
     * For commands whose only argument is the config: runs {@code then} on the loaded config, or
     * reports a usage error (status 1) or an invalid config (status 4).
     */
    static ExitStatus withConfig(List<String> args, Command command, Io io, Function<GatewayConfig, ExitStatus> then) {
        return file(args, command, io).map(f -> load(f, io).map(then).orElse(ExitStatus.CONFIG_ERROR)).orElse(ExitStatus.USAGE);
    }

    /**
     * As {@link #withConfig}, but the config's JSON Schema validation is left to {@code then}
     * (ConfigLoader#loadDeferringSchema): for mcp-stdio, which must run it before any tool is used. A
     * config that cannot be loaded goes to {@code invalid}, which reports it and returns the status.
     */
    static ExitStatus withDeferredConfig(List<String> args, Command command, Io io, Function<ConfigLoader.Deferred, ExitStatus> then,
            Function<ConfigException, ExitStatus> invalid) {
        return file(args, command, io).map(f -> {
            ConfigLoader.Deferred deferred;
            try {
                deferred = Gateway.configLoader().loadDeferringSchema(Path.of(f));
            } catch (ConfigException e) {
                return invalid.apply(e);
            }
            return then.apply(deferred);
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
            file = file(o);
        } catch (Options.UsageException e) {
            io.stderr().println("postern " + command.name() + ": " + e.getMessage() + "\n\n" + command.help());
            return Optional.empty();
        }
        return Optional.of(file);
    }

    /** The config file named by {@code --config}, else by {@code POSTERN_CONFIG}; a usage error when neither. */
    static String file(Options o) throws Options.UsageException {
        return file(o, System.getenv());
    }

    static String file(Options o, Map<String, String> environment) throws Options.UsageException {
        Optional<String> option = o.get("--config");
        if (option.isPresent()) {
            return option.get();
        }
        String variable = environment.get(ENVIRONMENT_VARIABLE);
        if (variable != null && !variable.isEmpty()) {
            return variable;
        }
        throw new Options.UsageException("--config is required (or set " + ENVIRONMENT_VARIABLE + ")");
    }

    static Optional<GatewayConfig> load(String file, Io io) {
        try {
            return Optional.of(Gateway.configLoader().load(Path.of(file)));
        } catch (ConfigException e) {
            io.stderr().println("postern: invalid configuration: " + e.getMessage());
            return Optional.empty();
        }
    }
}
