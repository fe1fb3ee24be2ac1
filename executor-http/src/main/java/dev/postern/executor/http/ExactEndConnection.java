package dev.postern.executor.http;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hc.client5.http.impl.io.DefaultHttpResponseParserFactory;
import org.apache.hc.client5.http.impl.io.DefaultManagedHttpClientConnection;
import org.apache.hc.client5.http.io.ManagedHttpClientConnection;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.config.Http1Config;
import org.apache.hc.core5.http.io.HttpConnectionFactory;
import org.apache.hc.core5.http.io.HttpMessageParser;
import org.apache.hc.core5.http.io.SessionInputBuffer;
import org.apache.hc.core5.http.message.MessageSupport;

/**
 * A client connection that may go back to its pool only when its last response ended exactly
 * where it said it would: the body was read to its declared end (or the response has no body) and
 * not one byte more is buffered or waiting on the socket. Anything a target sends past the end of
 * its response (a smuggled second response) makes the pool discard the connection instead of
 * handing those bytes to the next call. Bytes that arrive later still, after the check, stay on a
 * connection that only the same target's calls reuse (see {@link Clients}).
 */
final class ExactEndConnection extends DefaultManagedHttpClientConnection {
    private static final AtomicLong IDS = new AtomicLong();

    private final BufferProbe probe;
    private volatile String method;
    /** True while the last response is known to have ended exactly at its declared end. */
    private volatile boolean endedExactly = true;

    private ExactEndConnection(String id, Http1Config config, BufferProbe probe) {
        super(id, null, null, config, null, null, null, probe.parserFactory());
        this.probe = probe;
    }

    /** The factory the pool uses; it binds each new connection to its socket as HttpClient's own does. */
    static HttpConnectionFactory<ManagedHttpClientConnection> factory(Http1Config config) {
        return socket -> {
            ExactEndConnection connection = new ExactEndConnection("postern-" + IDS.getAndIncrement(), config,
                    new BufferProbe(config));
            if (socket != null) {
                connection.bind(socket);
            }
            return connection;
        };
    }

    @Override
    public void sendRequestHeader(ClassicHttpRequest request) throws HttpException, IOException {
        method = request.getMethod();
        super.sendRequestHeader(request);
    }

    @Override
    public ClassicHttpResponse receiveResponseHeader() throws HttpException, IOException {
        ClassicHttpResponse response = super.receiveResponseHeader();
        if (response.getCode() >= 200) {
            endedExactly = false;
            if (method != null && !MessageSupport.canResponseHaveBody(method, response)) {
                // No body will be read (HEAD, 204, 304): the head itself is the end.
                endedExactly = nothingMore(probe.buffer, socketInput());
            }
        }
        return response;
    }

    @Override
    protected InputStream createContentInputStream(long length, SessionInputBuffer buffer, InputStream socket) {
        InputStream body = super.createContentInputStream(length, buffer, socket);
        return new FilterInputStream(body) {
            @Override
            public int read() throws IOException {
                int b = super.read();
                if (b < 0) {
                    atEnd(buffer, socket);
                }
                return b;
            }

            @Override
            public int read(byte[] into, int off, int len) throws IOException {
                int n = super.read(into, off, len);
                if (n < 0) {
                    atEnd(buffer, socket);
                }
                return n;
            }

            /**
             * Closing reads the body to its declared end (a decompressing reader stops at the
             * gzip trailer without asking for more); only then is the end checked.
             */
            @Override
            public void close() throws IOException {
                super.close();
                atEnd(buffer, socket);
            }
        };
    }

    private void atEnd(SessionInputBuffer buffer, InputStream socket) {
        endedExactly = nothingMore(buffer, socket);
    }

    /** The pool reuses a connection only when this is true: the last response ended exactly. */
    @Override
    public boolean isConsistent() {
        return endedExactly && super.isConsistent();
    }

    private InputStream socketInput() {
        Socket socket = getSocket();
        try {
            return socket == null ? null : socket.getInputStream();
        } catch (IOException e) {
            return null;
        }
    }

    private static boolean nothingMore(SessionInputBuffer buffer, InputStream socket) {
        if (buffer == null || socket == null || buffer.length() > 0) {
            return false;
        }
        try {
            return socket.available() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** Remembers the session buffer the response parser reads heads from (the connection's own, never replaced). */
    private static final class BufferProbe {
        private final HttpMessageParser<ClassicHttpResponse> parser;
        private volatile SessionInputBuffer buffer;

        BufferProbe(Http1Config config) {
            this.parser = new DefaultHttpResponseParserFactory(config).create();
        }

        org.apache.hc.core5.http.io.HttpMessageParserFactory<ClassicHttpResponse> parserFactory() {
            return ignored -> (buffer, in) -> {
                this.buffer = buffer;
                return parser.parse(buffer, in);
            };
        }
    }
}
