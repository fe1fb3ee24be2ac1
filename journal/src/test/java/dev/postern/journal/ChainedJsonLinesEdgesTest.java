package dev.postern.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPairGenerator;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The limits of the chained file at their exact values: rotation size, row size, checkpoints, repair at open. */
class ChainedJsonLinesEdgesTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Clock FIXED = Clock.fixed(Instant.parse("2026-01-02T03:04:05.678Z"), ZoneOffset.UTC);

    @TempDir
    Path dir;

    private ChainedJsonLines lines(long rotateBytes) throws Exception {
        return new ChainedJsonLines(new JournalFiles(dir, "actions"), JSON, FIXED, rotateBytes);
    }

    private static ObjectNode note(String text) {
        return JSON.createObjectNode().put("kind", "note").put("text", text);
    }

    /** The files of the chain that hold rows (closing a full file rotates it, leaving an empty active file). */
    private List<Path> chain() throws Exception {
        List<Path> withRows = new java.util.ArrayList<>();
        for (Path p : new JournalFiles(dir, "actions").chain()) {
            if (Files.size(p) > 0) {
                withRows.add(p);
            }
        }
        return withRows;
    }

    private void clear() throws Exception {
        for (Path p : new JournalFiles(dir, "actions").chain()) {
            Files.delete(p);
        }
    }

    @Test
    void aRotationSizeOfOneByteIsAllowedAndPutsEveryRowInItsOwnFileButZeroIsRefused() throws Exception {
        try (ChainedJsonLines lines = lines(1)) {
            for (int i = 0; i < 3; i++) {
                lines.append(note("r" + i), false);
            }
        }
        assertEquals(3, chain().size());
        assertTrue(TestRows.verifier().verifyJournal(new JournalFiles(dir, "actions")).intact());
        assertThrows(IllegalArgumentException.class, () -> lines(0));
    }

    @Test
    void aFileIsRotatedOnceItHoldsExactlyTheRotationSize() throws Exception {
        try (ChainedJsonLines lines = lines(Long.MAX_VALUE)) {
            lines.append(note("same"), false);
        }
        long oneRow = Files.size(dir.resolve("actions.jsonl"));
        clear();
        try (ChainedJsonLines lines = lines(oneRow)) {
            lines.append(note("same"), false);
            lines.append(note("next"), false);
        }
        assertEquals(2, chain().size(), "at exactly the size the next row starts a new file");
        clear();
        try (ChainedJsonLines lines = lines(oneRow + 1)) {
            lines.append(note("same"), false);
            lines.append(note("next"), false);
        }
        assertEquals(1, chain().size(), "one byte under the size the file takes the next row");
    }

    @Test
    void aRowOfExactlyTheLimitIsWrittenAndOneByteMoreIsRefused() throws Exception {
        ObjectNode probe = JSON.createObjectNode().put("seq", 1).put("time", FIXED.instant().toString())
                .put("kind", "note").put("text", "").put("prev", HashChain.GENESIS);
        int base = JSON.writeValueAsBytes(probe).length;
        String pad = "p".repeat(ChainedJsonLines.MAX_ROW_BYTES - base);
        try (ChainedJsonLines lines = lines(Long.MAX_VALUE)) {
            assertEquals(1, lines.append(note(pad), false));
            assertThrows(java.io.IOException.class, () -> lines.append(note(pad + "pp"), false));
            assertEquals(2, lines.append(note("after"), false));
        }
        List<String> rows = Files.readAllLines(dir.resolve("actions.jsonl"), StandardCharsets.UTF_8);
        assertEquals(ChainedJsonLines.MAX_ROW_BYTES, rows.get(0).getBytes(StandardCharsets.UTF_8).length);
        assertEquals(2, rows.size());
    }

    @Test
    void aTornRowIsRepairedOnRecordAsSoonAsTheFileIsOpened() throws Exception {
        try (ChainedJsonLines lines = lines(Long.MAX_VALUE)) {
            lines.append(note("whole"), false);
        }
        Files.writeString(dir.resolve("actions.jsonl"), "{\"seq\":2,\"ti", java.nio.file.StandardOpenOption.APPEND);
        try (ChainedJsonLines lines = lines(Long.MAX_VALUE)) {
            List<String> rows = Files.readAllLines(dir.resolve("actions.jsonl"), StandardCharsets.UTF_8);
            assertEquals(2, rows.size(), "the repair row is on disk before any row is appended");
            assertEquals("repair", JSON.readTree(rows.get(1)).get("kind").asText());
            assertEquals(3, lines.append(note("next"), false));
        }
    }

    private static Optional<CheckpointSigner> signer(int every) throws Exception {
        return Optional.of(new CheckpointSigner(KeyPairGenerator.getInstance("Ed25519").generateKeyPair().getPrivate(), every));
    }

    @Test
    void aSignedJournalClosedWithoutRowsSignsNothing() throws Exception {
        new ChainedJsonLines(new JournalFiles(dir, "actions"), JSON, FIXED, Long.MAX_VALUE, signer(2)).close();
        assertEquals(0, Files.size(dir.resolve("actions.jsonl")));
    }

    @Test
    void aDurableRowIsForcedEvenWhenACheckpointFollowsItInItsBatch() throws Exception {
        try (ChainedJsonLines lines = new ChainedJsonLines(new JournalFiles(dir, "actions"), JSON, FIXED, Long.MAX_VALUE, signer(1))) {
            lines.append(note("a"), true);
            assertEquals(1, lines.forces());
            lines.append(note("b"), true);
            assertEquals(2, lines.forces());
            lines.append(note("c"), false);
            assertEquals(2, lines.forces(), "a row that need not be durable is not forced for its checkpoint");
        }
        List<String> rows = Files.readAllLines(dir.resolve("actions.jsonl"), StandardCharsets.UTF_8);
        assertEquals(Checkpoints.KIND, JSON.readTree(rows.get(1)).get("kind").asText());
    }

    @Test
    void aFileMadeWritableByOthersFailsTheBatchWithTheReasonAloneAndTheJournalGoesOnOnceItIsPrivateAgain() throws Exception {
        Path actions = dir.resolve("actions.jsonl");
        try (ChainedJsonLines lines = lines(Long.MAX_VALUE)) {
            assertEquals(1, lines.append(note("before"), false));
            Files.setPosixFilePermissions(actions, PosixFilePermissions.fromString("rw--w----"));
            java.io.IOException refused = assertThrows(java.io.IOException.class, () -> lines.append(note("while open to others"), true));
            assertTrue(refused.getMessage().startsWith(actions.toString()), "the reason itself, not wrapped: " + refused.getMessage());
            assertTrue(refused.getMessage().contains("writable by group or others"), refused.getMessage());
            Files.setPosixFilePermissions(actions, PosixFilePermissions.fromString("rw-------"));
            assertEquals(2, lines.append(note("after"), false), "the refused row took no seq, and the file was not stopped");
        }
        assertEquals(2, Files.readAllLines(actions, StandardCharsets.UTF_8).size());
    }

    @Test
    void aCheckpointAtCloseSignsTheHeadAnotherWriterLeftNotTheOneThisWriterLastWrote() throws Exception {
        try (ChainedJsonLines signed = new ChainedJsonLines(new JournalFiles(dir, "actions"), JSON, FIXED, Long.MAX_VALUE, signer(100))) {
            assertEquals(1, signed.append(note("the signing writer's"), false));
            try (ChainedJsonLines other = lines(Long.MAX_VALUE)) {
                assertEquals(2, other.append(note("another writer's, after it"), false));
            }
        }
        List<String> rows = Files.readAllLines(dir.resolve("actions.jsonl"), StandardCharsets.UTF_8);
        assertEquals(3, rows.size(), String.join("\n", rows));
        assertEquals(Checkpoints.KIND, JSON.readTree(rows.get(2)).get("kind").asText());
        assertEquals(3, JSON.readTree(rows.get(2)).get("seq").asLong());
        assertEquals(2, JSON.readTree(rows.get(2)).get("head").get("seq").asLong(), "it signs the last row, whoever wrote it");
        ChainVerifier.FileResult verdict = TestRows.verifier().verifyJournal(new JournalFiles(dir, "actions"));
        assertTrue(verdict.intact(), verdict.toString());
    }

    @Test
    void aTornRowLeftByAnotherWriterIsRepairedOnRecordInTheSameCommitAsTheNextRow() throws Exception {
        Path actions = dir.resolve("actions.jsonl");
        try (ChainedJsonLines lines = lines(Long.MAX_VALUE)) {
            assertEquals(1, lines.append(note("first"), false));
            // Another gateway crashed mid-row: its bytes end without a line feed.
            Files.writeString(actions, "{\"seq\":2,\"kind\":\"no", java.nio.file.StandardOpenOption.APPEND);
            assertEquals(3, lines.append(note("after the crash"), false), "the repair row took seq 2");
        }
        List<String> rows = Files.readAllLines(actions, StandardCharsets.UTF_8);
        assertEquals(3, rows.size(), String.join("\n", rows));
        assertEquals("repair", JSON.readTree(rows.get(1)).get("kind").asText());
        assertEquals(19, JSON.readTree(rows.get(1)).get("removedBytes").asInt());
        assertEquals("after the crash", JSON.readTree(rows.get(2)).get("text").asText());
        ChainVerifier.FileResult verdict = TestRows.verifier().verifyJournal(new JournalFiles(dir, "actions"));
        assertTrue(verdict.intact(), verdict.toString());
    }
}
