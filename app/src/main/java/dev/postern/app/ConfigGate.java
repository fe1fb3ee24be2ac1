package dev.postern.app;

import dev.postern.app.config.ConfigException;
import dev.postern.app.config.ConfigLoader;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.model.Policy;
import dev.postern.protocol.mcp.CatalogRefused;
import dev.postern.protocol.tools.ToolCatalog;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * How {@code mcp-stdio} answers {@code initialize} first and still fails closed: a background thread
 * runs the config's JSON Schema validation, then builds the tool catalog. It starts once the first
 * protocol line (the initialize answer) is flushed, so on a busy machine it does not compete with
 * that answer, or at the first {@link #problem()}, whichever comes first. The gateway asks
 * {@link #problem()} (which waits) before it serves any frame but the first {@code initialize}, and
 * again before it exits; an invalid config ends the session there ({@link Invalid}), is reported as
 * {@code check-config} would report it, and the process exits with status 4, so no tool is listed,
 * bound, decided or executed on it.
 * Thread-safe.
 */
final class ConfigGate {
    /**
     * Thrown on the reading thread instead of serving a frame when the config turned out invalid; the
     * request it interrupted is answered with the message and the file's problems ({@code CONFIG_INVALID}).
     */
    static final class Invalid extends CatalogRefused {
        private static final long serialVersionUID = 1L;

        Invalid(String message, ObjectNode data) {
            super(message, data);
        }
    }

    /** What a client is told of an invalid config beside the message: the file and each problem's pointer and expectation. */
    static ObjectNode data(ConfigException e) {
        ObjectNode data = JsonNodeFactory.instance.objectNode();
        data.put("file", e.file().toString());
        ArrayNode problems = data.putArray("problems");
        for (ConfigException.Problem p : e.problems()) {
            problems.addObject().put("pointer", p.pointer() == null ? "" : p.pointer()).put("expected", p.expected());
        }
        return data;
    }

    private final CompletableFuture<ToolCatalog> ready = new CompletableFuture<>();
    private final AtomicBoolean started = new AtomicBoolean();
    private final ConfigLoader.Deferred deferred;

    ConfigGate(ConfigLoader.Deferred deferred) {
        this.deferred = Objects.requireNonNull(deferred, "deferred");
    }

    /** Starts validating the config and building its catalog in a background thread; later calls do nothing. */
    void start() {
        if (started.get() || !started.compareAndSet(false, true)) {
            return;
        }
        Policy policy = deferred.config().policy();
        Thread t = new Thread(() -> {
            try {
                deferred.validation().run();
                ready.complete(new ToolCatalog(Gateway.kinds(), policy));
            } catch (Throwable e) {
                ready.completeExceptionally(e);
            }
        }, "postern-config-check");
        t.setDaemon(true);
        t.start();
    }

    /** {@code out}, which starts this gate's check once its first flush has passed a line on. */
    OutputStream startingAfterFirstFlush(OutputStream out) {
        return new FilterOutputStream(out) {
            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
            }

            @Override
            public void flush() throws IOException {
                try {
                    out.flush();
                } finally {
                    start();
                }
            }
        };
    }

    /** Starts the check if need be and waits for it; empty when the config is valid, else the line to print on stderr. */
    Optional<String> problem() {
        start();
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

    /** Waits like {@link #problem()}; the refusal to end the session with when the config is invalid. */
    Optional<Invalid> refusal() {
        return problem().map(message -> {
            Throwable cause = ready.handle((c, e) -> e instanceof CompletionException ce ? ce.getCause() : e).join();
            return new Invalid(message, cause instanceof ConfigException c ? data(c) : JsonNodeFactory.instance.objectNode());
        });
    }

    /** Runs {@code action} on the checking thread once the config is found valid, without starting the check; never if it is invalid. */
    void whenValid(Runnable action) {
        Objects.requireNonNull(action, "action");
        ready.thenRun(action);
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
