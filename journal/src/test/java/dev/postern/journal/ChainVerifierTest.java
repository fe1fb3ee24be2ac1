package dev.postern.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.json.JsonMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** audit verify's verdicts, read in the journal module: which row a break is blamed on, and why. */
class ChainVerifierTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    private void append(String journal, int rows, long rotateBytes) throws Exception {
        try (ChainedJsonLines lines = new ChainedJsonLines(new JournalFiles(dir, journal), JSON, Clock.systemUTC(), rotateBytes)) {
            for (int i = 0; i < rows; i++) {
                lines.append(JSON.createObjectNode().put("kind", "note").put("text", "row " + i + " " + "x".repeat(40)), false);
            }
        }
    }

    private ChainVerifier.FileResult actions() {
        return TestRows.verifier().verifyJournal(new JournalFiles(dir, "actions"));
    }

    private void edit(Path file, int row, String from, String to) throws Exception {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        String changed = lines.get(row - 1).replace(from, to);
        assertFalse(changed.equals(lines.get(row - 1)), "the edit changed nothing");
        lines.set(row - 1, changed);
        Files.writeString(file, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
    }

    private static ChainVerifier.Break broken(ChainVerifier.FileResult r) {
        assertFalse(r.intact(), "the chain should be broken");
        return r.broken().orElseThrow();
    }

    @Test
    void aDirectoryWithoutJournalsHasNoJournalAndIsNotIntact() {
        ChainVerifier.Result r = TestRows.verifier().verify(dir);
        assertTrue(r.noJournal());
        assertFalse(r.intact());
        assertEquals("the file is missing or not a regular file", r.files().get(0).broken().orElseThrow().reason());
    }

    @Test
    void oneIntactJournalBesideAMissingOneIsAJournalButNotIntact() throws Exception {
        append("actions", 3, Long.MAX_VALUE);
        ChainVerifier.Result r = TestRows.verifier().verify(dir);
        assertFalse(r.noJournal());
        assertFalse(r.intact(), "decisions.jsonl is missing");
        assertTrue(r.files().get(1).intact());
        assertEquals(3, r.files().get(1).rows());
        append("decisions", 1, Long.MAX_VALUE);
        assertTrue(TestRows.verifier().verify(dir).intact());
    }

    @Test
    void aChangedMiddleRowIsBlamedItselfBecauseTheRowAfterItStillAgreesWithTheRowAfterThat() throws Exception {
        append("actions", 4, Long.MAX_VALUE);
        edit(dir.resolve("actions.jsonl"), 2, "row 1", "row X");
        ChainVerifier.Break b = broken(actions());
        assertEquals("actions.jsonl", b.file());
        assertEquals(2, b.row());
        assertTrue(b.reason().startsWith("row 2 was changed after it was written"), b.reason());
    }

    @Test
    void aChangedLastRowPrevIsBlamedOnThatRowNamingTheRowBefore() throws Exception {
        append("actions", 3, Long.MAX_VALUE);
        List<String> lines = Files.readAllLines(dir.resolve("actions.jsonl"));
        String prev = JSON.readTree(lines.get(2)).get("prev").asText();
        edit(dir.resolve("actions.jsonl"), 3, prev, "f".repeat(64));
        ChainVerifier.Break b = broken(actions());
        assertEquals(3, b.row());
        assertEquals("row 3 has prev " + "f".repeat(64) + ", but row 2 hashes to " + prev
                + ": this row or the one before it was changed", b.reason());
    }

    @Test
    void aFirstRowWhosePrevIsNotZerosIsNamed() throws Exception {
        append("actions", 2, Long.MAX_VALUE);
        edit(dir.resolve("actions.jsonl"), 1, HashChain.GENESIS, "a".repeat(64));
        ChainVerifier.Break b = broken(actions());
        assertEquals(1, b.row());
        assertEquals("row 1 has prev " + "a".repeat(64) + ", but a first row's prev is 64 zeros", b.reason());
    }

    @Test
    void aRemovedRowShowsAsTheNextRowsUnexpectedSeq() throws Exception {
        append("actions", 3, Long.MAX_VALUE);
        List<String> lines = Files.readAllLines(dir.resolve("actions.jsonl"));
        Files.writeString(dir.resolve("actions.jsonl"), lines.get(0) + "\n" + lines.get(2) + "\n");
        ChainVerifier.Break b = broken(actions());
        assertEquals(2, b.row());
        assertEquals("row 2 has seq 3, expected 2: a row before it was removed, added or moved", b.reason());
    }

    @Test
    void aSeqThatIsNotAWholeNumberIsNotTheSeq() throws Exception {
        append("actions", 1, Long.MAX_VALUE);
        edit(dir.resolve("actions.jsonl"), 1, "\"seq\":1", "\"seq\":\"1\"");
        assertEquals("row 1 has seq \"1\", expected 1: a row before it was removed, added or moved", broken(actions()).reason());
        Files.delete(dir.resolve("actions.jsonl"));
        append("actions", 1, Long.MAX_VALUE);
        edit(dir.resolve("actions.jsonl"), 1, "\"seq\":1", "\"seq\":1.0");
        assertTrue(broken(actions()).reason().startsWith("row 1 has seq 1.0, expected 1"));
    }

    @Test
    void aChangedLastRowOfASegmentIsBlamedOnTheNextFilesFirstRowNamingTheFileBefore() throws Exception {
        append("actions", 12, 400);
        List<Path> segments = new JournalFiles(dir, "actions").segments();
        assertTrue(segments.size() >= 2, "the rows span files");
        Path first = segments.get(0);
        int last = Files.readAllLines(first).size();
        edit(first, last, "row ", "ROW ");
        ChainVerifier.FileResult r = actions();
        ChainVerifier.Break b = broken(r);
        assertEquals(segments.get(1).getFileName().toString(), b.file());
        assertEquals(1, b.row(), "the first row of a file has nothing in its own file to blame");
        assertTrue(b.reason().contains("but the last row of " + first.getFileName() + " hashes to"), b.reason());
        assertEquals(r.files().size(), segments.size() + 1);
    }

    @Test
    void aBreakMayBlameTheFileAsAWholeButNoNegativeRow() {
        assertEquals(0, new ChainVerifier.Break("actions.jsonl", 0, "the file cannot be read").row());
        assertThrows(IllegalArgumentException.class, () -> new ChainVerifier.Break("actions.jsonl", -1, "x"));
    }

    @Test
    void rowsThatAreNotJournalRowsAreNamedWithWhatIsWrongWithThem() throws Exception {
        String zero = HashChain.GENESIS;
        List<String[]> cases = List.of(
                new String[] {"not json\n", "row 1 is not one strict JSON value ("},
                new String[] {"[1]\n", "row 1 is JSON but not an object"},
                new String[] {"\n", "row 1 is empty"},
                new String[] {"{\"seq\":1,\"prev\":\"" + zero + "\"}", "row 1 is cut off: the file ends without a line feed"},
                new String[] {"{\"seq\":1,\"prev\":\"" + "AB".repeat(32) + "\"}\n", "row 1 has no prev hash of 64 lower-case hex digits"},
                new String[] {"{\"seq\":1}\n", "row 1 has no prev hash of 64 lower-case hex digits"},
                new String[] {"{\"seq\":1,\"prev\":1}\n", "row 1 has no prev hash of 64 lower-case hex digits"});
        for (String[] c : cases) {
            Files.writeString(dir.resolve("actions.jsonl"), c[0], StandardCharsets.UTF_8);
            ChainVerifier.FileResult r = actions();
            assertFalse(r.intact(), c[0]);
            String reason = r.broken().orElseThrow().reason();
            assertTrue(reason.startsWith(c[1]), c[0] + " gave: " + reason);
        }
        Files.write(dir.resolve("actions.jsonl"), new byte[] {'{', (byte) 0xC3, '}', '\n'});
        assertEquals("row 1 is not valid UTF-8", broken(actions()).reason());
    }

    @Test
    void aRowLongerThanTheLimitIsNamedAndTheRowsAfterItAreNotRead() throws Exception {
        Files.writeString(dir.resolve("actions.jsonl"), "{\"seq\":1,\"x\":\"" + "a".repeat(ChainVerifier.MAX_ROW_BYTES) + "\"}\n");
        ChainVerifier.Break b = broken(actions());
        assertEquals(1, b.row());
        assertEquals("row 1 is longer than " + ChainVerifier.MAX_ROW_BYTES + " bytes", b.reason());
    }

    private java.security.KeyPair keys() throws Exception {
        return java.security.KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    }

    private void signed(String journal, int rows, java.security.PrivateKey key) throws Exception {
        try (ChainedJsonLines lines = new ChainedJsonLines(new JournalFiles(dir, journal), JSON, Clock.systemUTC(), Long.MAX_VALUE,
                java.util.Optional.of(new CheckpointSigner(key, 2)))) {
            for (int i = 0; i < rows; i++) {
                lines.append(JSON.createObjectNode().put("kind", "note").put("text", "r" + i), false);
            }
        }
    }

    @Test
    void aCheckpointCopiedFromTheOtherJournalIsCaughtAsMoved() throws Exception {
        java.security.KeyPair k = keys();
        signed("decisions", 2, k.getPrivate());
        Files.move(dir.resolve("decisions.jsonl"), dir.resolve("actions.jsonl"));
        ChainVerifier.Break b = broken(actions());
        assertEquals(3, b.row());
        assertTrue(b.reason().startsWith("row 3 is a checkpoint of \"decisions.jsonl\", not of actions.jsonl: it was moved here"),
                b.reason());
    }

    @Test
    void aCheckpointThatSignsAnotherHeadNamesTheRowItShouldSign() throws Exception {
        signed("actions", 2, keys().getPrivate());
        List<String> lines = Files.readAllLines(dir.resolve("actions.jsonl"));
        String head = JSON.readTree(lines.get(2)).get("head").toString();
        edit(dir.resolve("actions.jsonl"), 3, head, head.replace("\"seq\":2", "\"seq\":1"));
        String prevOfRow3 = JSON.readTree(lines.get(2)).get("prev").asText();
        ChainVerifier.Break b = broken(actions());
        assertEquals("row 3 is a checkpoint that does not sign the row before it (seq 2, sha256 " + prevOfRow3 + ")", b.reason());
    }

    @Test
    void aCheckpointWithoutAnEd25519SignatureIsRefusedWithOrWithoutAKey() throws Exception {
        signed("actions", 2, keys().getPrivate());
        edit(dir.resolve("actions.jsonl"), 3, "\"alg\":\"Ed25519\"", "\"alg\":\"none\"");
        assertEquals("row 3 is a checkpoint without an Ed25519 signature", broken(actions()).reason());
    }

    @Test
    void aCheckpointVerifiesOnlyWithItsOwnKey() throws Exception {
        java.security.KeyPair k = keys();
        signed("actions", 4, k.getPrivate());
        JournalFiles files = new JournalFiles(dir, "actions");
        ChainVerifier.FileResult ok = TestRows.verifier().verifyJournal(files, java.util.Optional.of(k.getPublic()));
        assertTrue(ok.intact());
        assertEquals(3, ok.signing().checkpoints(), "after rows 2 and 4, and at close");
        assertTrue(ok.signing().signaturesVerified());
        ChainVerifier.FileResult other = TestRows.verifier().verifyJournal(files, java.util.Optional.of(keys().getPublic()));
        assertTrue(broken(other).reason().contains("whose signature does not verify with the given public key"));
    }

    @Test
    void aRowWhosePrevWasRewrittenIsBlamedItselfWhenTheRowAfterItNoLongerAgreesWithIt() throws Exception {
        append("actions", 4, Long.MAX_VALUE);
        Path file = dir.resolve("actions.jsonl");
        String prevOfRow2 = JSON.readTree(Files.readAllLines(file, StandardCharsets.UTF_8).get(1)).get("prev").textValue();
        edit(file, 2, prevOfRow2, "f".repeat(64));
        ChainVerifier.Break b = broken(actions());
        assertEquals(2, b.row(), b.reason());
        assertTrue(b.reason().startsWith("row 2 has prev " + "f".repeat(64) + ", but row 1 hashes to "), b.reason());
    }

    @Test
    void aRowWhosePrevWasRewrittenIsBlamedItselfWhenTheRowAfterItIsNotARow() throws Exception {
        append("actions", 4, Long.MAX_VALUE);
        Path file = dir.resolve("actions.jsonl");
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        String prevOfRow2 = JSON.readTree(lines.get(1)).get("prev").textValue();
        lines.set(1, lines.get(1).replace(prevOfRow2, "e".repeat(64)));
        lines.set(2, "not json at all");
        Files.writeString(file, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        ChainVerifier.Break b = broken(actions());
        assertEquals(2, b.row(), b.reason());
        assertTrue(b.reason().startsWith("row 2 has prev " + "e".repeat(64)), b.reason());
    }

    @Test
    void aJournalFileThatIsNotARegularFileIsNamedAsSuch() throws Exception {
        append("actions", 2, 1);
        Path segment = new JournalFiles(dir, "actions").segments().get(0);
        Files.delete(segment);
        Files.createDirectory(segment);
        ChainVerifier.Break b = broken(actions());
        assertEquals(segment.getFileName().toString(), b.file());
        assertEquals(0, b.row());
        assertEquals("the file is not a regular file", b.reason());
    }

    @Test
    void aJournalDirectoryThatCannotBeListedIsSaidSo() throws Exception {
        Path notADirectory = Files.writeString(dir.resolve("plain-file"), "x");
        ChainVerifier.FileResult r = TestRows.verifier().verifyJournal(new JournalFiles(notADirectory, "actions"));
        ChainVerifier.Break b = broken(r);
        assertEquals("actions.jsonl", b.file());
        assertTrue(b.reason().startsWith("the directory cannot be listed: "), b.reason());
    }
}
