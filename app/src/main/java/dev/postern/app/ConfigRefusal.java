package dev.postern.app;

import dev.postern.app.config.ConfigException;
import dev.postern.app.config.GatewayConfig;
import dev.postern.protocol.mcp.CatalogRefused;
import dev.postern.protocol.mcp.McpServer;
import dev.postern.protocol.mcp.ServerInfo;
import dev.postern.transport.Frame;
import dev.postern.transport.FrameReader;
import dev.postern.transport.FrameWriter;
import dev.postern.transport.ReadResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code mcp-stdio} on a config that cannot even be loaded: the client's first request (its
 * {@code initialize}) is answered with {@code CONFIG_INVALID}, naming the file, the pointer and the
 * problem, so the user sees why in the client; then the process exits with status 4. Nothing else is
 * started: no journal, no executor. It waits for that request at most {@link #WAIT}. A config that
 * fails its deferred check after a notification was read answers the next request the same way.
 */
final class ConfigRefusal {
    /** How long a client has to send its first request; a terminal with nobody typing is not waited for longer. */
    static final Duration WAIT = Duration.ofSeconds(10);
    /** Lines read while looking for a request (notifications and stray lines are skipped, never answered). */
    private static final int MAX_LINES = 16;

    private ConfigRefusal() {
    }

    /** Answers the first request on {@code in} with why {@code invalid} refused the config; returns CONFIG_ERROR. */
    static ExitStatus answer(ConfigException invalid, InputStream in, OutputStream protocolOut, PrintStream diagnostics) {
        String message = "postern: invalid configuration: " + invalid.getMessage();
        diagnostics.println(message);
        CatalogRefused refused = new CatalogRefused(message, ConfigGate.data(invalid));
        McpServer mcp = new McpServer(() -> {
            throw refused;
        }, new ServerInfo("postern", Version.current()), McpServer.Limits.frames(GatewayConfig.DEFAULT_MAX_FRAME_BYTES));
        Optional<String> line = nextAnswer(new FrameReader(in, GatewayConfig.DEFAULT_MAX_FRAME_BYTES), mcp, refused, diagnostics);
        if (line.isPresent()) {
            try {
                new FrameWriter(protocolOut).write(line.get());
            } catch (IOException e) {
                // stdout is gone: the configuration's status is still the one to exit with.
            }
        }
        return ExitStatus.CONFIG_ERROR;
    }

    /**
     * The answer to the next request {@code reader} brings, within {@link #WAIT}: {@code refused}'s
     * error to it. Notifications and stray lines before it are skipped; empty when none comes.
     */
    static Optional<String> nextAnswer(FrameReader reader, McpServer mcp, CatalogRefused refused, PrintStream diagnostics) {
        CompletableFuture<Optional<String>> answer = CompletableFuture.supplyAsync(() -> {
            for (int i = 0; i < MAX_LINES; i++) {
                ReadResult read = reader.next();
                if (!(read instanceof Frame frame)) {
                    return Optional.empty();
                }
                Optional<String> line = mcp.refusal(frame, refused);
                if (line.isPresent()) {
                    return line;
                }
            }
            return Optional.empty();
        }, r -> {
            Thread t = new Thread(r, "postern-config-refusal");
            t.setDaemon(true);
            t.start();
        });
        try {
            return answer.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            diagnostics.println("postern: no request came within " + WAIT.toSeconds() + " s to tell of the invalid configuration");
        } catch (ExecutionException e) {
            // stdin failed: nothing to answer.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Optional.empty();
    }
}
