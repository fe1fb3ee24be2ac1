package dev.postern.transport;

import static dev.postern.transport.TestStreams.ascii;
import static dev.postern.transport.TestStreams.hex;
import static dev.postern.transport.TestStreams.sha256;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.transport.FramingError.Kind;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The framing rules, with Netty's LineBasedFrameDecoderTest table ported (where Netty recovers
 * after an error, Postern stops: the session closes), every input fed whole and in small reads.
 */
class FrameReaderTest {
    private static final int LIMIT = 8192;
    private static final String EMPTY_SHA = sha256(new byte[0]);

    /** Reads until the first result that is not a frame, and returns everything read. */
    private static List<ReadResult> readAll(InputStream in, int limit) {
        FrameReader reader = new FrameReader(in, limit);
        List<ReadResult> results = new ArrayList<>();
        ReadResult r;
        do {
            r = reader.next();
            results.add(r);
        } while (r instanceof Frame);
        return results;
    }

    private static List<ReadResult> readAll(byte[] input, int chunk, int limit) {
        return readAll(new TestStreams.Chunked(input, chunk), limit);
    }

    private static List<ReadResult> readAll(String input, int chunk) {
        return readAll(ascii(input), chunk, LIMIT);
    }

    private static FramingError error(Kind kind, byte[] seen) {
        return new FramingError(kind, "ignored", sha256(seen));
    }

    /** Compares kinds and fingerprints; details are free text and checked where they matter. */
    private static void assertResults(List<ReadResult> expected, List<ReadResult> actual) {
        assertEquals(expected.size(), actual.size(), () -> "results: " + actual);
        for (int i = 0; i < expected.size(); i++) {
            ReadResult e = expected.get(i);
            ReadResult a = actual.get(i);
            if (e instanceof FramingError ee) {
                FramingError ae = assertInstanceOf(FramingError.class, a, "result " + i + " of " + actual);
                assertEquals(ee.kind(), ae.kind(), "result " + i + ": " + ae.detail());
                assertEquals(ee.sha256(), ae.sha256(), "fingerprint of result " + i);
            } else {
                assertEquals(e, a, "result " + i);
            }
        }
    }

    // ---- Netty's table ----

    @ParameterizedTest(name = "fed {0} bytes per read")
    @ValueSource(ints = {1, 2, 3, FrameReader.CHUNK_BYTES})
    void lfAndCrlfEndLinesAndAnUnterminatedRestIsTruncated(int chunk) {
        assertResults(List.of(Frame.of("first"), Frame.of("second"), error(Kind.TRUNCATED, ascii("third"))),
                readAll("first\r\nsecond\nthird", chunk));
    }

    @ParameterizedTest(name = "fed {0} bytes per read")
    @ValueSource(ints = {1, 2, 3, FrameReader.CHUNK_BYTES})
    void crlfLinesSplitCorrectly(int chunk) {
        assertResults(List.of(Frame.of("line"), Frame.of("."), new EndOfInput()), readAll("line\r\n.\r\n", chunk));
    }

    @ParameterizedTest(name = "fed {0} bytes per read")
    @ValueSource(ints = {1, 2, 3, FrameReader.CHUNK_BYTES})
    void tooLongLineIsRefusedAndReadingStops(int chunk) {
        // Netty delivers "first" after the error; Postern closes the session instead.
        List<ReadResult> results = readAll(ascii("12345678901234567890\r\nfirst\nsecond"), chunk, 16);
        assertResults(List.of(error(Kind.TOO_LONG, ascii("1234567890123456"))), results);
    }

    @ParameterizedTest(name = "fed {0} bytes per read")
    @ValueSource(ints = {1, 2, 3, 17})
    void tooLongLineSpanningReadsIsRefused(int chunk) {
        List<ReadResult> results = readAll(ascii("12345678901234567890\r\nfirst\r\n"), chunk, 16);
        assertResults(List.of(error(Kind.TOO_LONG, ascii("1234567890123456"))), results);
    }

