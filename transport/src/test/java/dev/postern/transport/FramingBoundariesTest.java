package dev.postern.transport;

import static dev.postern.transport.TestStreams.ascii;
import static dev.postern.transport.TestStreams.hex;
import static dev.postern.transport.TestStreams.sha256;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.postern.transport.FramingError.Kind;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The edges of the framing rules that the main tables do not pin: the smallest limit, a byte order
 * mark with nothing after it, the byte positions and counts that error details report, a stream
 * that reads zero bytes, and what the writer and the records refuse at the first and last character.
 */
class FramingBoundariesTest {

    /** A stream that hands out each piece in its own read, in order. */
    private static InputStream pieces(String... parts) {
        List<InputStream> streams = new java.util.ArrayList<>();
        for (String p : parts) {
            streams.add(new ByteArrayInputStream(ascii(p)));
        }
        return new SequenceInputStream(Collections.enumeration(streams));
    }

    @Test
    void aLimitOfOneByteAcceptsAOneByteLine() {
        FrameReader reader = new FrameReader(new ByteArrayInputStream(ascii("x\n")), 1);
        Frame frame = assertInstanceOf(Frame.class, reader.next());
        assertEquals("x", frame.text());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
    void aLimitBelowOneByteIsRefused(int limit) {
        assertThrows(IllegalArgumentException.class,
                () -> new FrameReader(new ByteArrayInputStream(ascii("x\n")), limit));
    }

    @Test
    void aLineThatIsOnlyAByteOrderMarkIsRefusedAsOne() {
        byte[] bom = hex("EF BB BF");
        byte[] input = hex("EF BB BF 0A");
        FramingError error = assertInstanceOf(FramingError.class,
                new FrameReader(new ByteArrayInputStream(input), 100).next());
        assertEquals(Kind.BYTE_ORDER_MARK, error.kind());
        assertEquals(sha256(bom), error.sha256());
    }

    @Test
    void invalidUtf8InALaterLineOfTheSameReadReportsItsPositionWithinThatLine() {
        // "ab\n" then "x", a lone continuation byte, "y": the bad byte is byte 1 of line 2.
        byte[] input = hex("61 62 0A 78 80 79 0A");
        FrameReader reader = new FrameReader(new ByteArrayInputStream(input), 100);
        assertEquals("ab", assertInstanceOf(Frame.class, reader.next()).text());
        FramingError error = assertInstanceOf(FramingError.class, reader.next());
        assertEquals(Kind.INVALID_UTF8, error.kind());
        assertEquals("line 2: invalid UTF-8 at byte 1", error.detail());
    }

    @Test
    void inputEndingInACarriageReturnCountsThatByteAsSeen() {
        FramingError error = assertInstanceOf(FramingError.class,
                new FrameReader(new ByteArrayInputStream(ascii("ab\r")), 100).next());
        assertEquals(Kind.TRUNCATED, error.kind());
        assertEquals("line 1: input ended after 3 bytes without a line feed", error.detail());
        assertEquals(sha256(ascii("ab\r")), error.sha256());
    }

    @Test
    void inputEndingWithoutALineFeedCountsEveryByteSeen() {
        FramingError error = assertInstanceOf(FramingError.class,
                new FrameReader(pieces("abc", "de"), 100).next());
        assertEquals(Kind.TRUNCATED, error.kind());
        assertEquals("line 1: input ended after 5 bytes without a line feed", error.detail());
    }

    @Test
    void aBareCarriageReturnInALineSpanningReadsReportsItsPositionInTheWholeLine() {
        FramingError error = assertInstanceOf(FramingError.class,
                new FrameReader(pieces("abc", "de\rx\n"), 100).next());
        assertEquals(Kind.BARE_CR, error.kind());
        assertEquals("line 1: CR not followed by LF at byte 5", error.detail());
        assertEquals(sha256(ascii("abcde\r")), error.sha256());
    }

    @Test
    void aReadOfZeroBytesIsNotTheEndOfInput() {
        InputStream stuttering = new InputStream() {
            private final byte[] data = ascii("ok\n");
            private int pos;
            private boolean stuttered;

            @Override
            public int read() {
                return pos < data.length ? data[pos++] : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (!stuttered) {
                    stuttered = true;
                    return 0;
                }
                if (pos == data.length) {
                    return -1;
                }
                int n = Math.min(len, data.length - pos);
                System.arraycopy(data, pos, b, off, n);
                pos += n;
                return n;
            }
        };
        FrameReader reader = new FrameReader(stuttering, 100);
        assertEquals("ok", assertInstanceOf(Frame.class, reader.next()).text());
        assertInstanceOf(EndOfInput.class, reader.next());
    }

    @ParameterizedTest
    @CsvSource({"'\uD83D', 0", "'ab\uD83D', 2", "'\uDE00', 0", "'ab\uDE00cd', 2"})
    void theWriterRefusesAnUnpairedSurrogateEvenAsTheLastCharacter(String line, int at) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FrameWriter.encode(line));
        assertEquals("line holds an unpaired surrogate (char " + at + ")", e.getMessage());
    }

    @Test
    void theWriterEncodesAPairedSurrogateAsOneFourByteCharacter() {
        assertArrayEquals(hex("F0 9F 98 80 0A"), FrameWriter.encode("\uD83D\uDE00"));
        assertArrayEquals(hex("61 F0 9F 98 80 0A"), FrameWriter.encode("a\uD83D\uDE00"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"\nab", "\rab", "ab\n", "ab\r"})
    void aFrameRefusesALineTerminatorAtEitherEnd(String text) {
        assertThrows(IllegalArgumentException.class, () -> new Frame(text, sha256(ascii("x"))));
    }
}
