package dev.postern.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.port.JournalObserver;
import dev.postern.policy.port.Rejection;
import dev.postern.policy.port.Stage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal's observer (telemetry's log records) hears every row of both files exactly once, in the
 * file's order, each with its journal, seq and chain hash, and only once the row is in its file; each
 * write is timed, an intent's as forced. An observer that throws costs the journal nothing.
 */
class JournalObserverTest {
    private static final String FRAME = "ab".repeat(32);

    @TempDir
    Path dir;

    /** Records what it hears, and checks at each row that the row is already in its file. */
    private final class Recording implements JournalObserver {
        final List<String> heard = new ArrayList<>();
        final List<String> flushes = new ArrayList<>();
        final List<String> notYetInFile = new ArrayList<>();

        @Override
        public synchronized void written(JournalRow row) {
            heard.add(row.journal() + " " + row.seq() + " " + row.sha256() + " " + row.json());
            try {
                if (!Files.readAllLines(dir.resolve(row.journal() + ".jsonl"), StandardCharsets.UTF_8).contains(row.json())) {
                    notYetInFile.add(row.json());
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public synchronized void flushed(String journal, boolean forced, long nanos) {
            flushes.add(journal + (forced ? " forced" : ""));
            assertTrue(nanos >= 0);
        }
    }

    private List<String> rows(String journal) throws IOException {
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve(journal + ".jsonl"), StandardCharsets.UTF_8)) {
            long seq = new com.fasterxml.jackson.databind.ObjectMapper().readTree(line).get("seq").asLong();
            out.add(journal + " " + seq + " " + HashChain.sha256(line) + " " + line);
        }
        return out;
    }

    @Test
    void everyRowOfBothFilesIsHeardOnceInOrderAndOnlyOnceItIsInItsFile() throws Exception {
        Recording observer = new Recording();
        try (FileAuditJournal journal = FileAuditJournal.open(dir, JournalSettings.rotatingAt(1 << 20).observedBy(observer),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), TestRows.ROWS)) {
            journal.rejected(new Rejection(Stage.SCHEMA, "INVALID_ARGUMENTS", Optional.empty(), FRAME));
            long seq = journal.intent(Permits.http("/v1/items", "q", "b"), FRAME);
            journal.outcome(seq, new ExecutionFailure(FailureCode.TIMEOUT, "it did not answer"));
            journal.rejected(new Rejection(Stage.POLICY, "POLICY_DENIED", Optional.of("http.path"), FRAME));
        }
        List<String> expected = new ArrayList<>(rows("decisions"));
        expected.addAll(rows("actions"));
        List<String> heard = new ArrayList<>(observer.heard.stream().filter(h -> h.startsWith("decisions ")).toList());
        heard.addAll(observer.heard.stream().filter(h -> h.startsWith("actions ")).toList());
        assertEquals(expected, heard);
        assertEquals(List.of(), observer.notYetInFile);
        assertTrue(observer.flushes.contains("actions forced"), observer.flushes.toString());
        assertTrue(observer.flushes.contains("decisions"), observer.flushes.toString());
    }

    @Test
    void anObserverThatThrowsCostsTheJournalNothing() throws Exception {
        JournalObserver throwing = new JournalObserver() {
            @Override
            public void written(JournalRow row) {
                throw new IllegalStateException("broken observer");
            }
        };
        try (FileAuditJournal journal = FileAuditJournal.open(dir, JournalSettings.rotatingAt(1 << 20).observedBy(throwing),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), TestRows.ROWS)) {
            long seq = journal.intent(Permits.http("/v1/items", "q", "b"), FRAME);
            journal.outcome(seq, new ExecutionFailure(FailureCode.TIMEOUT, "it did not answer"));
            assertEquals(1, seq);
        }
        assertEquals(2, Files.readAllLines(dir.resolve("actions.jsonl"), StandardCharsets.UTF_8).size());
    }
}