    @Test
    void aLineIsBufferedExactlyWhileALineFeedIsAmongTheBytesAlreadyRead() {
        TestStreams.Chunked in = new TestStreams.Chunked(ascii("{\"a\":1}\r\n{\"b\":2}\n{\"c\""), 1 << 16);
        FrameReader reader = new FrameReader(in, 1024);
        assertFalse(reader.hasBufferedLine(), "nothing read yet");
        assertEquals("{\"a\":1}", assertInstanceOf(Frame.class, reader.next()).text());
        assertTrue(reader.hasBufferedLine(), "the second line came in the same read");
        int pulled = in.pulled();
        assertEquals("{\"b\":2}", assertInstanceOf(Frame.class, reader.next()).text());
        assertEquals(pulled, in.pulled(), "a buffered line is returned without reading");
        assertFalse(reader.hasBufferedLine(), "only part of the third line is here");
        assertInstanceOf(FramingError.class, reader.next());
        assertTrue(reader.hasBufferedLine(), "a terminal result is returned again without reading");
    }

    @Test
    void bufferedLinesAreCountedUpToTheNumberAsked() {
        FrameReader reader = new FrameReader(new TestStreams.Chunked(ascii("{}\n[]\n1\n2\n3"), 1 << 16), 1024);
        assertEquals("{}", assertInstanceOf(Frame.class, reader.next()).text());
        assertTrue(reader.hasBufferedLines(3), "three whole lines follow");
        assertFalse(reader.hasBufferedLines(4), "the fourth has no line feed yet");
        assertEquals("[]", assertInstanceOf(Frame.class, reader.next()).text());
        assertTrue(reader.hasBufferedLines(2));
        assertFalse(reader.hasBufferedLines(3));
    }

    @Test
    void aLineReadAloneLeavesNothingBuffered() {
        FrameReader reader = new FrameReader(new TestStreams.Chunked(ascii("{\"a\":1}\n{\"b\":2}\n"), 8), 1024);
        assertEquals("{\"a\":1}", assertInstanceOf(Frame.class, reader.next()).text());
        assertFalse(reader.hasBufferedLine());
        assertEquals("{\"b\":2}", assertInstanceOf(Frame.class, reader.next()).text());
        assertFalse(reader.hasBufferedLine());
        assertInstanceOf(EndOfInput.class, reader.next());
        assertTrue(reader.hasBufferedLine());
    }

    @Test
    void tooLongLineIsRefusedWithoutWaitingForItsEnd() {
        // Netty's fail-fast case: the stream has nothing after the 17th byte but a failure.
        TestStreams.FailingAfter in = new TestStreams.FailingAfter(ascii("12345678901234567"), "read past the limit");
        ReadResult result = new FrameReader(in, 16).next();
        assertEquals(Kind.TOO_LONG, assertInstanceOf(FramingError.class, result).kind());
        assertEquals(0, in.failures, "the reader asked for bytes after the limit was crossed");
    }

    @ParameterizedTest(name = "fed {0} bytes per read")
    @ValueSource(ints = {1, 2, 3, FrameReader.CHUNK_BYTES})
    void fragmentedLinesAreReassembled(int chunk) {
        assertResults(List.of(Frame.of("huuhaa"), Frame.of("huuhaa"), new EndOfInput()),
                readAll("huuhaa\r\nhuuhaa\r\n", chunk));
    }

    @ParameterizedTest(name = "fed {0} bytes per read")
    @ValueSource(ints = {1, 2, 3, FrameReader.CHUNK_BYTES})
    void emptyLineIsRefused(int chunk) {
        // Netty yields an empty frame and then "abcna"; an empty line is never a protocol message.
        assertResults(List.of(error(Kind.EMPTY_LINE, new byte[0])), readAll("\nabcna\r\n", chunk));
    }

    // ---- line ends and the limit ----

