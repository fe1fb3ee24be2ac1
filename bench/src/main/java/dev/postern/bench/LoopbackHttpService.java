package dev.postern.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The HTTP target of the load run: a JDK server on 127.0.0.1, port 0, answering every request
 * with the same small JSON body and counting requests. Nothing is recorded, so a long run does not
 * grow it. Thread-safe.
 */
final class LoopbackHttpService implements AutoCloseable {
    static final byte[] BODY = "{\"ok\":true,\"items\":[1,2,3]}".getBytes(StandardCharsets.UTF_8);

    private final HttpServer server;
    private final ExecutorService handlers;
    private final AtomicLong requests = new AtomicLong();

    private LoopbackHttpService(HttpServer server, ExecutorService handlers) {
        this.server = server;
        this.handlers = handlers;
    }

    static LoopbackHttpService start() throws IOException {
        // Without TCP_NODELAY the JDK server's separate header and body writes meet the client's delayed
        // ACK, and every exchange waits ~40 ms: a property of the test server, not of what is measured.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        ExecutorService handlers = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "loopback-http");
            t.setDaemon(true);
            return t;
        });
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0), 0);
        LoopbackHttpService service = new LoopbackHttpService(server, handlers);
        server.createContext("/", service::handle);
        server.setExecutor(handlers);
        server.start();
        return service;
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    long requests() {
        return requests.get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange; InputStream body = exchange.getRequestBody(); OutputStream out = exchange.getResponseBody()) {
            body.transferTo(OutputStream.nullOutputStream());
            requests.incrementAndGet();
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, BODY.length);
            out.write(BODY);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        handlers.shutdownNow();
    }
}
