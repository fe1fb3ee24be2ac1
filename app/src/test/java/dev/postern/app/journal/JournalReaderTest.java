package dev.postern.app.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.json.JsonMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading a journal for display: seq order across rotated files, only whole rows, rows written since, and rows that are not rows counted. */
class JournalReaderTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    private ChainedJsonLines lines(long rotateBytes) throws Exception {
        return new ChainedJsonLines(new JournalFiles(dir, "actions"), JSON, Clock.systemUTC(), rotateBytes);
    }

    private static List<Long> seqs(List<JournalReader.Entry> entries) {
        return entries.stream().map(JournalReader.Entry::seq).toList();
    }

    @Test
    void rowsComeInSeqOrderAcrossRotatedFilesAndThenTheRowsWrittenSince() throws Exception {
        try (ChainedJsonLines journal = lines(4096); JournalReader reader = JournalReader.actions(dir)) {
            for (int i = 0; i < 50; i++) {
                journal.append(JSON.createObjectNode().put("kind", "note").put("text", "x".repeat(150)), false);
            }
            assertEquals(LongStream.rangeClosed(1, 50).boxed().toList(), seqs(reader.readAll(Long.MAX_VALUE)));
            assertTrue(new JournalFiles(dir, "actions").segments().size() >= 2, "the rows span rotated files");
            for (int i = 0; i < 50; i++) {
                journal.append(JSON.createObjectNode().put("kind", "note").put("text", "y".repeat(150)), false);
            }
            assertEquals(LongStream.rangeClosed(51, 100).boxed().toList(), seqs(reader.readAll(Long.MAX_VALUE)),
                    "the same reader goes on where it stopped, through the rotations in between");
            assertEquals(List.of(), reader.poll(10, Long.MAX_VALUE));
        }
    }

    @Test
    void aRowWithoutItsLineFeedIsNotReturnedUntilItIsWhole() throws Exception {
        Path file = dir.resolve("actions.jsonl");
        Files.writeString(file, "{\"seq\":1,\"kind\":\"a\"}\n{\"seq\":2,\"ki");
        try (JournalReader reader = JournalReader.actions(dir)) {
            assertEquals(List.of(1L), seqs(reader.readAll(Long.MAX_VALUE)));
            Files.writeString(file, "nd\":\"b\"}\n", StandardOpenOption.APPEND);
            List<JournalReader.Entry> rest = reader.readAll(Long.MAX_VALUE);
            assertEquals(List.of(2L), seqs(rest));
            assertEquals("b", rest.get(0).row().get("kind").asText());
        }
    }

    @Test
    void rowsThatAreNotJournalRowsAreCountedAndSkipped() throws Exception {
        Files.writeString(dir.resolve("actions.jsonl"), "{\"seq\":1}\nnot json\n[1,2]\n{\"no\":\"seq\"}\n{\"seq\":2}\n", StandardCharsets.UTF_8);
        try (JournalReader reader = JournalReader.actions(dir)) {
            assertEquals(List.of(1L, 2L), seqs(reader.readAll(Long.MAX_VALUE)));
            assertEquals(3, reader.unreadable());
        }
    }

    @Test
    void readingStopsBeforeTheSeqItIsToldToStopAt() throws Exception {
        Files.writeString(dir.resolve("actions.jsonl"), "{\"seq\":1}\n{\"seq\":2}\n{\"seq\":3}\n", StandardCharsets.UTF_8);
        try (JournalReader reader = JournalReader.actions(dir)) {
            assertEquals(List.of(1L, 2L), seqs(reader.readAll(3)));
            assertEquals(List.of(3L), seqs(reader.readAll(Long.MAX_VALUE)));
        }
    }
}
