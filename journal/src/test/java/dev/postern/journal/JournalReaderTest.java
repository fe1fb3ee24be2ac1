package dev.postern.journal;

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

    private static void write(Path file, long from, long to) throws Exception {
        StringBuilder rows = new StringBuilder();
        for (long s = from; s <= to; s++) {
            rows.append("{\"seq\":").append(s).append(",\"kind\":\"note\"}\n");
        }
        Files.writeString(file, rows, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    @Test
    void aRotationBetweenChoosingTheNextFileAndOpeningItSkipsNoRows() throws Exception {
        Path active = dir.resolve("actions.jsonl");
        write(active, 1, 3);
        int[] rotations = {0};
        // On the reader's second look for a file: rotates the active file once more just after the reader
        // chose it and before it opens it, as a gateway holding the lock may do at any moment.
        Runnable rotateOnce = () -> {
            if (rotations[0]++ == 1) {
                try {
                    Files.move(active, dir.resolve("actions.000002.jsonl"));
                    write(active, 8, 9);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        };
        try (JournalReader reader = new JournalReader(new JournalFiles(dir, "actions"), rotateOnce)) {
            assertEquals(List.of(1L, 2L, 3L), seqs(reader.poll(100, Long.MAX_VALUE)));
            write(active, 4, 5);
            Files.move(active, dir.resolve("actions.000001.jsonl"));
            write(active, 6, 7);
            List<Long> got = new java.util.ArrayList<>();
            for (int i = 0; i < 10; i++) {
                got.addAll(seqs(reader.poll(100, Long.MAX_VALUE)));
            }
            assertTrue(rotations[0] >= 2, "the rotation happened while the reader located the next file");
            assertEquals(LongStream.rangeClosed(4, 9).boxed().toList(), got, "rows 6 and 7, rotated away under the reader, are read too");
        }
    }

    @Test
    void aPollReturnsAtMostItsMaximumAndTheNextGoesOnFromTheRowAfter() throws Exception {
        write(dir.resolve("actions.jsonl"), 1, 5);
        try (JournalReader reader = JournalReader.actions(dir)) {
            assertEquals(List.of(1L, 2L), seqs(reader.poll(2, Long.MAX_VALUE)));
            assertEquals(3, reader.nextSeq());
            assertEquals(List.of(3L, 4L), seqs(reader.poll(2, Long.MAX_VALUE)));
            assertEquals(List.of(5L), seqs(reader.poll(2, Long.MAX_VALUE)));
            assertEquals(List.of(), reader.poll(2, Long.MAX_VALUE));
            assertEquals(6, reader.nextSeq());
        }
    }

    @Test
    void aPollStopsAtItsMaximumOrItsSeqAcrossARotationToo() throws Exception {
        write(dir.resolve("actions.000001.jsonl"), 1, 3);
        write(dir.resolve("actions.jsonl"), 4, 6);
        try (JournalReader reader = JournalReader.actions(dir)) {
            assertEquals(List.of(1L, 2L, 3L), seqs(reader.poll(3, Long.MAX_VALUE)), "a full poll does not open the next file");
            assertEquals(List.of(4L), seqs(reader.poll(10, 5)));
            assertEquals(List.of(5L, 6L), seqs(reader.poll(10, Long.MAX_VALUE)));
        }
        try (JournalReader reader = JournalReader.actions(dir)) {
            assertEquals(List.of(1L, 2L), seqs(reader.poll(10, 3)), "the seq bound holds inside the first file");
            assertEquals(List.of(3L, 4L, 5L, 6L), seqs(reader.poll(10, Long.MAX_VALUE)), "and the rest follows across files");
        }
    }

    @Test
    void aReaderStartsAtTheOldestFileLeftWhenOlderOnesAreGone() throws Exception {
        write(dir.resolve("actions.000003.jsonl"), 11, 12);
        write(dir.resolve("actions.jsonl"), 13, 14);
        try (JournalReader reader = JournalReader.actions(dir)) {
            List<JournalReader.Entry> rows = reader.readAll(Long.MAX_VALUE);
            assertEquals(List.of(11L, 12L, 13L, 14L), seqs(rows));
            assertEquals("actions.000003.jsonl", rows.get(0).file());
            assertEquals("actions.jsonl", rows.get(3).file());
        }
    }

    @Test
    void aRowOfExactlyTheLimitIsReadAndOneByteMoreIsCountedUnreadable() throws Exception {
        String head = "{\"seq\":1,\"pad\":\"";
        String whole = head + "x".repeat(JournalFiles.MAX_ROW_BYTES - head.length() - 2) + "\"}";
        String over = "{\"seq\":2,\"pad\":\"" + "y".repeat(JournalFiles.MAX_ROW_BYTES - head.length() - 1) + "\"}";
        assertEquals(JournalFiles.MAX_ROW_BYTES, whole.length());
        Files.writeString(dir.resolve("actions.jsonl"), whole + "\n" + over + "\n{\"seq\":3}\n", StandardCharsets.UTF_8);
        try (JournalReader reader = JournalReader.actions(dir)) {
            assertEquals(List.of(1L, 3L), seqs(reader.readAll(Long.MAX_VALUE)));
            assertEquals(1, reader.unreadable());
        }
    }

    @Test
    void aFileWhoseFirstRowIsNotARowIsReadFromTheOneThatIs() throws Exception {
        Files.writeString(dir.resolve("actions.000001.jsonl"), "garbage\n{\"seq\":1}\n", StandardCharsets.UTF_8);
        write(dir.resolve("actions.jsonl"), 2, 3);
        try (JournalReader reader = JournalReader.actions(dir)) {
            assertEquals(List.of(2L, 3L), seqs(reader.readAll(Long.MAX_VALUE)), "a file without a first seq cannot be placed");
        }
    }

    @Test
    void rowsAlreadyReturnedAreNotReturnedAgainWhenAFileRepeatsThem() throws Exception {
        write(dir.resolve("actions.000001.jsonl"), 1, 3);
        Files.writeString(dir.resolve("actions.jsonl"), "{\"seq\":2}\n{\"seq\":3}\n{\"seq\":4}\n", StandardCharsets.UTF_8);
        try (JournalReader reader = JournalReader.actions(dir)) {
            assertEquals(List.of(1L, 2L, 3L, 4L), seqs(reader.readAll(Long.MAX_VALUE)));
        }
    }

    @Test
    void theDecisionsReaderReadsTheDecisionsJournalAndIsNamedForIt() throws Exception {
        write(dir.resolve("decisions.jsonl"), 1, 2);
        write(dir.resolve("actions.jsonl"), 1, 5);
        try (JournalReader reader = JournalReader.decisions(dir)) {
            assertEquals("decisions.jsonl", reader.name());
            assertEquals(List.of(1L, 2L), seqs(reader.readAll(Long.MAX_VALUE)));
        }
        try (JournalReader reader = JournalReader.actions(dir)) {
            assertEquals("actions.jsonl", reader.name());
        }
    }

    @Test
    void anEmptyDirectoryHasNoRowsYetAndTheFirstRowWrittenLaterIsRead() throws Exception {
        try (JournalReader reader = JournalReader.actions(dir)) {
            assertEquals(List.of(), reader.poll(10, Long.MAX_VALUE));
            assertEquals(1, reader.nextSeq());
            write(dir.resolve("actions.jsonl"), 1, 1);
            assertEquals(List.of(1L), seqs(reader.poll(10, Long.MAX_VALUE)));
        }
    }

    @Test
    void aReaderThatFinishedAFileRotatedAwayWaitsForTheNextActiveFileAndReadsIt() throws Exception {
        Path active = dir.resolve("actions.jsonl");
        write(active, 1, 3);
        try (JournalReader reader = JournalReader.actions(dir)) {
            assertEquals(List.of(1L, 2L, 3L), seqs(reader.poll(100, Long.MAX_VALUE)));
            Files.move(active, dir.resolve("actions.000001.jsonl"));
            assertEquals(List.of(), reader.poll(100, Long.MAX_VALUE), "the rotated file holds nothing new and there is no active one");
            Files.writeString(active, "");
            assertEquals(List.of(), reader.poll(100, Long.MAX_VALUE), "the new active file has no row yet");
            write(active, 4, 5);
            List<JournalReader.Entry> rest = reader.poll(100, Long.MAX_VALUE);
            assertEquals(List.of(4L, 5L), seqs(rest));
            assertEquals("actions.jsonl", rest.get(0).file());
            assertEquals(List.of(), reader.readAll(Long.MAX_VALUE));
        }
    }

    @Test
    void aRotatedFileWhoseFirstRowIsExactlyTheRowLimitIsReadFromItsFirstRow() throws Exception {
        String head = "{\"seq\":1,\"kind\":\"note\",\"text\":\"";
        String tail = "\"}";
        String first = head + "p".repeat(JournalFiles.MAX_ROW_BYTES - head.length() - tail.length()) + tail;
        assertEquals(JournalFiles.MAX_ROW_BYTES, first.getBytes(StandardCharsets.UTF_8).length);
        Files.writeString(dir.resolve("actions.000001.jsonl"), first + "\n{\"seq\":2,\"kind\":\"note\"}\n");
        Files.writeString(dir.resolve("actions.jsonl"), "{\"seq\":3,\"kind\":\"note\"}\n");
        try (JournalReader reader = JournalReader.actions(dir)) {
            assertEquals(List.of(1L, 2L, 3L), seqs(reader.readAll(Long.MAX_VALUE)),
                    "the file's first seq is read from a first row of exactly the limit, so no file is skipped");
        }
    }

    @Test
    void aReaderThatLosesTheRaceToOpenItsFileEightTimesReturnsNothingNowAndTheRowsAtTheNextPoll() throws Exception {
        Path file = dir.resolve("actions.jsonl");
        String rows = "{\"seq\":1,\"kind\":\"a\"}\n{\"seq\":2,\"kind\":\"b\"}\n";
        Files.writeString(file, rows);
        int[] opens = {0};
        boolean[] racing = {true};
        Runnable replace = () -> {
            opens[0]++;
            if (racing[0]) {
                try {
                    // Another gateway replaced the file between the listing and the open: a new file, the same name.
                    Path fresh = dir.resolve("fresh");
                    Files.writeString(fresh, rows);
                    Files.move(fresh, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        };
        try (JournalReader reader = new JournalReader(new JournalFiles(dir, "actions"), replace)) {
            assertEquals(List.of(), reader.poll(10, Long.MAX_VALUE), "no file it opened was the one it chose");
            assertEquals(8, opens[0], "it tried eight times, then gave up for this poll");
            racing[0] = false;
            assertEquals(List.of(1L, 2L), seqs(reader.poll(10, Long.MAX_VALUE)));
        }
    }

    @Test
    void aJournalWhoseOnlyFileIsStillEmptyReadsAsNothingAndThenAsTheRowsWrittenIntoIt() throws Exception {
        Path file = Files.createFile(dir.resolve("actions.jsonl"));
        try (JournalReader reader = JournalReader.actions(dir)) {
            assertEquals(List.of(), reader.poll(10, Long.MAX_VALUE));
            Files.writeString(file, "{\"seq\":1,\"kind\":\"a\"}\n", StandardOpenOption.APPEND);
            assertEquals(List.of(1L), seqs(reader.poll(10, Long.MAX_VALUE)));
        }
    }

    @Test
    void onePollMovesOnThroughAtMostFourFilesSoABacklogOfRotatedFilesComesInSeveralPolls() throws Exception {
        try (ChainedJsonLines journal = lines(1)) {
            for (int i = 0; i < 10; i++) {
                journal.append(JSON.createObjectNode().put("kind", "note").put("text", "row " + i), false);
            }
        }
        assertTrue(new JournalFiles(dir, "actions").segments().size() >= 9, "one row a file");
        try (JournalReader reader = JournalReader.actions(dir)) {
            assertEquals(List.of(1L, 2L, 3L, 4L), seqs(reader.poll(1000, Long.MAX_VALUE)), "the first file and three switches");
            assertEquals(List.of(5L, 6L, 7L, 8L), seqs(reader.poll(1000, Long.MAX_VALUE)));
            assertEquals(List.of(9L, 10L), seqs(reader.readAll(Long.MAX_VALUE)));
        }
    }
}
