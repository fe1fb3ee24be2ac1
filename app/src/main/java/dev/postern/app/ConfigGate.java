package dev.postern.app;

import dev.postern.app.config.ConfigException;
import dev.postern.app.config.ConfigLoader;
import dev.postern.policy.model.Policy;
import dev.postern.protocol.tools.ToolCatalog;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * How {@code mcp-stdio} answers {@code initialize} first and still fails closed: a thread started at
 * once runs the config's JSON Schema validation, then builds the tool catalog. The gateway asks
 * {@link #problem()} (which waits) before it serves any frame but the first {@code initialize}, and
 * again before it exits; an invalid config ends the session there ({@link Invalid}), is reported as
 * {@code check-config} would report it, and the process exits with status 4, so no tool is listed,
 * bound, decided or executed on it.
 * Thread-safe.
 */
final class ConfigGate {
    /** Thrown on the reading thread instead of serving a frame when the config turned out invalid. */
    static final class Invalid extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Invalid(String message) {
            super(message, null, false, false);
        }
    }

    private final CompletableFuture<ToolCatalog> ready = new CompletableFuture<>();

    private ConfigGate() {
    }

    /** Starts validating {@code deferred} and building its catalog in a background thread. */
    static ConfigGate start(ConfigLoader.Deferred deferred) {
        ConfigGate gate = new ConfigGate();
        Policy policy = deferred.config().policy();
        Thread t = new Thread(() -> {
            try {
                deferred.validation().run();
                gate.ready.complete(new ToolCatalog(policy));
            } catch (Throwable e) {
                gate.ready.completeExceptionally(e);
            }
        }, "postern-config-check");
        t.setDaemon(true);
        t.start();
        return gate;
    }

    /** Waits for the check; empty when the config is valid, else the line to print on stderr. */
    Optional<String> problem() {
        try {
            ready.join();
            return Optional.empty();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            return Optional.of(cause instanceof ConfigException
                    ? "postern: invalid configuration: " + cause.getMessage()
                    : "postern: cannot check the configuration: " + cause);
        }
    }

    /** The catalog of a config {@link #problem()} found valid; waits like it. */
    ToolCatalog catalog() {
        Optional<String> problem = problem();
        if (problem.isPresent()) {
            throw new IllegalStateException(problem.get());
        }
        return ready.join();
    }
}
