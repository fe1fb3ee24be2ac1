package dev.postern.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.port.JournalUnavailableException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file mechanics under the journal: rotation with the chain carried across files, several
 * writers on one directory, group commit, and failed writes that leave no partial row.
 */
class ChainedJsonLinesTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String FRAME = "cd".repeat(32);

    @TempDir
    Path dir;

    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();

    private ChainedJsonLines lines(long rotateBytes) throws IOException {
        return new ChainedJsonLines(new JournalFiles(dir, "actions"), JSON, Clock.systemUTC(), rotateBytes);
    }

    private static ObjectNode row(String text) {
        return JSON.createObjectNode().put("kind", "note").put("text", text);
    }

    private static List<String> rowsOf(Path file) throws IOException {
        return Files.readAllLines(file, StandardCharsets.UTF_8);
    }

    @Test
    void filesRotateBySizeAndTheFirstRowOfEachNewFileChainsToTheLastRowOfTheOldOne() throws Exception {
        try (ChainedJsonLines journal = lines(4096)) {
            for (int i = 1; i <= 100; i++) {
                assertEquals(i, journal.append(row("row " + i + " " + "x".repeat(100)), i % 10 == 0));
            }
        }
        JournalFiles files = new JournalFiles(dir, "actions");
        List<Path> chain = files.chain();
        assertTrue(chain.size() >= 3, "100 rows of ~200 bytes in files of 4096: " + chain);
        assertEquals(files.active(), chain.get(chain.size() - 1));
        assertEquals("actions.000001.jsonl", chain.get(0).getFileName().toString());
        long total = 0;
        for (int f = 0; f < chain.size(); f++) {
            List<String> rows = rowsOf(chain.get(f));
            total += rows.size();
            if (f < chain.size() - 1) {
                assertTrue(Files.size(chain.get(f)) < 4096 + 300, "a file passes the size by at most one batch: " + Files.size(chain.get(f)));
                List<String> next = rowsOf(chain.get(f + 1));
                assertEquals(HashChain.sha256(rows.get(rows.size() - 1)), JSON.readTree(next.get(0)).get("prev").textValue(),
                        chain.get(f + 1) + " must chain to the last row of " + chain.get(f));
            }
        }
        assertEquals(100, total);
        ChainVerifier.FileResult verdict = TestRows.verifier().verifyJournal(files);
        assertTrue(verdict.intact(), verdict.toString());
        assertEquals(100, verdict.rows());
        assertEquals(chain.size(), verdict.files().size());
    }

    @Test
    void reopeningAfterRotationContinuesTheChainFromTheNewestFile() throws Exception {
        try (ChainedJsonLines journal = lines(4096)) {
            for (int i = 0; i < 30; i++) {
                journal.append(row("y".repeat(200)), false);
            }
        }
        // The newest file may be empty (rotated away, nothing written yet): the head is then the last segment's.
        try (ChainedJsonLines journal = lines(4096)) {
            assertEquals(31, journal.append(row("after reopen"), true));
        }
        assertTrue(TestRows.verifier().verifyJournal(new JournalFiles(dir, "actions")).intact());
    }

    /** Two journals on one directory stand for two processes: each must re-read the head the other moved. */
    @Test
    void twoWritersOnOneDirectoryInterleaveWithoutLosingOrBreakingARowEvenAcrossRotations() throws Exception {
        ConcurrentLinkedQueue<Long> seqs = new ConcurrentLinkedQueue<>();
        try (ChainedJsonLines a = lines(8192); ChainedJsonLines b = lines(8192)) {
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                ChainedJsonLines journal = t % 2 == 0 ? a : b;
                int id = t;
                Thread thread = new Thread(() -> {
                    for (int i = 0; i < 100; i++) {
                        try {
                            seqs.add(journal.append(row("writer " + id + " row " + i), i % 3 == 0));
                        } catch (IOException e) {
                            throw new AssertionError(e);
                        }
                    }
                });
                threads.add(thread);
                thread.start();
            }
            for (Thread thread : threads) {
                thread.join();
            }
        }
        assertEquals(400, new HashSet<>(seqs).size(), "every row has its own seq");
        ChainVerifier.FileResult verdict = TestRows.verifier().verifyJournal(new JournalFiles(dir, "actions"));
        assertTrue(verdict.intact(), verdict.toString());
        assertEquals(400, verdict.rows());
        assertTrue(verdict.files().size() > 1, "the writers rotated the file between them: " + verdict.files());
    }

    @Test
    void concurrentDurableAppendsShareOneForceAndEachReturnsOnlyAfterTheForceThatCoversIt() throws Exception {
        try (ChainedJsonLines journal = lines(1 << 20)) {
            journal.append(row("warm"), true);
            long before = journal.forces();
            JournalLock directory = JournalLock.open(dir.resolve(JournalFiles.LOCK_FILE));
            ReentrantLock lock = directory.threads();
            ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            lock.lock();
            try {
                for (int t = 0; t < 8; t++) {
                    Thread thread = new Thread(() -> {
                        try {
                            long seq = journal.append(row("concurrent"), true);
                            if (journal.forcedThrough() < seq) {
                                failures.add("seq " + seq + " returned before a force covered it (forced through " + journal.forcedThrough() + ")");
                            }
                        } catch (IOException e) {
                            failures.add(e.toString());
                        }
                    });
                    threads.add(thread);
                    thread.start();
                }
                // While the writer waits for the lock, every append is queued or in its first batch.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (lock.getQueueLength() == 0 || threads.stream().anyMatch(th -> th.getState() != Thread.State.WAITING)) {
                    assertTrue(System.nanoTime() < deadline, "the appenders never all waited");
                    Thread.sleep(5);
                }
                assertEquals(before, journal.forces(), "nothing is forced while the lock is held");
            } finally {
                lock.unlock();
                directory.close();
            }
            for (Thread thread : threads) {
                thread.join();
            }
            assertTrue(failures.isEmpty(), failures.toString());
            long forces = journal.forces() - before;
            assertTrue(forces >= 1 && forces <= 2, "8 rows queued together need one force, or two if the writer took the first alone: " + forces);
            assertEquals(9, journal.forcedThrough());
        }
        assertEquals(9, TestRows.verifier().verifyJournal(new JournalFiles(dir, "actions")).rows());
    }

    @Test
    void aCallerWithAPendingInterruptWritesItsRowItselfAndKeepsTheInterrupt() throws Exception {
        try (ChainedJsonLines journal = lines(1 << 20)) {
            Thread.currentThread().interrupt();
            long seq;
            try {
                seq = journal.append(row("while interrupted"), true);
            } finally {
                assertTrue(Thread.interrupted(), "the interrupt is kept for the caller");
            }
            assertEquals(1, seq);
            assertEquals(1, journal.forcedThrough(), "the row was forced before append returned");
            assertEquals(2, journal.append(row("after"), true), "the channel was not closed by the interrupt");
        }
        assertTrue(TestRows.verifier().verifyJournal(new JournalFiles(dir, "actions")).intact());
    }

    @Test
    void interruptsDuringAppendsFailAtMostTheirOwnBatchAndTheJournalReopensAndGoesOn() throws Exception {
        int attempts = 3_000;
        List<Long> written = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        try (ChainedJsonLines journal = lines(1 << 20)) {
            Thread appender = new Thread(() -> {
                for (int i = 0; i < attempts; i++) {
                    try {
                        written.add(journal.append(row("row " + i), i % 2 == 0));
                    } catch (IOException e) {
                        failures.add(e.getMessage());
                    }
                }
            });
            appender.start();
            while (appender.isAlive()) {
                appender.interrupt(); // at whatever point of an append it lands: lock, head check, write or force
                Thread.onSpinWait();
            }
            appender.join();
            assertFalse(failures.isEmpty(), "precondition: some interrupt landed inside an append's I/O and failed it");
            assertFalse(failures.stream().anyMatch(m -> m.contains("no more rows")), "no interrupt stopped the journal: " + failures);
            long next = journal.append(row("after the interrupts"), true);
            written.add(next);
        }
        ChainVerifier.FileResult verdict = TestRows.verifier().verifyJournal(new JournalFiles(dir, "actions"));
        assertTrue(verdict.intact(), "the chain is whole: " + verdict);
        assertEquals(written.size(), verdict.rows(), "every returned row is there and no failed one is ("
                + failures.size() + " of " + attempts + " appends failed)");
        for (int i = 0; i < written.size(); i++) {
            assertEquals(i + 1L, written.get(i), "seqs run without a gap");
        }
    }

    /** POSIX frees every lock a process holds on a file when any descriptor of it closes: one channel per JVM, counted. */
    @Test
    void aLockStillUsedAfterOneOfItsUsersClosedItIsTheOneTheNextUserGets() throws Exception {
        Path file = dir.resolve(JournalFiles.LOCK_FILE);
        JournalLock first = JournalLock.open(file);
        JournalLock second = JournalLock.open(file);
        first.close();
        JournalLock third = JournalLock.open(file);
        try {
            assertTrue(third == second, "one of two users closed it, so it is still this JVM's one lock on the file");
        } finally {
            third.close();
            second.close();
        }
        JournalLock afterAll = JournalLock.open(file);
        try {
            assertTrue(afterAll != second, "once every user closed it, the next open starts afresh");
        } finally {
            afterAll.close();
        }
    }

    @Test
    void bothJournalsOfADirectoryShareOneLockChannelThatOutlivesEitherOfThem() throws Exception {
        Path file = dir.resolve(JournalFiles.LOCK_FILE);
        JournalLock first = JournalLock.open(file);
        JournalLock second = JournalLock.open(dir.resolve(".").resolve(JournalFiles.LOCK_FILE));
        assertTrue(first == second, "one lock per lock file per JVM");
        first.close();
        try (JournalLock.Held held = second.acquire()) {
            assertTrue(second.threads().isHeldByCurrentThread());
        } finally {
            second.close();
        }
        JournalLock reopened = JournalLock.open(file);
        try (JournalLock.Held held = reopened.acquire()) {
            assertTrue(reopened != first, "a lock whose last user closed it is opened afresh");
        } finally {
            reopened.close();
        }
    }

    @Test
    void aRowOverTheSharedLimitIsRefusedAndTheChainGoesOnWithoutAGap() throws Exception {
        try (ChainedJsonLines journal = lines(1 << 20)) {
            journal.append(row("first"), true);
            IOException e = assertThrows(IOException.class, () -> journal.append(row("z".repeat(ChainVerifier.MAX_ROW_BYTES)), true));
            assertTrue(e.getMessage().contains("longer than the journal's limit of " + ChainVerifier.MAX_ROW_BYTES), e.getMessage());
            assertEquals(2, journal.append(row("second"), true));
        }
        assertEquals(2, TestRows.verifier().verifyJournal(new JournalFiles(dir, "actions")).rows());
    }

    /** Grows {@code file} (sparse) to the largest length its file system allows and returns it. */
    private static long maximumSize(Path file) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            long lo = raf.length();
            long hi = Long.MAX_VALUE;
            while (lo < hi) {
                long mid = hi - (hi - lo) / 2;
                try {
                    raf.setLength(mid);
                    lo = mid;
                } catch (IOException e) {
                    hi = mid - 1;
                }
            }
            raf.setLength(0);
            return lo;
        }
    }

    /**
     * A real journal whose two rows end 40 bytes below the file system's maximum file size: the next
     * row's write is short (40 bytes land) and then fails with EFBIG, as on a disk that fills mid-row.
     */
    private long journalAtTheSizeLimit() throws Exception {
        Path scratch = Files.createDirectories(dir.resolve("scratch"));
        try (FileAuditJournal journal = FileAuditJournal.open(scratch, new PrintStream(stderr, true, StandardCharsets.UTF_8), TestRows.ROWS)) {
            journal.outcome(journal.intent(Permits.ssh("a"), FRAME), new ExecutionFailure(FailureCode.CANCELLED, "x"));
        }
        byte[] rows = Files.readAllBytes(scratch.resolve(FileAuditJournal.ACTIONS));
        Path actions = dir.resolve(FileAuditJournal.ACTIONS);
        long end = maximumSize(actions) - 40;
        try (RandomAccessFile raf = new RandomAccessFile(actions.toFile(), "rw")) {
            raf.setLength(end);
            raf.seek(end - rows.length - 1);
            raf.write('\n');
            raf.write(rows);
        }
        // Made by hand under the test's umask: private, as the journal requires of a file it appends to.
        Files.setPosixFilePermissions(actions, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        return end;
    }

    /** The journal on that file, never rotating it (it is far larger than any rotation size). */
    private FileAuditJournal atTheLimit() throws IOException {
        return FileAuditJournal.open(dir, Long.MAX_VALUE, new PrintStream(stderr, true, StandardCharsets.UTF_8), TestRows.ROWS);
    }

    @Test
    void aWriteThatFailsMidRowIsCutBackSoNoPartialRowStaysAndTheNextRowIsNotFusedOntoIt() throws Exception {
        long end = journalAtTheSizeLimit();
        Path actions = dir.resolve(FileAuditJournal.ACTIONS);
        try (FileAuditJournal journal = atTheLimit()) {
            for (int attempt = 0; attempt < 2; attempt++) {
                JournalUnavailableException e = assertThrows(JournalUnavailableException.class, () -> journal.intent(Permits.ssh("b"), FRAME));
                assertFalse(e.getMessage().contains("no more rows"), "cut back, so the journal still takes rows: " + e.getMessage());
                assertEquals(end, Files.size(actions), "the 40 bytes that landed were cut off again");
            }
        }
        try (RandomAccessFile raf = new RandomAccessFile(actions.toFile(), "r")) {
            raf.seek(end - 1);
            assertEquals('\n', raf.read(), "the file still ends with the last whole row");
        }
    }

    @Test
    void aFailedWriteThatCannotBeCutBackStopsTheJournalSoEveryLaterActionIsRefused() throws Exception {
        long end = journalAtTheSizeLimit();
        Path actions = dir.resolve(FileAuditJournal.ACTIONS);
        // An append-only file (chattr +a, root on ext4 here) accepts appends but refuses to be truncated.
        Process chattr = new ProcessBuilder("chattr", "+a", actions.toString()).redirectErrorStream(true).start();
        Assumptions.assumeTrue(chattr.waitFor() == 0, "chattr +a is not available here");
        try (FileAuditJournal journal = atTheLimit()) {
            JournalUnavailableException first = assertThrows(JournalUnavailableException.class, () -> journal.intent(Permits.ssh("b"), FRAME));
            assertTrue(first.getMessage().contains("could not be cut back"), first.getMessage());
            // Each failure in its own words (the errno's text), never empty nor a bare class name.
            assertTrue(java.util.regex.Pattern.compile("a failed write \\((?!\\w*Exception\\))[^)]+\\) could not be cut back to byte \\d+"
                    + " \\((?!\\w*Exception\\))[^)]+\\)").matcher(first.getMessage()).find(), first.getMessage());
            assertEquals(end + 40, Files.size(actions), "precondition: the partial row could not be removed");
            JournalUnavailableException later = assertThrows(JournalUnavailableException.class, () -> journal.intent(Permits.ssh("c"), FRAME));
            assertTrue(later.getMessage().contains("accepts no more rows until Postern is restarted"), later.getMessage());
            assertEquals(end + 40, Files.size(actions), "nothing is fused onto the partial row");
        } finally {
            new ProcessBuilder("chattr", "-a", actions.toString()).start().waitFor();
        }
    }

    @Test
    void anIntentWithoutAnOutcomeIsListedAsInterruptedAndDoesNotBreakTheChain() throws Exception {
        try (FileAuditJournal journal = FileAuditJournal.open(dir, new PrintStream(stderr, true, StandardCharsets.UTF_8), TestRows.ROWS)) {
            journal.outcome(journal.intent(Permits.ssh("a"), FRAME), new ExecutionFailure(FailureCode.CANCELLED, "x"));
            journal.intent(Permits.ssh("killed"), FRAME);
            journal.outcome(journal.intent(Permits.ssh("b"), FRAME), new ExecutionFailure(FailureCode.TIMEOUT, "x"));
        }
        ChainVerifier.FileResult verdict = TestRows.verifier().verifyJournal(new JournalFiles(dir, "actions"));
        assertTrue(verdict.intact(), verdict.toString());
        assertEquals(List.of(new ChainVerifier.Interrupted("actions.jsonl", 3, 3)), verdict.interrupted());
    }

    @Test
    void aMissingMiddleFileBreaksTheChainAtTheFirstRowOfTheNextFile() throws Exception {
        try (ChainedJsonLines journal = lines(4096)) {
            for (int i = 0; i < 80; i++) {
                journal.append(row("w".repeat(150)), false);
            }
        }
        Files.delete(dir.resolve("actions.000002.jsonl"));
        ChainVerifier.FileResult verdict = TestRows.verifier().verifyJournal(new JournalFiles(dir, "actions"));
        assertFalse(verdict.intact());
        ChainVerifier.Break b = verdict.broken().get();
        assertEquals("actions.000003.jsonl", b.file());
        assertEquals(1, b.row());
        assertTrue(b.reason().contains("expected"), b.reason());
        Set<String> names = new HashSet<>(verdict.files());
        assertFalse(names.contains("actions.000002.jsonl"));
        JsonNode first = JSON.readTree(rowsOf(dir.resolve("actions.000003.jsonl")).get(0));
        assertTrue(first.get("seq").asLong() > 1);
    }
}
