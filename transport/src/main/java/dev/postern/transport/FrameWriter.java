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
 *
 * <p>A line may also be {@linkplain #hold held}: checked and encoded at once, but written with the
 * next {@link #write} or {@link #release} (held lines first, in order, all in that one {@code write}),
 * or as soon as {@value #MAX_HELD_LINES} lines or {@value #MAX_HELD_BYTES} bytes are held. A caller
 * that holds a line must release it before it waits for anything; the session does so before its
 * reader blocks on input, so lines are held only while more input is already at hand.
 */
public final class FrameWriter implements Closeable {
    /**
     * At most this many lines are held; the one that reaches it is written at once, with those before it.
     * Four, measured against sixteen and one (no holding) at depth 64 in interleaved runs: sixteen kept
     * the client waiting for whole batches, so the reader found its input empty and slept more often
     * (docs/benchmarks.md, item 14).
     */
    public static final int MAX_HELD_LINES = 4;
    /** Held lines are written at once when they reach this many bytes. */
    public static final int MAX_HELD_BYTES = 32 * 1024;

    private final OutputStream out;
    private IOException breakage;
    private boolean closed;
    /** Lines held, encoded and framed, are {@code held[0..heldLength)}: {@code heldLines} of them. */
    private byte[] held = new byte[0];
    private int heldLength;
    private int heldLines;

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
            requireOpen();
            if (heldLength == 0) {
                emit(framed, framed.length);
            } else {
                append(framed);
                emitHeld();
            }
        }
    }

    /**
     * Checks and encodes {@code line} as {@link #write} does, and holds it for the next {@code write} or
     * {@link #release}; writes it and every held line now if that makes {@value #MAX_HELD_LINES} lines
     * or {@value #MAX_HELD_BYTES} bytes.
     *
     * @throws IllegalArgumentException as {@link #write}; nothing is held
     * @throws IOException if the stream fails now or failed before, or the writer is closed
     */
    public void hold(String line) throws IOException {
        byte[] framed = encode(line);
        synchronized (this) {
            requireOpen();
            append(framed);
            if (heldLines >= MAX_HELD_LINES || heldLength >= MAX_HELD_BYTES) {
                emitHeld();
            }
        }
    }

    /** Writes the held lines, if any, in one {@code write}, and flushes. */
    public synchronized void release() throws IOException {
        if (heldLength == 0) {
            return;
        }
        requireOpen();
        emitHeld();
    }

    private void requireOpen() throws IOException {
        if (closed) {
            throw new IOException("the frame writer is closed");
        }
        if (breakage != null) {
            throw new IOException("the protocol stream failed earlier: " + breakage.getMessage(), breakage);
        }
    }

    private void append(byte[] framed) {
        int needed = heldLength + framed.length;
        if (needed > held.length) {
            held = Arrays.copyOf(held, Math.max(needed, Math.max(4096, 2 * held.length)));
        }
        System.arraycopy(framed, 0, held, heldLength, framed.length);
        heldLength = needed;
        heldLines++;
    }

    /** Writes the held lines; they are gone whether or not the stream takes them (a failed stream stays failed). */
    private void emitHeld() throws IOException {
        int length = heldLength;
        heldLength = 0;
        heldLines = 0;
        emit(held, length);
    }

    private void emit(byte[] bytes, int length) throws IOException {
        try {
            out.write(bytes, 0, length);
            out.flush();
        } catch (IOException e) {
            breakage = e;
            throw e;
        }
    }

    /** Whether a write has failed; once true, stays true. */
    public synchronized boolean isBroken() {
        return breakage != null;
    }

    /** Writes any held lines (unless the stream has failed), then closes the protocol stream; later writes fail. Idempotent. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        try {
            if (heldLength > 0 && breakage == null) {
                emitHeld();
            }
        } finally {
            closed = true;
            out.close();
        }
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
