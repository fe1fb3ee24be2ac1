package dev.postern.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FrameWriterTest {

    /** Records each call; optionally fails them all. */
    private static final class RecordingStream extends OutputStream {
        final List<byte[]> writes = new ArrayList<>();
        int flushes;
        int calls;
        boolean closed;
        IOException failure;

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            calls++;
            if (failure != null) {
                throw failure;
            }
            writes.add(Arrays.copyOfRange(b, off, off + len));
        }

        @Override
        public void flush() {
            flushes++;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    @Test
    void eachLineIsOneWriteOfItsBytesAndLfThenAFlush() throws IOException {
        RecordingStream out = new RecordingStream();
        FrameWriter writer = new FrameWriter(out);
        writer.write("{\"a\":1}");
        writer.write("{\"e\":\"\u00E9\uD83D\uDE00\"}");
        assertEquals(2, out.writes.size());
        assertArrayEquals("{\"a\":1}\n".getBytes(StandardCharsets.UTF_8), out.writes.get(0));
        assertArrayEquals("{\"e\":\"\u00E9\uD83D\uDE00\"}\n".getBytes(StandardCharsets.UTF_8), out.writes.get(1));
        assertEquals(2, out.flushes);
    }

    @Test
    void heldLinesGoOutInOrderInTheOneWriteOfTheNextWrittenLine() throws IOException {
        RecordingStream out = new RecordingStream();
        FrameWriter writer = new FrameWriter(out);
        writer.hold("{\"a\":1}");
        writer.hold("{\"e\":\"\u00E9\uD83D\uDE00\"}");
        assertEquals(0, out.calls, "nothing written while held");
        assertEquals(0, out.flushes);
        writer.write("{\"c\":3}");
        assertEquals(1, out.writes.size());
        assertArrayEquals("{\"a\":1}\n{\"e\":\"\u00E9\uD83D\uDE00\"}\n{\"c\":3}\n".getBytes(StandardCharsets.UTF_8), out.writes.get(0));
        assertEquals(1, out.flushes);
        writer.write("{\"d\":4}");
        assertArrayEquals("{\"d\":4}\n".getBytes(StandardCharsets.UTF_8), out.writes.get(1), "nothing held twice");
    }

    @Test
    void releaseWritesTheHeldLinesInOneWriteAndNothingWhenNoneAreHeld() throws IOException {
        RecordingStream out = new RecordingStream();
        FrameWriter writer = new FrameWriter(out);
        writer.release();
        assertEquals(0, out.calls);
        assertEquals(0, out.flushes);
        writer.hold("{\"a\":1}");
        writer.hold("{\"b\":2}");
        writer.release();
        assertEquals(List.of("{\"a\":1}\n{\"b\":2}\n"), out.writes.stream().map(b -> new String(b, StandardCharsets.UTF_8)).toList());
        assertEquals(1, out.flushes);
        writer.release();
        assertEquals(1, out.calls, "released lines are not written again");
    }

    @Test
    void theLineThatReachesTheHeldLimitIsWrittenAtOnceWithTheOthers() throws IOException {
        RecordingStream out = new RecordingStream();
        FrameWriter writer = new FrameWriter(out);
        StringBuilder expected = new StringBuilder();
        for (int i = 1; i < FrameWriter.MAX_HELD_LINES; i++) {
            writer.hold("{\"n\":" + i + "}");
            expected.append("{\"n\":").append(i).append("}\n");
        }
        assertEquals(0, out.calls);
        writer.hold("{\"n\":16}");
        expected.append("{\"n\":16}\n");
        assertEquals(List.of(expected.toString()), out.writes.stream().map(b -> new String(b, StandardCharsets.UTF_8)).toList());
        String big = "{\"s\":\"" + "x".repeat(FrameWriter.MAX_HELD_BYTES) + "\"}";
        writer.hold(big);
        assertEquals(2, out.writes.size(), "a held line of the byte limit is written at once");
        assertArrayEquals((big + "\n").getBytes(StandardCharsets.UTF_8), out.writes.get(1));
    }

    @Test
    void aHeldLineIsCheckedAsAWrittenOneAndARefusedOneIsNotHeld() throws IOException {
        RecordingStream out = new RecordingStream();
        FrameWriter writer = new FrameWriter(out);
        assertThrows(IllegalArgumentException.class, () -> writer.hold("{\"a\":\n1}"));
        assertThrows(IllegalArgumentException.class, () -> writer.hold("{\"a\":\"\uD83D\"}"));
        assertThrows(IllegalArgumentException.class, () -> writer.hold(""));
        writer.write("{\"b\":2}");
        assertEquals(List.of("{\"b\":2}\n"), out.writes.stream().map(b -> new String(b, StandardCharsets.UTF_8)).toList());
    }

    @Test
    void closeWritesHeldLinesAndAFailedStreamTakesNoneLater() throws IOException {
        RecordingStream out = new RecordingStream();
        FrameWriter writer = new FrameWriter(out);
        writer.hold("{\"a\":1}");
        writer.close();
        assertEquals(List.of("{\"a\":1}\n"), out.writes.stream().map(b -> new String(b, StandardCharsets.UTF_8)).toList());
        assertTrue(out.closed);
        assertThrows(IOException.class, () -> writer.hold("{\"b\":2}"));

        RecordingStream failing = new RecordingStream();
        FrameWriter broken = new FrameWriter(failing);
        broken.hold("{\"a\":1}");
        failing.failure = new IOException("pipe closed");
        assertThrows(IOException.class, broken::release);
        assertTrue(broken.isBroken());
        assertThrows(IOException.class, () -> broken.hold("{\"b\":2}"));
        int calls = failing.calls;
        broken.close();
        assertEquals(calls, failing.calls, "close does not retry a failed stream");
    }

    @Test
    void linesThatWouldBreakFramingAreRejectedAndNothingIsWritten() {
        RecordingStream out = new RecordingStream();
        FrameWriter writer = new FrameWriter(out);
        assertThrows(IllegalArgumentException.class, () -> writer.write("a\nb"));
        assertThrows(IllegalArgumentException.class, () -> writer.write("a\rb"));
        assertThrows(IllegalArgumentException.class, () -> writer.write(""));
        assertThrows(IllegalArgumentException.class, () -> writer.write("lone \uD83D surrogate"));
        assertThrows(IllegalArgumentException.class, () -> writer.write("\uDE00 reversed \uD83D"));
        assertThrows(NullPointerException.class, () -> writer.write(null));
        assertEquals(0, out.calls);
        assertFalse(writer.isBroken());
    }

    @Test
    void concurrentWritersProduceOnlyWholeLines() throws Exception {
        // Hands bytes over one at a time and yields, so any unsynchronized writer would interleave.
        ByteArrayOutputStream sink = new ByteArrayOutputStream() {
            @Override
            public void write(byte[] b, int off, int len) {
                for (int i = 0; i < len; i++) {
                    super.write(b[off + i]);
                    if (i % 7 == 0) {
                        Thread.yield();
                    }
                }
            }
        };
        FrameWriter writer = new FrameWriter(sink);
        int threads = 6;
        int perThread = 300;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        Set<String> expected = new HashSet<>();
        List<Future<?>> futures = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                int thread = t;
                for (int i = 0; i < perThread; i++) {
                    expected.add(line(thread, i));
                }
                futures.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        writer.write(line(thread, i));
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        String output = sink.toString(StandardCharsets.UTF_8);
        assertTrue(output.endsWith("\n"));
        List<String> lines = Arrays.asList(output.substring(0, output.length() - 1).split("\n", -1));
        assertEquals(threads * perThread, lines.size());
        assertEquals(expected, new HashSet<>(lines));
    }

    private static String line(int thread, int i) {
        return "{\"thread\":" + thread + ",\"i\":" + i + ",\"pad\":\"" + "p".repeat((i * 37) % 200) + "\"}";
    }

    @Test
    void writerIsBrokenAfterTheStreamFailsAndNeverTriesAgain() {
        RecordingStream out = new RecordingStream();
        out.failure = new IOException("Broken pipe");
        FrameWriter writer = new FrameWriter(out);
        IOException first = assertThrows(IOException.class, () -> writer.write("{}"));
        assertSame(out.failure, first);
        assertTrue(writer.isBroken());
        IOException later = assertThrows(IOException.class, () -> writer.write("{}"));
        assertSame(out.failure, later.getCause());
        assertEquals(1, out.calls);
    }

    @Test
    void closeClosesTheStreamAndLaterWritesFail() throws IOException {
        RecordingStream out = new RecordingStream();
        FrameWriter writer = new FrameWriter(out);
        writer.close();
        writer.close();
        assertTrue(out.closed);
        assertThrows(IOException.class, () -> writer.write("{}"));
        assertEquals(0, out.calls);
    }
}