    @ParameterizedTest(name = "terminator {0}")
    @ValueSource(strings = {"\n", "\r\n"})
    void lineOfExactlyTheLimitIsAccepted(String terminator) {
        assertResults(List.of(Frame.of("1234567890123456"), new EndOfInput()),
                readAll(ascii("1234567890123456" + terminator), 1, 16));
    }

    @ParameterizedTest(name = "fed {0} bytes per read")
    @ValueSource(ints = {1, 2, 3, FrameReader.CHUNK_BYTES})
    void limitCountsBytesNotCharacters(int chunk) {
        byte[] line = "\u00e9\u00e9\u00e9".getBytes(StandardCharsets.UTF_8);
        assertEquals(6, line.length);
        assertResults(List.of(Frame.of("\u00e9\u00e9\u00e9"), new EndOfInput()), readAll(concat(line, hex("0D 0A")), chunk, 6));
        assertResults(List.of(error(Kind.TOO_LONG, java.util.Arrays.copyOf(line, 5))), readAll(concat(line, hex("0A")), chunk, 5));
    }

    @ParameterizedTest(name = "fed {0} bytes per read")
    @ValueSource(ints = {1, 2, 3, FrameReader.CHUNK_BYTES})
    void nulByteIsFramedAndLeftToTheJsonStage(int chunk) {
        // Framing judges bytes, not content: a NUL is valid UTF-8, and strict JSON refuses it
        // outside a string and unescaped inside one (the corpus proves that end to end).
        assertResults(List.of(Frame.of("{\u0000}"), new EndOfInput()), readAll(hex("7B 00 7D 0A"), chunk, LIMIT));
    }

    @Test
    void lineOfExactlyTheLimitCutOffIsTruncated() {
        assertResults(List.of(error(Kind.TRUNCATED, ascii("1234567890123456"))),
                readAll(ascii("1234567890123456"), 5, 16));
    }

    @ParameterizedTest(name = "fed {0} bytes per read")
    @ValueSource(ints = {1, 2, 3, FrameReader.CHUNK_BYTES})
    void loneCrlfIsAnEmptyLine(int chunk) {
        assertResults(List.of(Frame.of("a"), error(Kind.EMPTY_LINE, new byte[0])), readAll("a\n\r\nb\n", chunk));
    }

    @ParameterizedTest(name = "fed {0} bytes per read")
    @ValueSource(ints = {1, 2, 3, FrameReader.CHUNK_BYTES})
    void bareCrIsRefused(int chunk) {
        assertResults(List.of(Frame.of("ok"), error(Kind.BARE_CR, ascii("ab\r"))), readAll("ok\nab\rcd\n", chunk));
        assertResults(List.of(error(Kind.BARE_CR, ascii("\r"))), readAll("\r\r\n", chunk));
    }

    @ParameterizedTest(name = "fed {0} bytes per read")
    @ValueSource(ints = {1, 2, FrameReader.CHUNK_BYTES})
    void crAtEndOfInputIsTruncated(int chunk) {
        assertResults(List.of(error(Kind.TRUNCATED, ascii("ab\r"))), readAll("ab\r", chunk));
    }

    @Test
    void bareCrDetailNamesItsPosition() {
        FramingError e = assertInstanceOf(FramingError.class, readAll("ok\nab\rcd\n", 1).get(1));
        assertEquals("line 2: CR not followed by LF at byte 2", e.detail());
    }

    @ParameterizedTest(name = "fed {0} bytes per read")
    @ValueSource(ints = {1, 2, 3, FrameReader.CHUNK_BYTES})
    void endOfInputAtALineBoundaryIsClean(int chunk) {
        assertResults(List.of(new EndOfInput()), readAll("", chunk));
        FrameReader reader = new FrameReader(new TestStreams.Chunked(ascii("{}\n"), chunk), LIMIT);
        assertEquals(Frame.of("{}"), reader.next());
        assertEquals(new EndOfInput(), reader.next());
        assertEquals(new EndOfInput(), reader.next());
    }

