package dev.postern.transport;

import dev.postern.transport.FramingError.Kind;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Objects;

/**
 * Splits a byte stream into {@link Frame}s: lines ended by LF (a CR right before the LF is part of
 * the terminator), each at most {@code maxFrameBytes} bytes without the terminator and decoded as
 * strict UTF-8 after splitting. The limit is enforced while reading, so an oversize line is never
 * buffered beyond the limit plus one read chunk; every byte is scanned once, and a line is copied
 * only when it spans reads.
 *
 * <p>The first {@link FramingError} is terminal: every later call returns that same error again,
 * without reading, so a caller cannot mistake a refused stream for a clean end. After
 * {@link EndOfInput} every later call returns {@link EndOfInput}. Not thread-safe: one reader thread.
 */
public final class FrameReader {
    /** How many bytes one {@code read} asks the stream for. */
    public static final int CHUNK_BYTES = 64 * 1024;

    private static final byte LF = '\n';
    private static final byte CR = '\r';

    private final InputStream in;
    private final int maxFrameBytes;
    private final byte[] chunk = new byte[CHUNK_BYTES];
    private final MessageDigest digest = Sha256.newDigest();
    private final CharsetDecoder decoder = StrictUtf8.newDecoder();

    /** Unread bytes of the chunk are {@code chunk[pos..end)}; nothing before pos is looked at again. */
    private int pos;
    private int end;
    /** The current line's bytes from earlier chunks; grows up to the limit, never past it. */
    private byte[] line = new byte[0];
    private int lineLength;
    /** The previous chunk ended in a CR of the current line; the next byte decides CRLF or bare CR. */
    private boolean pendingCr;
    private long lineNumber;
    private ReadResult terminal;

    public FrameReader(InputStream in, int maxFrameBytes) {
        this.in = Objects.requireNonNull(in, "in");
        if (maxFrameBytes < 1) {
            throw new IllegalArgumentException("maxFrameBytes must be positive, got " + maxFrameBytes);
        }
        this.maxFrameBytes = maxFrameBytes;
    }

    /**
     * Blocks until one line has been read and returns it as a {@link Frame}, or returns why not.
     * Never throws for bad input; an {@link IOException} from the stream becomes
     * {@link Kind#IO_ERROR}.
     */
    public ReadResult next() {
        if (terminal != null) {
            return terminal;
        }
        lineNumber++;
        while (true) {
            if (pos == end) {
                int n;
                try {
                    n = in.read(chunk);
                } catch (IOException e) {
                    return fail(Kind.IO_ERROR, "reading failed: " + e, seenDigest());
                }
                if (n < 0) {
                    return endOfInput();
                }
                pos = 0;
                end = n;
                continue;
            }
            if (pendingCr) {
                pendingCr = false;
                if (chunk[pos] == LF) {
                    pos++;
                    return complete(line, 0, lineLength);
                }
                digest.update(CR);
                return fail(Kind.BARE_CR, "CR not followed by LF at byte " + lineLength, Sha256.finish(digest));
            }
            int start = pos;
            int i = start;
            while (i < end && chunk[i] != LF && chunk[i] != CR) {
                i++;
            }
            int segment = i - start;
            if ((long) lineLength + segment > maxFrameBytes) {
                digest.update(chunk, start, maxFrameBytes - lineLength);
                return fail(Kind.TOO_LONG, "line exceeds the limit of " + maxFrameBytes + " bytes",
                        Sha256.finish(digest));
            }
            digest.update(chunk, start, segment);
            if (i == end) {
                append(start, segment);
                pos = end;
                continue;
            }
            if (chunk[i] == CR) {
                if (i + 1 == end) {
                    append(start, segment);
                    pendingCr = true;
                    pos = end;
                    continue;
                }
                if (chunk[i + 1] != LF) {
                    digest.update(CR);
                    pos = i + 1;
                    return fail(Kind.BARE_CR, "CR not followed by LF at byte " + (lineLength + segment),
                            Sha256.finish(digest));
                }
                pos = i + 2;
            } else {
                pos = i + 1;
            }
            if (lineLength == 0) {
                return complete(chunk, start, segment);
            }
            append(start, segment);
            return complete(line, 0, lineLength);
        }
    }

    /**
     * Whether {@link #next} would return without reading from the stream: a terminal result, or a line
     * feed among the bytes already read. False (conservatively) for anything else, such as a bare CR
     * or an oversize line already buffered, which {@code next} would refuse without reading too.
     */
    public boolean hasBufferedLine() {
        return hasBufferedLines(1);
    }

    /** Whether at least {@code n} line feeds are among the bytes already read (or the result is terminal). */
    public boolean hasBufferedLines(int n) {
        if (terminal != null) {
            return true;
        }
        int seen = 0;
        for (int i = pos; i < end; i++) {
            if (chunk[i] == LF && ++seen >= n) {
                return true;
            }
        }
        return false;
    }

    private void append(int start, int length) {
        int needed = lineLength + length;
        if (needed > line.length) {
            long grown = Math.max(needed, Math.max(256L, 2L * line.length));
            line = Arrays.copyOf(line, (int) Math.min(grown, maxFrameBytes));
        }
        System.arraycopy(chunk, start, line, lineLength, length);
        lineLength = needed;
    }

    /** Judges a whole line (terminator excluded); the digest already holds exactly its bytes. */
    private ReadResult complete(byte[] bytes, int offset, int length) {
        String sha256 = Sha256.finish(digest);
        lineLength = 0;
        if (length == 0) {
            return fail(Kind.EMPTY_LINE, "empty line", sha256);
        }
        if (length >= 3 && bytes[offset] == (byte) 0xEF && bytes[offset + 1] == (byte) 0xBB
                && bytes[offset + 2] == (byte) 0xBF) {
            return fail(Kind.BYTE_ORDER_MARK, "line starts with a UTF-8 byte order mark", sha256);
        }
        if (isAscii(bytes, offset, length)) {
            // Every ASCII byte is a whole, valid UTF-8 character: nothing for the decoder to refuse.
            return new Frame(new String(bytes, offset, length, StandardCharsets.US_ASCII), sha256);
        }
        ByteBuffer input = ByteBuffer.wrap(bytes, offset, length);
        try {
            return new Frame(decoder.decode(input).toString(), sha256);
        } catch (CharacterCodingException e) {
            return fail(Kind.INVALID_UTF8, "invalid UTF-8 at byte " + (input.position() - offset), sha256);
        }
    }

    private static boolean isAscii(byte[] bytes, int offset, int length) {
        for (int i = offset, stop = offset + length; i < stop; i++) {
            if (bytes[i] < 0) {
                return false;
            }
        }
        return true;
    }

    private ReadResult endOfInput() {
        if (lineLength == 0 && !pendingCr) {
            terminal = new EndOfInput();
            return terminal;
        }
        int seen = lineLength + (pendingCr ? 1 : 0);
        return fail(Kind.TRUNCATED, "input ended after " + seen + " bytes without a line feed", seenDigest());
    }

    /** The digest of the current line's bytes read so far, a trailing CR included. */
    private String seenDigest() {
        if (pendingCr) {
            digest.update(CR);
        }
        return Sha256.finish(digest);
    }

    private ReadResult fail(Kind kind, String detail, String sha256) {
        terminal = new FramingError(kind, "line " + lineNumber + ": " + detail, sha256);
        return terminal;
    }
}
