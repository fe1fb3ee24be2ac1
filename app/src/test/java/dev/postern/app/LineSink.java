package dev.postern.app;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;

/** Collects whole lines as the gateway's FrameWriter writes them, and every byte as written, for the live-session test harnesses. */
final class LineSink extends OutputStream {
    private final BlockingQueue<String> lines;
    private final ByteArrayOutputStream current = new ByteArrayOutputStream();
    private final ByteArrayOutputStream raw = new ByteArrayOutputStream();

    LineSink(BlockingQueue<String> lines) {
        this.lines = lines;
    }

    @Override
    public synchronized void write(int b) {
        raw.write(b);
        if (b == '\n') {
            lines.add(current.toString(StandardCharsets.UTF_8));
            current.reset();
        } else {
            current.write(b);
        }
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
        for (int i = off; i < off + len; i++) {
            write(b[i]);
        }
    }

    /** Every byte written so far, exactly as written. */
    synchronized byte[] raw() {
        return raw.toByteArray();
    }
}
