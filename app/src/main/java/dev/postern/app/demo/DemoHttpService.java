package dev.postern.app.demo;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The demo's HTTP service on 127.0.0.1 and a port the system chose: a few fixed JSON routes, 404
 * for the rest, and a count of every request that reached it. Thread-safe.
 */
final class DemoHttpService implements AutoCloseable {
    private static final Map<String, String> ROUTES = Map.of(
            "/api/status", "{\"service\":\"inventory\",\"healthy\":true,\"version\":\"1.4.2\"}",
            "/api/items", "[{\"id\":1,\"name\":\"widget\"},{\"id\":2,\"name\":\"gadget\"}]");

    private final HttpServer server;
    private final ExecutorService handlers;
    private final AtomicInteger requests = new AtomicInteger();

    private DemoHttpService(HttpServer server, ExecutorService handlers) {
        this.server = server;
        this.handlers = handlers;
    }

    static DemoHttpService start() throws IOException {
        ExecutorService handlers = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "demo-http-service");
            t.setDaemon(true);
            return t;
        });
        InetAddress loopback = InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        HttpServer server = HttpServer.create(new InetSocketAddress(loopback, 0), 0);
        DemoHttpService service = new DemoHttpService(server, handlers);
        server.createContext("/", service::handle);
        server.setExecutor(handlers);
        server.start();
        return service;
    }

    /** {@code http://127.0.0.1:PORT}, without a trailing slash. */
    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    int requestCount() {
        return requests.get();
    }

    @Override
    public void close() {
        server.stop(0);
        handlers.shutdownNow();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange; InputStream in = exchange.getRequestBody()) {
            requests.incrementAndGet();
            in.readNBytes(64 * 1024);
            String body = ROUTES.get(exchange.getRequestURI().getRawPath());
            int status = body == null ? 404 : 200;
            byte[] bytes = (body == null ? "{\"error\":\"not found\"}" : body).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }
}
