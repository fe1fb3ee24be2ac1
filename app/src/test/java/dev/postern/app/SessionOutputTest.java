package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.transport.FrameWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SessionOutputTest {
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final PrintStream diagnostics = new PrintStream(err, true, StandardCharsets.UTF_8);

    @Test
    void heldLinesGoOutBeforeTheNextWrittenOneAndNothingGoesOutAfterTheLastLine() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        SessionOutput output = new SessionOutput(new FrameWriter(out), diagnostics, () -> { });

        output.hold("{\"a\":1}");
        output.hold("{\"a\":2}");
        output.write("{\"a\":3}");
        output.closeWith("{\"last\":true}");
        output.write("{\"a\":4}");
        output.release();

        assertEquals("{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n{\"last\":true}\n", out.toString(StandardCharsets.UTF_8));
        assertFalse(output.isBroken());
    }

    @Test
    void aFailedWriteBreaksTheOutputOnceSaysSoAndWritesNothingMore() {
        AtomicInteger writes = new AtomicInteger();
        OutputStream failing = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                writes.incrementAndGet();
                throw new IOException("pipe closed");
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                writes.incrementAndGet();
                throw new IOException("pipe closed");
            }
        };
        AtomicInteger broken = new AtomicInteger();
        SessionOutput output = new SessionOutput(new FrameWriter(failing), diagnostics, broken::incrementAndGet);

        output.write("{\"a\":1}");
        int afterFirst = writes.get();
        output.write("{\"a\":2}");
        output.closeWith("{\"last\":true}");

        assertTrue(output.isBroken());
        assertEquals(1, broken.get(), "onBroken runs once");
        assertEquals(afterFirst, writes.get(), "no write is tried once broken");
        assertEquals("postern: protocol output is broken; stopping\n", err.toString(StandardCharsets.UTF_8));
    }
}
