package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.postern.journal.FileAuditJournal;
import dev.postern.fixtures.StdoutTranscript;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DESIGN §6: if the intent row cannot be written, nothing runs. The first test makes the real file
 * refuse the write at intent time in a way that binds root too (a sparse file 40 bytes below the
 * file system's maximum size: each intent row's write lands 40 bytes, then fails with EFBIG, and is
 * cut back); the second injects the failure.
 */
class JournalFailureTest {
    private static final String SSH_CALL = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"ssh_exec\","
            + "\"arguments\":{\"host\":\"web\",\"command\":\"tail\",\"args\":{\"lines\":5}}}}\n";
    private static final String TARGETS_CALL = "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"postern_targets\","
            + "\"arguments\":{}}}\n";

    @TempDir
    Path dir;

    /** Grows {@code file} (sparse, no blocks used) to the largest length its file system allows. */
    private static void growToMaximumSize(Path file) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            long lo = raf.length();
            long hi = Long.MAX_VALUE;
            if (!trySetLength(raf, hi)) {
                while (lo < hi) {
                    long mid = hi - (hi - lo) / 2; // the upper midpoint, without overflow
                    if (trySetLength(raf, mid)) {
                        lo = mid;
                    } else {
                        hi = mid - 1;
                    }
                }
                raf.setLength(lo);
            }
        }
    }

    private static boolean trySetLength(RandomAccessFile raf, long length) {
        try {
            raf.setLength(length);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static List<JsonNode> assertAnswers(SessionHarness h) {
        List<JsonNode> messages = StdoutTranscript.assertProtocolOnly(h.stdout.toByteArray(), "in-memory session", h.stderr.toByteArray());
        assertEquals(4, messages.size(), "initialize plus three answers");
        return messages;
    }

    private static JsonNode answer(List<JsonNode> messages, int id) {
        return messages.stream().filter(m -> m.path("id").asInt() == id).findFirst()
                .orElseThrow(() -> new AssertionError("no answer to id " + id + " in " + messages)).get("result");
    }

    private static void assertJournalUnavailable(JsonNode result) {
        assertTrue(result.get("isError").asBoolean(), result.toString());
        assertEquals("JOURNAL_UNAVAILABLE", dev.postern.fixtures.ToolErrors.error(result).get("code").textValue(), result.toString());
    }

    @Test
    void anIntentRowTheFileSystemRefusesRunsNothingEvenForRootAndLeavesNoPartialRow() throws Exception {
        byte[] input = (SessionHarness.INIT + SessionHarness.INITIALIZED + SessionHarness.httpCall(2, "marker-journal-full")
                + SSH_CALL + TARGETS_CALL).getBytes(StandardCharsets.UTF_8);
        // Two real rows from a real session, placed 40 bytes below the largest size the file system allows.
        Path scratch = Files.createDirectories(dir.resolve("scratch"));
        new SessionHarness(scratch).run((SessionHarness.INIT + SessionHarness.INITIALIZED + SessionHarness.httpCall(2, "a"))
                .getBytes(StandardCharsets.UTF_8));
        byte[] rows = Files.readAllBytes(scratch.resolve(FileAuditJournal.ACTIONS));
        Path actions = dir.resolve(FileAuditJournal.ACTIONS);
        growToMaximumSize(actions);
        long end = Files.size(actions) - 40;
        try (RandomAccessFile raf = new RandomAccessFile(actions.toFile(), "rw")) {
            raf.setLength(end);
            raf.seek(end - rows.length - 1);
            raf.write('\n');
            raf.write(rows);
        }
        SessionHarness h = new SessionHarness(dir);
        try (FileAuditJournal journal = FileAuditJournal.open(dir, Long.MAX_VALUE, h.diagnostics(), Gateway.journalRows())) {
            h.run(input, journal);
        }

        h.http.assertNoAttempts();
        h.ssh.assertNoAttempts();
        List<JsonNode> messages = assertAnswers(h);
        assertJournalUnavailable(answer(messages, 2));
        assertJournalUnavailable(answer(messages, 3));
        assertFalse(answer(messages, 4).get("isError").asBoolean(), "the session goes on; a read-only tool still answers");
        assertEquals(ExitStatus.OK, h.exit);
        assertTrue(h.stderr.toString(StandardCharsets.UTF_8).contains(FileAuditJournal.ACTIONS), h.stderr.toString(StandardCharsets.UTF_8));
        // Each refused intent got 40 bytes onto the disk before EFBIG; both were cut off again.
        assertEquals(end, Files.size(actions), "no partial row stays in the file");
        try (RandomAccessFile raf = new RandomAccessFile(actions.toFile(), "r")) {
            raf.seek(end - 1);
            assertEquals('\n', raf.read());
        }
    }

    @Test
    void anIntentTheJournalCannotRecordNeverReachesTheExecutor() {
        FailingAuditJournal journal = new FailingAuditJournal();
        SessionHarness h = new SessionHarness(dir).run((SessionHarness.INIT + SessionHarness.INITIALIZED
                + SessionHarness.httpCall(2, "marker-journal-failing") + SSH_CALL + TARGETS_CALL).getBytes(StandardCharsets.UTF_8), journal);

        h.http.assertNoAttempts();
        h.ssh.assertNoAttempts();
        assertEquals(2, journal.intents.size(), "both permits reached the journal");
        assertTrue(journal.outcomes.isEmpty(), "no outcome is recorded for an action that never began");
        List<JsonNode> messages = assertAnswers(h);
        assertJournalUnavailable(answer(messages, 2));
        assertJournalUnavailable(answer(messages, 3));
        assertEquals(ExitStatus.OK, h.exit);
    }

    @Test
    void aJournalPathThatIsADirectoryStopsStartUpBeforeAnyInput() throws Exception {
        Files.createDirectories(dir.resolve(FileAuditJournal.ACTIONS));
        IOException e = assertThrows(IOException.class, () -> FileAuditJournal.open(dir, System.err, Gateway.journalRows()));
        assertTrue(e.getMessage().contains(FileAuditJournal.ACTIONS + " is not a regular file"), e.getMessage());
    }
}