    @ParameterizedTest(name = "fed {0} bytes per read")
    @ValueSource(ints = {1, 2, 3, FrameReader.CHUNK_BYTES})
    void truncatedLastLineIsNeverDispatched(int chunk) {
        assertResults(List.of(Frame.of("{\"a\":1}"), error(Kind.TRUNCATED, ascii("{\"b\":2}"))),
                readAll("{\"a\":1}\n{\"b\":2}", chunk));
    }

    @Test
    void framingErrorIsTerminalAndReadsNothingMore() {
        TestStreams.Chunked in = new TestStreams.Chunked(ascii("ab\rcd\nef\n"), 1);
        FrameReader reader = new FrameReader(in, LIMIT);
        ReadResult first = reader.next();
        assertEquals(Kind.BARE_CR, assertInstanceOf(FramingError.class, first).kind());
        int pulled = in.pulled();
        assertSame(first, reader.next());
        assertSame(first, reader.next());
        assertEquals(pulled, in.pulled());
    }

    @Test
    void streamFailureBecomesIoErrorOverTheBytesSeen() {
        TestStreams.FailingAfter in = new TestStreams.FailingAfter(ascii("{}\n{\"a\""), "disk on fire");
        FrameReader reader = new FrameReader(in, LIMIT);
        assertEquals(Frame.of("{}"), reader.next());
        FramingError e = assertInstanceOf(FramingError.class, reader.next());
        assertEquals(Kind.IO_ERROR, e.kind());
        assertTrue(e.detail().contains("disk on fire"), e.detail());
        assertEquals(sha256(ascii("{\"a\"")), e.sha256());
        assertSame(e, reader.next());
        assertEquals(1, in.failures);
    }

    @Test
    void oversizeLineIsRejectedWithoutBuffering() {
        int limit = 1024 * 1024;
        TestStreams.Generated in = new TestStreams.Generated(50L * 1024 * 1024, (byte) 'x');
        FramingError e = assertInstanceOf(FramingError.class, new FrameReader(in, limit).next());
        assertEquals(Kind.TOO_LONG, e.kind());
        assertTrue(in.pulled() <= limit + FrameReader.CHUNK_BYTES, "pulled " + in.pulled() + " bytes");
        byte[] firstMebibyte = new byte[limit];
        java.util.Arrays.fill(firstMebibyte, (byte) 'x');
        assertEquals(sha256(firstMebibyte), e.sha256());
    }

    @Test
    void lineSpanningManyReadsIsAcceptedWhole() {
        String text = "y".repeat(200_000);
        assertResults(List.of(Frame.of(text), new EndOfInput()),
                readAll(ascii(text + "\r\n"), FrameReader.CHUNK_BYTES, 256 * 1024));
    }

    // ---- byte order mark and UTF-8 ----

    @ParameterizedTest(name = "fed {0} bytes per read")
    @ValueSource(ints = {1, 2, 3, FrameReader.CHUNK_BYTES})
    void leadingByteOrderMarkIsRefused(int chunk) {
        byte[] line = hex("EF BB BF 7B 7D");
        assertResults(List.of(error(Kind.BYTE_ORDER_MARK, line)), readAll(concat(line, hex("0A")), chunk, LIMIT));
        assertResults(List.of(Frame.of("{}"), error(Kind.BYTE_ORDER_MARK, line)),
                readAll(concat(ascii("{}\n"), line, hex("0A")), chunk, LIMIT));
    }

    @Test
    void byteOrderMarkCharacterInsideALineIsText() {
        String text = "{\"a\":\"\uFEFF\"}";
        assertResults(List.of(Frame.of(text), new EndOfInput()),
                readAll(concat(text.getBytes(StandardCharsets.UTF_8), hex("0A")), 2, LIMIT));
    }

