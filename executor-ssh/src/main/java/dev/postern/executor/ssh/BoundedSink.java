package dev.postern.executor.ssh;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.util.Objects;

/**
 * One remote stream's bytes up to a cap; everything past the cap is counted and dropped, never
 * buffered, so a chatty command cannot grow memory. Written by the SSH I/O thread and read by the
 * calling thread, hence synchronized.
 */
final class BoundedSink extends OutputStream {
    private final long cap;
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private long seen;

    BoundedSink(long cap) {
        if (cap < 1) {
            throw new IllegalArgumentException("cap must be positive, got " + cap);
        }
        this.cap = cap;
    }

    @Override
    public synchronized void write(int b) {
        if (seen < cap) {
            kept.write(b);
        }
        seen++;
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
        Objects.checkFromIndexSize(off, len, b.length);
        long room = cap - seen;
        if (room > 0) {
            kept.write(b, off, (int) Math.min(room, len));
        }
        seen += len;
    }

    synchronized byte[] bytes() {
        return kept.toByteArray();
    }

    synchronized boolean truncated() {
        return seen > cap;
    }

    synchronized long seen() {
        return seen;
    }
}
