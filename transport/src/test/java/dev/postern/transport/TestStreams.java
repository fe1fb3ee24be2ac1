package dev.postern.transport;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/** Input streams that behave like a slow pipe, a huge generated line, or a failing device. */
final class TestStreams {
    private TestStreams() {
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] hex(String hex) {
        return HexFormat.of().parseHex(hex.replace(" ", ""));
    }

    static String sha256(byte[] bytes) {
        return Sha256.of(bytes);
    }

    /** Hands out {@code data} at most {@code chunk} bytes per read, as a pipe fed in pieces does. */
    static final class Chunked extends InputStream {
        private final byte[] data;
        private final int chunk;
        private int pos;

        Chunked(byte[] data, int chunk) {
            this.data = data.clone();
            this.chunk = chunk;
        }

        int pulled() {
            return pos;
        }

        @Override
        public int read() {
            return pos < data.length ? data[pos++] & 0xFF : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (len == 0) {
                return 0;
            }
            if (pos == data.length) {
                return -1;
            }
            int n = Math.min(Math.min(len, chunk), data.length - pos);
            System.arraycopy(data, pos, b, off, n);
            pos += n;
            return n;
        }
    }

    /** {@code length} bytes of {@code fill} with no newline, generated on demand; counts bytes pulled. */
    static final class Generated extends InputStream {
        private final long length;
        private final byte fill;
        private long pulled;

        Generated(long length, byte fill) {
            this.length = length;
            this.fill = fill;
        }

        long pulled() {
            return pulled;
        }

        @Override
        public int read() {
            if (pulled == length) {
                return -1;
            }
            pulled++;
            return fill & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (len == 0) {
                return 0;
            }
            if (pulled == length) {
                return -1;
            }
            int n = (int) Math.min(len, length - pulled);
            java.util.Arrays.fill(b, off, off + n, fill);
            pulled += n;
            return n;
        }
    }

    /** Yields {@code prefix}, then fails every read with {@code message}. */
    static final class FailingAfter extends InputStream {
        private final byte[] prefix;
        private final String message;
        private int pos;
        int failures;

        FailingAfter(byte[] prefix, String message) {
            this.prefix = prefix.clone();
            this.message = message;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (pos < prefix.length) {
                int n = Math.min(len, prefix.length - pos);
                System.arraycopy(prefix, pos, b, off, n);
                pos += n;
                return n;
            }
            failures++;
            throw new IOException(message);
        }
    }
}
