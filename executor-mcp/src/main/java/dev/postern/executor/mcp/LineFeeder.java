package dev.postern.executor.mcp;

import java.io.IOException;
import java.io.InputStream;

/**
 * An upstream's stdout handed to a {@link dev.postern.transport.FrameReader} at most one line per
 * read: no read returns bytes past a line feed, so a reader never holds the next line when it refuses
 * one, and a fresh reader can take over after a refused line without losing a byte. After a refusal,
 * {@link #skipLine()} discards what is left of the refused line. Counts each line's bytes (for the
 * journal's length of a dropped line). Not thread-safe: the one reader thread.
 */
final class LineFeeder extends InputStream {
    private final InputStream in;
    private final byte[] buffer = new byte[64 * 1024];
    private int pos;
    private int end;
    /** Bytes of the current line handed out or skipped so far, its line feed included. */
    private long lineBytes;
    /** Bytes of the last line whose line feed was handed out or skipped. */
    private long lastLineBytes;
    private boolean atLineStart = true;

    LineFeeder(InputStream in) {
        this.in = in;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (!fill()) {
            return -1;
        }
        int stop = Math.min(end, pos + len);
        int i = pos;
        while (i < stop && buffer[i] != '\n') {
            i++;
        }
        boolean lineEnd = i < stop;
        int n = (lineEnd ? i + 1 : i) - pos;
        System.arraycopy(buffer, pos, b, off, n);
        pos += n;
        account(n, lineEnd);
        return n;
    }

    /** Discards the rest of the current line, up to and including its line feed (or the end of input). */
    void skipLine() throws IOException {
        while (!atLineStart && fill()) {
            int i = pos;
            while (i < end && buffer[i] != '\n') {
                i++;
            }
            boolean lineEnd = i < end;
            int n = (lineEnd ? i + 1 : i) - pos;
            pos += n;
            account(n, lineEnd);
        }
    }

    /** The byte length of the last whole line, its terminator excluded. */
    long lastLineBytes() {
        return Math.max(0, lastLineBytes - 1);
    }

    /** The bytes of the current, unfinished line seen so far. */
    long currentLineBytes() {
        return lineBytes;
    }

    private void account(int n, boolean lineEnd) {
        lineBytes += n;
        atLineStart = lineEnd;
        if (lineEnd) {
            lastLineBytes = lineBytes;
            lineBytes = 0;
        }
    }

    private boolean fill() throws IOException {
        if (pos < end) {
            return true;
        }
        int n = in.read(buffer, 0, buffer.length);
        if (n <= 0) {
            return false;
        }
        pos = 0;
        end = n;
        return true;
    }
}
