package dev.postern.executor.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The socket half of the tests' raw HTTP/1.1 servers: binds the given server socket (plain or TLS) to
 * port 0 on a loopback address, accepts on a daemon thread, counts connections and hands each to the
 * test's handler on a daemon thread of its own. What bytes to answer is the handler's; requests have no body.
 */
final class RawHttpServer implements AutoCloseable {
    /** Serves one accepted connection until it is done with it; closing the socket is its job. */
    interface Handler {
        void serve(Socket connection);
    }

    private final ServerSocket socket;
    private final Handler handler;
    private final String name;
    private final AtomicInteger connections = new AtomicInteger();
    /** Released once per connection when its handler has returned (the handler closes the socket). */
    private final Semaphore closed = new Semaphore(0);
    private int closedSeen;

    RawHttpServer(ServerSocket unbound, InetAddress loopback, String name, Handler handler) throws IOException {
        this.socket = unbound;
        this.handler = handler;
        this.name = name;
        socket.bind(new InetSocketAddress(loopback, 0));
        Thread t = new Thread(this::acceptLoop, name + "-server");
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return socket.getLocalPort();
    }

    /** Connections accepted so far. */
    int connections() {
        return connections.get();
    }

    /** Waits until {@code count} connections in all have been served and closed; call from the test thread only. */
    void awaitClosed(int count) throws InterruptedException {
        int more = count - closedSeen;
        if (more > 0) {
            if (!closed.tryAcquire(more, 10, TimeUnit.SECONDS)) {
                throw new AssertionError("the server did not close connection " + count);
            }
            closedSeen = count;
        }
    }

    private void serveThenCount(Socket s) {
        try {
            handler.serve(s);
        } finally {
            closed.release();
        }
    }

    private void acceptLoop() {
        while (!socket.isClosed()) {
            try {
                Socket s = socket.accept();
                connections.incrementAndGet();
                Thread t = new Thread(() -> serveThenCount(s), name + "-connection");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    /** The request head up to its blank line, or null at end of stream. */
    static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int state = 0;
        while (state < 4) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            head.write(b);
            state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3)) ? state + 1
                    : b == '\r' ? 1 : 0;
        }
        return head.toString(StandardCharsets.US_ASCII);
    }

    /** The request target of a request head: the second word of its request line. */
    static String path(String head) {
        return head.substring(head.indexOf(' ') + 1, head.indexOf(' ', head.indexOf(' ') + 1));
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
