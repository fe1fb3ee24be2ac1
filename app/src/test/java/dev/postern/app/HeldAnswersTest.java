package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.app.config.GatewayConfig;
import dev.postern.journal.FileAuditJournal;
import dev.postern.protocol.tools.ToolCatalog;
import dev.postern.protocol.tools.ToolResults;
import dev.postern.transport.FrameWriter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Answers the reader gives itself (postern_targets, ping, refusals) are held while more input is
 * already read, and go out together: every answer still comes, once, in order; none waits for input
 * that has not come, and the initialize answer never waits for the configuration's deferred check.
 */
class HeldAnswersTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /** Counts the writes the gateway makes and keeps their bytes. */
    private static final class CountingStream extends OutputStream {
        final List<String> writes = new ArrayList<>();

        @Override
        public synchronized void write(int b) {
            writes.add(String.valueOf((char) b));
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            writes.add(new String(b, off, len, StandardCharsets.UTF_8));
        }
    }

    private static String targets(int id) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"postern_targets\",\"arguments\":{}}}\n";
    }

    @Test
    void pipelinedCheapCallsAreAllAnsweredInOrderInFewerWrites() throws Exception {
        int calls = 40;
        StringBuilder input = new StringBuilder(SessionHarness.INIT + SessionHarness.INITIALIZED);
        for (int id = 2; id < 2 + calls; id++) {
            input.append(targets(id));
        }
        CountingStream out = new CountingStream();
        GatewayConfig config = SessionHarness.config(dir, SessionHarness.policy(), 4);
        PrintStream diagnostics = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        try (FileAuditJournal journal = Gateway.journal(config, diagnostics)) {
            assertEquals(ExitStatus.OK, Gateway.run(config, journal, List.of(), ToolResults.DEFAULT_MAX_RESULT_BYTES,
                    new ByteArrayInputStream(input.toString().getBytes(StandardCharsets.UTF_8)), out, diagnostics, s -> { }));
        }
        String all = String.join("", out.writes);
        List<String> lines = List.of(all.split("\n"));
        assertEquals(1 + calls, lines.size());
        assertEquals(1, JSON.readTree(lines.get(0)).get("id").asInt());
        for (int i = 1; i <= calls; i++) {
            assertEquals(i + 1, JSON.readTree(lines.get(i)).get("id").asInt());
            assertEquals("api", JSON.readTree(lines.get(i)).get("result").get("structuredContent").get("http").get(0).get("name").textValue());
        }
        // initialize alone (the catalog was not ready); then a call's answer is held while at least
        // MAX_HELD_LINES more lines are read, written with the others when MAX_HELD_LINES are held; the
        // last few calls, with fewer lines behind them, are written at once.
        int expectedWrites = 1;
        int held = 0;
        for (int k = 1; k <= calls; k++) {
            if (calls - k >= FrameWriter.MAX_HELD_LINES) {
                if (++held == FrameWriter.MAX_HELD_LINES) {
                    expectedWrites++;
                    held = 0;
                }
            } else {
                expectedWrites++;
                held = 0;
            }
        }
        assertEquals(expectedWrites, out.writes.size(), String.join("|", out.writes));
        assertEquals(lines.get(0) + "\n", out.writes.get(0));
    }

    @Test
    void anAnswerIsWrittenBeforeTheReaderWaitsForMoreInput() throws Exception {
        try (LiveSession live = new LiveSession(dir, SessionHarness.policy(), 4, ToolResults.DEFAULT_MAX_RESULT_BYTES, List.of())) {
            live.handshake();
            // The second call's line arrives only in part: the first answer must not wait for it.
            live.send(targets(2) + targets(3).substring(0, 20));
            assertEquals(2, live.next().get("id").asInt());
            live.send(targets(3).substring(20));
            assertEquals(3, live.next().get("id").asInt());
            live.send(LiveSession.ping(4));
            assertEquals(4, live.next().get("id").asInt());
        }
    }

    @Test
    void theInitializeAnswerIsNotHeldWhileTheNextFrameWaitsForTheCatalog() throws Exception {
        GatewayConfig config = SessionHarness.config(dir, SessionHarness.policy(), 4);
        ToolCatalog catalog = Gateway.catalog(config);
        CountDownLatch checked = new CountDownLatch(1);
        Supplier<ToolCatalog> deferred = () -> {
            try {
                checked.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return catalog;
        };
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        PipedOutputStream client = new PipedOutputStream();
        PipedInputStream in = new PipedInputStream(client, 1 << 16);
        PrintStream diagnostics = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        CompletableFuture<ExitStatus> exit = new CompletableFuture<>();
        try (FileAuditJournal journal = Gateway.journal(config, diagnostics)) {
            Thread t = new Thread(() -> {
                try {
                    exit.complete(Gateway.run(config, journal, List.of(), ToolResults.DEFAULT_MAX_RESULT_BYTES, deferred,
                            Gateway.approvals(config, journal, java.time.Clock.systemUTC()), in, new LineSink(lines), diagnostics, s -> { }));
                } catch (Throwable e) {
                    exit.completeExceptionally(e);
                }
            });
            t.setDaemon(true);
            t.start();
            // A second initialize is refused without the catalog; the ping after it waits for the catalog.
            client.write((SessionHarness.INIT + SessionHarness.INIT.replace("\"id\":1", "\"id\":2") + LiveSession.ping(3))
                    .getBytes(StandardCharsets.UTF_8));
            client.flush();
            String first = lines.poll(10, TimeUnit.SECONDS);
            assertNotNull(first, "the initialize answer came while the catalog was not ready");
            assertEquals(1, JSON.readTree(first).get("id").asInt());
            String second = lines.poll(10, TimeUnit.SECONDS);
            assertNotNull(second, "the refusal of the second initialize came while the catalog was not ready");
            assertEquals(2, JSON.readTree(second).get("id").asInt());
            assertNull(lines.poll(200, TimeUnit.MILLISECONDS), "the ping waits for the catalog");
            checked.countDown();
            assertEquals(3, JSON.readTree(lines.poll(10, TimeUnit.SECONDS)).get("id").asInt());
            client.close();
            assertEquals(ExitStatus.OK, exit.get(30, TimeUnit.SECONDS));
        }
    }
}