    @ParameterizedTest(name = "{1}: {0}")
    @CsvSource({
        "C0 AF, overlong slash",
        "C1 BF, overlong two-byte form",
        "E0 80 AF, overlong three-byte form",
        "F0 80 80 AF, overlong four-byte form",
        "ED A0 80, encoded high surrogate",
        "ED BF BF, encoded low surrogate",
        "80, lone continuation byte",
        "BF, lone continuation byte BF",
        "F5 80 80 80, byte above F4",
        "FF, byte FF",
        "F4 90 80 80, code point above U+10FFFF",
        "E2 82, sequence cut by the next ASCII byte",
        "F0 9F 98, four-byte sequence cut short",
    })
    void malformedUtf8IsRefused(String bytes, String what) {
        byte[] line = concat(ascii("ab"), hex(bytes), ascii("cd"));
        for (int chunk : new int[] {1, 3, FrameReader.CHUNK_BYTES}) {
            List<ReadResult> results = readAll(concat(line, hex("0A")), chunk, LIMIT);
            assertResults(List.of(error(Kind.INVALID_UTF8, line)), results);
            assertEquals("line 1: invalid UTF-8 at byte 2", ((FramingError) results.get(0)).detail());
        }
    }

    @Test
    void sequenceCutByTheLineEndIsRefused() {
        assertResults(List.of(error(Kind.INVALID_UTF8, hex("61 E2 82"))), readAll(hex("61 E2 82 0A"), 1, LIMIT));
    }

    @ParameterizedTest(name = "fed {0} bytes per read")
    @ValueSource(ints = {1, 2, 3, FrameReader.CHUNK_BYTES})
    void multiByteCharactersAreAccepted(int chunk) {
        String text = "{\"text\":\"\uD83D\uDE00 \u20AC \u00E9 \u4E2D\"}";
        byte[] raw = text.getBytes(StandardCharsets.UTF_8);
        assertTrue(new String(raw, StandardCharsets.UTF_8).contains("\uD83D\uDE00"));
        List<ReadResult> results = readAll(concat(raw, hex("0A")), chunk, LIMIT);
        assertResults(List.of(new Frame(text, sha256(raw)), new EndOfInput()), results);
    }

    // ---- many lines across reads ----

    @ParameterizedTest(name = "fed {0} bytes per read")
    @ValueSource(ints = {1, 3, 4093, FrameReader.CHUNK_BYTES})
    void multiLineStreamYieldsEveryLineInOrder(int chunk) {
        Random random = new Random(7);
        String[] nonAscii = {"\u00E9", "\uD83D\uDE00", "\u20AC"};
        ByteArrayOutputStream input = new ByteArrayOutputStream();
        List<ReadResult> expected = new ArrayList<>();
        for (int i = 0; i < 1500; i++) {
            StringBuilder text = new StringBuilder("{\"id\":").append(i).append(",\"s\":\"");
            int length = random.nextInt(400);
            for (int j = 0; j < length; j++) {
                text.append(random.nextInt(10) == 0 ? nonAscii[random.nextInt(nonAscii.length)] : "a");
            }
            String line = text.append("\"}").toString();
            expected.add(Frame.of(line));
            input.writeBytes(line.getBytes(StandardCharsets.UTF_8));
            input.writeBytes(ascii(i % 3 == 0 ? "\r\n" : "\n"));
        }
        expected.add(new EndOfInput());
        assertTrue(input.size() > 2 * FrameReader.CHUNK_BYTES, "the stream must span several reads");
        assertResults(expected, readAll(input.toByteArray(), chunk, LIMIT));
    }

    // ---- construction ----

    @Test
    void constructorRefusesANonPositiveLimitAndNullStream() {
        assertThrows(IllegalArgumentException.class, () -> new FrameReader(InputStream.nullInputStream(), 0));
        assertThrows(NullPointerException.class, () -> new FrameReader(null, 1));
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
