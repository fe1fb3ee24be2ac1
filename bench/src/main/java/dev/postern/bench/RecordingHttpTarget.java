package dev.postern.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The HTTP target of the mixed load run: like {@link LoopbackHttpService} (a JDK server on
 * 127.0.0.1, port 0, one small JSON body), but it also counts requests per call id, read from the
 * path {@code /v1/call/ID}, so the driver can tell which cancelled calls reached it. The per-id
 * counts are a fixed array sized for the run; a request with any other path only counts as stray.
 * Thread-safe.
 */
final class RecordingHttpTarget implements AutoCloseable {
    static final String PATH = "/v1/call/";

    private final HttpServer server;
    private final ExecutorService handlers;
    private final AtomicIntegerArray hits;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong stray = new AtomicLong();
    private final long delayMillis;

    private RecordingHttpTarget(HttpServer server, ExecutorService handlers, int ids, long delayMillis) {
        this.server = server;
        this.handlers = handlers;
        this.hits = new AtomicIntegerArray(ids);
        this.delayMillis = delayMillis;
    }

    /** A target for ids {@code 0 .. ids-1}, each answer sent after {@code delayMillis} (0: at once). */
    static RecordingHttpTarget start(int ids, long delayMillis) throws IOException {
        System.setProperty("sun.net.httpserver.nodelay", "true");
        ExecutorService handlers = Executors.newFixedThreadPool(16, r -> {
            Thread t = new Thread(r, "recording-http");
            t.setDaemon(true);
            return t;
        });
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0), 0);
        RecordingHttpTarget target = new RecordingHttpTarget(server, handlers, ids, delayMillis);
        server.createContext("/", target::handle);
        server.setExecutor(handlers);
        server.start();
        return target;
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    long requests() {
        return requests.get();
    }

    long stray() {
        return stray.get();
    }

    /** How many requests named call {@code id}. */
    int hits(int id) {
        return hits.get(id);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange; InputStream body = exchange.getRequestBody(); OutputStream out = exchange.getResponseBody()) {
            body.transferTo(OutputStream.nullOutputStream());
            requests.incrementAndGet();
            record(exchange.getRequestURI().getRawPath());
            if (delayMillis > 0) {
                Thread.sleep(delayMillis);
            }
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, LoopbackHttpService.BODY.length);
            out.write(LoopbackHttpService.BODY);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void record(String path) {
        if (path != null && path.startsWith(PATH)) {
            try {
                int id = Integer.parseInt(path.substring(PATH.length()));
                if (id >= 0 && id < hits.length()) {
                    hits.incrementAndGet(id);
                    return;
                }
            } catch (NumberFormatException e) {
                // falls through: not a call id
            }
        }
        stray.incrementAndGet();
    }

    @Override
    public void close() {
        server.stop(0);
        handlers.shutdownNow();
    }
}
