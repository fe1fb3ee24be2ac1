package dev.postern.journal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a writer reads the end of a file before it appends (its last row, the row before it, a torn
 * tail), read backwards in 8 KiB blocks: rows across a block's edge, a line feed on a block's
 * first byte, and rows at exactly the row limit and one byte over it.
 */
class ChainTailTest {
    private static final int BLOCK = 8192;

    @TempDir
    Path dir;

    private static byte[] row(char c, int length) {
        byte[] b = new byte[length];
        Arrays.fill(b, (byte) c);
        return b;
    }

    /** The rows, each followed by a line feed, then {@code torn} with none. */
    private ChainedJsonLines.Tail tail(int maxRow, byte[] torn, byte[]... rows) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (byte[] r : rows) {
            bytes.writeBytes(r);
            bytes.write('\n');
        }
        bytes.writeBytes(torn);
        Path file = Files.write(dir.resolve("file-" + System.nanoTime()), bytes.toByteArray());
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
            return ChainedJsonLines.Tail.read(in, in.size(), maxRow);
        }
    }

    private static void assertTail(ChainedJsonLines.Tail t, byte[] beforeLast, byte[] last, byte[] torn) {
        assertArrayEquals(beforeLast, t.beforeLast().orElseThrow(), "the row before the last");
        assertArrayEquals(last, t.last().orElseThrow(), "the last row");
        assertArrayEquals(torn, t.tornBytes(), "the torn tail");
    }

    @Test
    void aLineFeedOnTheFirstByteOfABlockEndsTheRowBeforeIt() throws Exception {
        // Read from the end, the first block starts exactly on the line feed after "b…".
        byte[] a = row('a', 3);
        byte[] b = row('b', 20);
        byte[] c = row('c', BLOCK - 2);
        assertTail(tail(1 << 20, new byte[0], a, b, c), b, c, new byte[0]);
    }

    @Test
    void rowsAcrossBlockEdgesAreReadWholeWhateverWhereTheyStart() throws Exception {
        byte[] a = row('a', 4500);
        byte[] b = row('b', 4500);
        byte[] c = row('c', 4500);
        byte[] torn = row('t', 10);
        assertTail(tail(5000, torn, a, b, c), b, c, torn);
        assertTail(tail(5000, new byte[0], a, b, c), b, c, new byte[0]);
    }

    @Test
    void manyShortRowsInOneBlockAreReadUnderASmallRowLimit() throws Exception {
        byte[][] rows = new byte[200][];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = row((char) ('a' + i % 26), 49);
        }
        assertTail(tail(100, new byte[0], rows), rows[198], rows[199], new byte[0]);
    }

    @Test
    void aRowOfExactlyTheLimitIsARowAndOneByteMoreIsNotAJournal() throws Exception {
        byte[] exactly = row('x', 100);
        ChainedJsonLines.Tail alone = tail(100, new byte[0], exactly);
        assertArrayEquals(exactly, alone.last().orElseThrow());
        assertTrue(alone.beforeLast().isEmpty());
        assertEquals(0, alone.tornBytes().length);
        assertTail(tail(100, row('t', 100), row('a', 100), exactly), row('a', 100), exactly, row('t', 100));

        IOException over = assertThrows(IOException.class, () -> tail(100, new byte[0], row('a', 5), row('x', 101)));
        assertEquals("a row near the end is longer than 100 bytes; this is not a journal file", over.getMessage());
        assertThrows(IOException.class, () -> tail(100, row('t', 101), row('a', 5)), "a torn tail over the limit");
    }

    @Test
    void aFileWithoutALineFeedIsAllTornTail() throws Exception {
        ChainedJsonLines.Tail t = tail(100, "partial".getBytes(StandardCharsets.US_ASCII));
        assertTrue(t.last().isEmpty());
        assertTrue(t.beforeLast().isEmpty());
        assertArrayEquals("partial".getBytes(StandardCharsets.US_ASCII), t.tornBytes());
    }
}
