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
 * handing those bytes to the next call, and fails the call itself: the read that reaches the end of
 * the body (or closing the body, or receiving a bodiless head) throws {@link ResponseOverrunException}.
 * Bytes that arrive after that check but before the connection's next request is sent fail that
 * next call (always the same target's: see {@link Clients}) instead of answering it. Bytes that
 * arrive only after the next request was sent cannot be told from its response.
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

    /**
     * Before a request goes out on a kept connection, bytes already waiting on it can only be left
     * over from the previous response (they came after its end was checked): the call fails rather
     * than read them as its answer.
     */
    @Override
    public void sendRequestHeader(ClassicHttpRequest request) throws HttpException, IOException {
        if (bytesWaiting()) {
            throw new ResponseOverrunException(
                    "bytes were waiting on its kept connection before this request was sent, left over from the previous response");
        }
        method = request.getMethod();
        super.sendRequestHeader(request);
    }

    /** True when bytes nobody asked for are buffered or readable now; never blocks. */
    private boolean bytesWaiting() {
        SessionInputBuffer buffer = probe.buffer;
        if (buffer != null && buffer.length() > 0) {
            return true;
        }
        InputStream socket = socketInput();
        try {
            return socket != null && socket.available() > 0;
        } catch (IOException e) {
            return false; // a broken socket fails the send on its own
        }
    }

    @Override
    public ClassicHttpResponse receiveResponseHeader() throws HttpException, IOException {
        ClassicHttpResponse response = super.receiveResponseHeader();
        if (response.getCode() >= 200) {
            endedExactly = false;
            if (method != null && !MessageSupport.canResponseHaveBody(method, response)) {
                // No body will be read (HEAD, 204, 304): the head itself is the end.
                endedExactly = nothingMore(probe.buffer, socketInput());
                if (!endedExactly) {
                    throw new ResponseOverrunException(
                            "bytes followed the end of its response head (status " + response.getCode() + ", no body)");
                }
            }
        }
        return response;
    }

    @Override
    protected InputStream createContentInputStream(long length, SessionInputBuffer buffer, InputStream socket) {
        return new EndCheckingStream(super.createContentInputStream(length, buffer, socket), buffer, socket);
    }

    /** Records whether the response ended exactly; more bytes after the end are an overrun. */
    private void checkEnd(SessionInputBuffer buffer, InputStream socket) throws ResponseOverrunException {
        endedExactly = nothingMore(buffer, socket);
        if (!endedExactly) {
            throw new ResponseOverrunException("bytes followed the end of its response body");
        }
    }

    /**
     * A response body that checks, once, where it ends: at the read that returns end of stream or,
     * failing that, on close.
     */
    private final class EndCheckingStream extends FilterInputStream {
        private final SessionInputBuffer buffer;
        private final InputStream socket;
        private boolean checked;

        EndCheckingStream(InputStream body, SessionInputBuffer buffer, InputStream socket) {
            super(body);
            this.buffer = buffer;
            this.socket = socket;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b < 0) {
                atEnd();
            }
            return b;
        }

        @Override
        public int read(byte[] into, int off, int len) throws IOException {
            int n = super.read(into, off, len);
            if (n < 0) {
                atEnd();
            }
            return n;
        }

        /**
         * Closing reads the body to its declared end (a decompressing reader stops at the gzip
         * trailer without asking for more); only then is the end checked.
         */
        @Override
        public void close() throws IOException {
            super.close();
            atEnd();
        }

        private void atEnd() throws ResponseOverrunException {
            if (!checked) {
                checked = true;
                checkEnd(buffer, socket);
            }
        }
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
