package dev.postern.executor.http;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import org.apache.hc.core5.ssl.SSLContexts;

/**
 * An HTTPS server on 127.0.0.1 (port 0) presenting the certificate of a given key store and
 * answering every path with 200 and a fixed body; counts the requests that got past TLS.
 */
final class LoopbackHttpsServer implements AutoCloseable {
    private final HttpsServer server;
    private final AtomicInteger requests = new AtomicInteger();

    private LoopbackHttpsServer(Path keystore, char[] password, String body) throws Exception {
        SSLContext context = SSLContexts.custom().loadKeyMaterial(keystore, password, password).build();
        server = HttpsServer.create(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(context));
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        server.createContext("/", exchange -> {
            requests.incrementAndGet();
            exchange.sendResponseHeaders(200, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
        server.start();
    }

    static LoopbackHttpsServer start(Path keystore, char[] password, String body) throws Exception {
        return new LoopbackHttpsServer(keystore, password, body);
    }

    /** {@code https://127.0.0.1:PORT}, without a trailing slash. */
    String baseUrl() {
        return "https://127.0.0.1:" + server.getAddress().getPort();
    }

    int requestCount() {
        return requests.get();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
