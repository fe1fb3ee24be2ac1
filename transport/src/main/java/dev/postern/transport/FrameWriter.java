package dev.postern.transport;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * Writes protocol lines: each line's UTF-8 bytes and its LF go to the stream in one
 * {@code write} of one array, then a flush, under the writer's lock, so lines from concurrent
 * threads never interleave. After the stream fails once (e.g. the client closed the pipe) the
 * writer is broken and every later write fails at once. Thread-safe.
 */
public final class FrameWriter implements Closeable {
    private final OutputStream out;
    private IOException breakage;
    private boolean closed;

    public FrameWriter(OutputStream protocolOut) {
        this.out = Objects.requireNonNull(protocolOut, "protocolOut");
    }

    /**
     * Writes {@code line} and a LF, and flushes.
     *
     * @throws IllegalArgumentException if the line is empty, holds CR or LF, or holds an unpaired
     *         surrogate (which has no UTF-8 form); nothing is written
     * @throws IOException if the stream fails now or failed before, or the writer is closed
     */
    public void write(String line) throws IOException {
        byte[] framed = encode(line);
        synchronized (this) {
            if (closed) {
                throw new IOException("the frame writer is closed");
            }
            if (breakage != null) {
                throw new IOException("the protocol stream failed earlier: " + breakage.getMessage(), breakage);
            }
            try {
                out.write(framed);
                out.flush();
            } catch (IOException e) {
                breakage = e;
                throw e;
            }
        }
    }

    /** Whether a write has failed; once true, stays true. */
    public synchronized boolean isBroken() {
        return breakage != null;
    }

    /** Closes the protocol stream; later writes fail. Idempotent. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        out.close();
    }

    /**
     * The line's UTF-8 bytes and a newline. The checks run through the JDK's own string routines
     * (indexOf, encoding, decoding, equals), which are compiled or intrinsic from the first call, so a
     * cold process does not walk each line char by char in the interpreter; the char-by-char walk only
     * runs to name the offending position once a check has failed.
     */
    static byte[] encode(String line) {
        Objects.requireNonNull(line, "line");
        if (line.isEmpty()) {
            throw new IllegalArgumentException("line must not be empty");
        }
        byte[] utf8 = line.getBytes(StandardCharsets.UTF_8);
        // Encoding replaces an unpaired surrogate with '?', so the round trip differs exactly when there is one.
        if (line.indexOf('\n') >= 0 || line.indexOf('\r') >= 0 || !new String(utf8, StandardCharsets.UTF_8).equals(line)) {
            reject(line);
        }
        byte[] framed = Arrays.copyOf(utf8, utf8.length + 1);
        framed[utf8.length] = '\n';
        return framed;
    }

    private static void reject(String line) {
        for (int i = 0, n = line.length(); i < n; i++) {
            char c = line.charAt(i);
            if (c == '\n' || c == '\r') {
                throw new IllegalArgumentException("line must not contain CR or LF (char " + i + ")");
            }
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(line.charAt(i + 1))) {
                    i++;
                } else {
                    throw new IllegalArgumentException("line holds an unpaired surrogate (char " + i + ")");
                }
            }
        }
        throw new IllegalStateException("a line failed a check that no char fails");
    }
}
