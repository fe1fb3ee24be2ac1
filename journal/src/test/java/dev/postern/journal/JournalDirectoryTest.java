package dev.postern.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.action.Action;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.ApprovalRecord;
import dev.postern.policy.port.Rejection;
import dev.postern.policy.port.SecretMask;
import dev.postern.policy.port.Stage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal's directory and its edges: private modes made or refused at open, diagnostics for rows
 * that could not be written, every string of a nested row masked, the session's end on close, and a
 * chain continued from the newest segment when the active file is gone.
 */
class JournalDirectoryTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String FRAME = "ef".repeat(32);

    @TempDir
    Path scratch;

    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();

    private FileAuditJournal open(Path dir) throws IOException {
        return FileAuditJournal.open(dir, new PrintStream(stderr, true, StandardCharsets.UTF_8), TestRows.ROWS);
    }

    private String diagnostics() {
        return stderr.toString(StandardCharsets.UTF_8);
    }

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    @Test
    void aNewDirectoryAndItsFilesAreMadePrivateWithoutAWord() throws Exception {
        Path dir = scratch.resolve("new").resolve("journal");
        try (FileAuditJournal journal = open(dir)) {
            journal.rejected(new Rejection(Stage.JSON, "PARSE_ERROR", Optional.empty(), FRAME));
        }
        assertEquals("rwx------", mode(dir));
        assertEquals("rw-------", mode(dir.resolve(FileAuditJournal.DECISIONS)));
        assertEquals("rw-------", mode(dir.resolve(FileAuditJournal.ACTIONS)));
        assertEquals("", diagnostics(), "nothing was tightened, so nothing is said");
    }

    @Test
    void aDirectoryAndFilesOthersCanReadAreTightenedAndTheOperatorIsTold() throws Exception {
        Path dir = Files.createDirectory(scratch.resolve("open"));
        Files.writeString(dir.resolve("rate-limits.json"), "{}");
        Files.setPosixFilePermissions(dir.resolve("rate-limits.json"), PosixFilePermissions.fromString("rw-r--r--"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        open(dir).close();
        assertEquals("rwx------", mode(dir));
        assertEquals("rw-------", mode(dir.resolve("rate-limits.json")));
        assertTrue(diagnostics().contains("postern: " + dir + " was readable by group or others (rwxr-xr-x); made rwx------"),
                diagnostics());
        assertTrue(diagnostics().contains("postern: " + dir.resolve("rate-limits.json")
                + " was readable by group or others (rw-r--r--); made rw-------"), diagnostics());
    }

    @Test
    void aDirectoryOrFileOthersCanWriteIsRefused() throws Exception {
        Path dir = Files.createDirectory(scratch.resolve("shared"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        IOException e = assertThrows(IOException.class, () -> open(dir));
        assertTrue(e.getMessage().contains("is writable by group or others (rwxrwxrwx)"), e.getMessage());
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        Files.writeString(dir.resolve(FileAuditJournal.ACTIONS), "");
        Files.setPosixFilePermissions(dir.resolve(FileAuditJournal.ACTIONS), PosixFilePermissions.fromString("rw-rw-rw-"));
        IOException f = assertThrows(IOException.class, () -> open(dir));
        assertTrue(f.getMessage().contains(FileAuditJournal.ACTIONS + " is writable by group or others (rw-rw-rw-)"), f.getMessage());
    }

    @Test
    void aFileWhereTheDirectoryShouldBeIsRefusedAndLeftAlone() throws Exception {
        Path file = Files.writeString(scratch.resolve("journal"), "not a directory");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertThrows(IOException.class, () -> open(file));
        assertEquals("rw-r--r--", mode(file));
        assertEquals("not a directory", Files.readString(file));
    }

    @Test
    void rowsThatCannotBeWrittenAreToldOnDiagnosticsAndNothingThrows() throws Exception {
        Path dir = scratch.resolve("closed");
        SessionFacts facts = SessionFacts.of(dir.resolve("postern.json"), "a".repeat(64), "1.0");
        FileAuditJournal journal = FileAuditJournal.open(dir, JournalSettings.rotatingAt(1 << 20).withSession(facts),
                new PrintStream(stderr, true, StandardCharsets.UTF_8), TestRows.ROWS);
        journal.close();
        stderr.reset();
        journal.rejected(new Rejection(Stage.JSON, "PARSE_ERROR", Optional.empty(), FRAME));
        journal.approval(ApprovalRecord.asked("r", "sha256:" + "ab".repeat(32), ApprovalRecord.Channel.NONE, FRAME));
        journal.dropped("srv", "shape", FRAME, 10);
        journal.outcome(7, new ExecutionFailure(FailureCode.TIMEOUT, "slow"));
        journal.sessionClient("client", "1", "handshake", "2025-11-25");
        String said = diagnostics();
        assertEquals(3, count(said, "postern: could not write " + FileAuditJournal.DECISIONS + ": "), said);
        assertEquals(2, count(said, "postern: could not write " + FileAuditJournal.ACTIONS + ": "), said);
    }

    private static int count(String text, String part) {
        return text.split(java.util.regex.Pattern.quote(part), -1).length - 1;
    }

    @Test
    void closingEndsTheSessionOnRecordWhenNobodyEndedIt() throws Exception {
        Path dir = scratch.resolve("session");
        SessionFacts facts = SessionFacts.of(dir.resolve("postern.json"), "a".repeat(64), "1.0");
        FileAuditJournal journal = FileAuditJournal.open(dir, JournalSettings.rotatingAt(1 << 20).withSession(facts),
                new PrintStream(stderr, true, StandardCharsets.UTF_8), TestRows.ROWS);
        // A session with a client on record (one with nothing on record leaves no rows: a discovery probe).
        journal.sessionClient("client", "1", "handshake", "2025-11-25");
        journal.close();
        List<String> rows = Files.readAllLines(dir.resolve(FileAuditJournal.ACTIONS));
        JsonNode last = JSON.readTree(rows.get(rows.size() - 1));
        assertEquals("end", last.get("event").asText());
        assertEquals("closed", last.get("exit").asText());
        assertTrue(TestRows.verifier().verify(dir).intact());
    }

    @Test
    void everyStringInNestedObjectsAndArraysIsMaskedAndOtherValuesAreKept() throws Exception {
        Path dir = scratch.resolve("masked");
        ActionRows nested = new ActionRows() {
            @Override
            public void intent(AuthorizedAction permit, ObjectNode row, boolean redactArguments) {
                row.putArray("argv").add("grep").add("s3cret-pw").add(5).addObject().put("deep", "x s3cret-pw y");
                row.putObject("request").put("url", "http://h/?k=s3cret-pw").put("port", 8080)
                        .putArray("headers").addArray().add("s3cret-pw");
            }

            @Override
            public void denial(Action action, ObjectNode row, boolean redactArguments) {
            }

            @Override
            public void outcome(Outcome outcome, ObjectNode row) {
            }
        };
        JournalSettings settings = JournalSettings.rotatingAt(1 << 20)
                .masking(() -> new SecretMask(List.of("s3cret-pw".getBytes(StandardCharsets.UTF_8))));
        try (FileAuditJournal journal = FileAuditJournal.open(dir, settings, new PrintStream(stderr, true, StandardCharsets.UTF_8), nested)) {
            journal.intent(Permits.ssh("w"), FRAME);
        }
        String text = Files.readString(dir.resolve(FileAuditJournal.ACTIONS));
        assertFalse(text.contains("s3cret"), text);
        JsonNode row = JSON.readTree(text.lines().findFirst().orElseThrow());
        assertEquals("[\"grep\",\"****\",5,{\"deep\":\"x **** y\"}]", row.get("argv").toString());
        assertEquals("{\"url\":\"http://h/?k=****\",\"port\":8080,\"headers\":[[\"****\"]]}", row.get("request").toString());
    }

    @Test
    void durableIntentsAreForcedToDisk() throws Exception {
        try (FileAuditJournal journal = open(scratch.resolve("forced"))) {
            assertEquals(0, journal.actionForces());
            journal.intent(Permits.ssh("a"), FRAME);
            assertTrue(journal.actionForces() >= 1, "an intent is on disk before it returns");
        }
    }

    @Test
    void anActiveFileLostAfterARotationContinuesTheChainFromTheNewestSegment() throws Exception {
        Path dir = Files.createDirectory(scratch.resolve("rotated"));
        JournalFiles files = new JournalFiles(dir, "actions");
        try (ChainedJsonLines lines = new ChainedJsonLines(files, JSON, Clock.systemUTC(), 300)) {
            for (int i = 0; i < 6; i++) {
                lines.append(JSON.createObjectNode().put("kind", "note").put("text", "y".repeat(60)), false);
            }
        }
        // A gateway stopped just after a rotation: the newest rows are in a segment and no active file follows it.
        if (Files.size(files.active()) == 0) {
            Files.delete(files.active());
        } else {
            files.rotate();
        }
        assertFalse(Files.exists(files.active()));
        try (ChainedJsonLines lines = new ChainedJsonLines(files, JSON, Clock.systemUTC(), 300)) {
            assertEquals(7, lines.append(JSON.createObjectNode().put("kind", "note"), false));
        }
        assertTrue(TestRows.verifier().verifyJournal(files).intact(), "the new file's first row chains to the segment's last");
        assertEquals(7, TestRows.verifier().verifyJournal(files).rows());
    }

    @Test
    void aNewestSegmentThatIsTornOrEndsWithoutASeqStopsTheJournal() throws Exception {
        Path dir = Files.createDirectory(scratch.resolve("torn"));
        JournalFiles files = new JournalFiles(dir, "actions");
        Path segment = dir.resolve("actions.000001.jsonl");
        Files.writeString(segment, "{\"seq\":1,\"prev\":\"" + HashChain.GENESIS + "\"}\n{\"seq\":2,\"pr");
        IOException torn = assertThrows(IOException.class, () -> new ChainedJsonLines(files, JSON, Clock.systemUTC(), 300));
        assertTrue(torn.getMessage().contains("ends with an incomplete row"), torn.getMessage());
        Files.writeString(segment, "{\"kind\":\"note\"}\n");
        IOException noSeq = assertThrows(IOException.class, () -> new ChainedJsonLines(files, JSON, Clock.systemUTC(), 300));
        assertTrue(noSeq.getMessage().contains("the last row has no seq"), noSeq.getMessage());
        Files.writeString(segment, "");
        assertThrows(IOException.class, () -> new ChainedJsonLines(files, JSON, Clock.systemUTC(), 300));
    }

    @Test
    void segmentsAreOrderedByNumberAndASegmentNumberedZeroIsNoSegment() throws Exception {
        Path dir = Files.createDirectory(scratch.resolve("numbers"));
        for (String name : List.of("actions.000010.jsonl", "actions.000002.jsonl", "actions.000000.jsonl", "actions.x.jsonl",
                "decisions.000001.jsonl")) {
            Files.writeString(dir.resolve(name), "");
        }
        assertEquals(List.of(dir.resolve("actions.000002.jsonl"), dir.resolve("actions.000010.jsonl")),
                new JournalFiles(dir, "actions").segments());
    }
}
