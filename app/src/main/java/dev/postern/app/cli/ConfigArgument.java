package dev.postern.app.cli;

import dev.postern.app.config.ConfigException;
import dev.postern.app.config.ConfigLoader;
import dev.postern.app.config.GatewayConfig;
import java.nio.file.Path;
import java.util.Optional;

/** Loads the config named by {@code --config}, reporting a failure on stderr. */
final class ConfigArgument {
    private ConfigArgument() {
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
