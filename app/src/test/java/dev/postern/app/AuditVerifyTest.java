package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.app.cli.Cli;
import dev.postern.app.cli.Io;
import dev.postern.journal.FileAuditJournal;
import dev.postern.journal.HashChain;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code postern audit verify} on journals a real session wrote, intact and tampered with. */
class AuditVerifyTest {
    @TempDir
    Path dir;

    private Path decisions;
    private Path actions;

    /** A real session: three rejections (decisions) and two allowed calls (four action rows). */
    @BeforeEach
    void writeJournalsThroughARealSession() throws Exception {
        String denied = "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
                + "\"arguments\":{\"method\":\"GET\",\"url\":\"http://127.0.0.1:9/admin/%d\"}}}\n";
        SessionHarness h = new SessionHarness(dir).run(SessionHarness.INIT + SessionHarness.INITIALIZED
                + String.format(denied, 2, 2) + SessionHarness.httpCall(3, "a") + String.format(denied, 4, 4)
                + SessionHarness.httpCall(5, "b") + String.format(denied, 6, 6));
        assertEquals(ExitStatus.OK, h.exit);
        assertEquals(2, h.http.count());
        decisions = dir.resolve(FileAuditJournal.DECISIONS);
        actions = dir.resolve(FileAuditJournal.ACTIONS);
        assertEquals(3, Files.readAllLines(decisions).size());
        assertEquals(4, Files.readAllLines(actions).size());
    }

    private record Run(ExitStatus exit, String out, String err) {
    }

    private static Run cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ExitStatus exit = Cli.run(args, new Io(out, new ByteArrayInputStream(new byte[0]), new PrintStream(err, true, StandardCharsets.UTF_8)));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private Run verify() {
        return cli("audit", "verify", dir.toString());
    }

    private static List<byte[]> rows(Path file) throws Exception {
        byte[] all = Files.readAllBytes(file);
        List<byte[]> rows = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < all.length; i++) {
            if (all[i] == '\n') {
                rows.add(java.util.Arrays.copyOfRange(all, start, i + 1));
                start = i + 1;
            }
        }
        return rows;
    }

    private static void write(Path file, List<byte[]> rows) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] r : rows) {
            b.write(r);
        }
        Files.write(file, b.toByteArray());
    }

    /** Changes one byte of {@code row} (1-based): the first character of string {@code field} becomes {@code to} (or, if it is already, the character before it). */
    private static void changeOneByte(Path file, int row, String field, char to) throws Exception {
        List<byte[]> rows = rows(file);
        byte[] r = rows.get(row - 1);
        String text = new String(r, StandardCharsets.UTF_8);
        int at = text.indexOf("\"" + field + "\":\"") + field.length() + 4;
        assertTrue(at > field.length() + 3, "fixture: field " + field + " in " + text);
        r[at] = (byte) (r[at] == to ? to - 1 : to);
        write(file, rows);
    }

    @Test
    void journalsFromARealSessionVerify() throws Exception {
        Run run = verify();

        assertEquals(ExitStatus.OK, run.exit, run.toString());
        List<byte[]> a = rows(actions);
        String head = HashChain.sha256(java.util.Arrays.copyOf(a.get(3), a.get(3).length - 1));
        assertTrue(run.out.contains("decisions.jsonl: 3 rows, chain intact"), run.out);
        assertTrue(run.out.contains("actions.jsonl: 4 rows, chain intact, head sha256 " + head), run.out);
        assertTrue(run.out.contains("both chains intact"), run.out);
        assertEquals("", run.err);
    }

    @Test
    void oneChangedByteInAMiddleRowIsNamedByRow() throws Exception {
        changeOneByte(actions, 2, "time", '3');

        Run run = verify();

        assertEquals(ExitStatus.CHECK_FAILED, run.exit, run.toString());
        assertTrue(run.out.contains("decisions.jsonl: 3 rows, chain intact"), run.out);
        assertTrue(run.out.contains("actions.jsonl: BROKEN: row 2 was changed after it was written"), run.out);
        assertTrue(run.err.contains(actions + ": first broken row 2"), run.err);
    }

    @Test
    void aChangedPrevHashIsNamedByItsOwnRow() throws Exception {
        changeOneByte(decisions, 2, "prev", 'f');
        Run run = verify();
        assertEquals(ExitStatus.CHECK_FAILED, run.exit, run.toString());
        assertTrue(run.out.contains("decisions.jsonl: BROKEN: row 2 has prev"), run.out);
    }

    @Test
    void aRemovedMiddleRowIsNamedByRow() throws Exception {
        List<byte[]> rows = rows(decisions);
        rows.remove(1);
        write(decisions, rows);

        Run run = verify();

        assertEquals(ExitStatus.CHECK_FAILED, run.exit, run.toString());
        assertTrue(run.out.contains("decisions.jsonl: BROKEN: row 2 has seq 3, expected 2"), run.out);
        assertTrue(run.err.contains(decisions + ": first broken row 2"), run.err);
    }

    @Test
    void aRemovedFirstRowIsNamed() throws Exception {
        List<byte[]> rows = rows(actions);
        rows.remove(0);
        write(actions, rows);
        Run run = verify();
        assertEquals(ExitStatus.CHECK_FAILED, run.exit, run.toString());
        assertTrue(run.out.contains("actions.jsonl: BROKEN: row 1 has seq 2, expected 1"), run.out);
    }

    @Test
    void swappedRowsAreNamed() throws Exception {
        List<byte[]> rows = rows(actions);
        rows.add(1, rows.remove(2));
        write(actions, rows);
        Run run = verify();
        assertEquals(ExitStatus.CHECK_FAILED, run.exit, run.toString());
        assertTrue(run.out.contains("actions.jsonl: BROKEN: row 2 has seq 3"), run.out);
    }

    @Test
    void aRowCutOffAtTheEndIsNamed() throws Exception {
        byte[] all = Files.readAllBytes(decisions);
        Files.write(decisions, java.util.Arrays.copyOf(all, all.length - 10));
        Run run = verify();
        assertEquals(ExitStatus.CHECK_FAILED, run.exit, run.toString());
        assertTrue(run.out.contains("decisions.jsonl: BROKEN: row 3 is cut off"), run.out);
    }

    @Test
    void aRowThatIsNotStrictJsonIsNamed() throws Exception {
        List<byte[]> rows = rows(decisions);
        String r = new String(rows.get(0), StandardCharsets.UTF_8);
        rows.set(0, r.replaceFirst("\\{", "{\"seq\":0,").getBytes(StandardCharsets.UTF_8));
        write(decisions, rows);
        Run run = verify();
        assertEquals(ExitStatus.CHECK_FAILED, run.exit, run.toString());
        assertTrue(run.out.contains("decisions.jsonl: BROKEN: row 1 is not one strict JSON value"), run.out);
    }

    @Test
    void aMissingJournalFileFailsTheCheck() throws Exception {
        Files.delete(actions);
        Run run = verify();
        assertEquals(ExitStatus.CHECK_FAILED, run.exit, run.toString());
        assertTrue(run.out.contains("actions.jsonl: BROKEN: the file is missing"), run.out);
    }

    @Test
    void aJournalThatKeepsGrowingAfterAVerifyStaysIntact() throws Exception {
        new SessionHarness(dir).run(SessionHarness.INIT + SessionHarness.INITIALIZED + SessionHarness.httpCall(2, "c"));
        Run run = verify();
        assertEquals(ExitStatus.OK, run.exit, run.toString());
        assertTrue(run.out.contains("actions.jsonl: 6 rows, chain intact"), run.out);
    }

    @Test
    void aDirectoryWithoutAJournalSaysNoJournalHereAndFails() throws Exception {
        Path empty = Files.createDirectories(dir.resolve("empty"));
        Run run = cli("audit", "verify", empty.toString());
        assertEquals(ExitStatus.CHECK_FAILED, run.exit, run.toString());
        assertTrue(run.out.startsWith("no journal here: " + empty), run.out);
        assertTrue(run.err.contains("no journal here"), run.err);
    }

    @Test
    void aJournalDirectoryThatDoesNotExistIsNoJournalHereAndFailsTheCheckLikeAnEmptyOne() {
        Path absent = dir.resolve("absent");
        Run run = cli("audit", "verify", absent.toString());
        assertEquals(ExitStatus.CHECK_FAILED, run.exit, run.toString());
        assertEquals("no journal here: " + absent + " does not exist\n", run.out);
        assertEquals("postern audit verify: no journal here: " + absent + " does not exist\n", run.err,
                "one line naming the path, not the usage text");
    }

    @Test
    void aJournalFileGivenForItsDirectoryIsAUsageError() throws Exception {
        new SessionHarness(dir).run(SessionHarness.INIT);
        Path file = dir.resolve("decisions.jsonl");
        Run run = cli("audit", "verify", file.toString());
        assertEquals(ExitStatus.USAGE, run.exit, run.toString());
        assertTrue(run.err.startsWith("postern audit: " + file + " is not a directory; give the journal directory"), run.err);
    }

    @Test
    void anInterruptedActionIsListedWithoutFailingTheCheck() throws Exception {
        try (FileAuditJournal journal = FileAuditJournal.open(dir, System.err, Gateway.journalRows())) {
            dev.postern.policy.Decision d = new dev.postern.policy.PolicyEngine(SessionHarness.policy()).decide(
                    new dev.postern.policy.action.HttpRequestAction("GET", "http://127.0.0.1:9/v1/killed", List.of(), List.of(),
                            java.util.Optional.empty()));
            // The gateway is killed after the intent is on disk: no outcome row ever follows.
            journal.intent(((dev.postern.policy.Decision.Permit) d).permit(), "ab".repeat(32));
        }
        Run run = verify();
        assertEquals(ExitStatus.OK, run.exit, run.toString());
        assertTrue(run.out.contains("actions.jsonl: 5 rows, chain intact"), run.out);
        assertTrue(run.out.contains("actions.jsonl: 1 interrupted action (an intent row with no outcome"), run.out);
        assertTrue(run.out.contains("  seq 5 (actions.jsonl row 5)"), run.out);
    }

    @Test
    void aChainRotatedAcrossFilesIsVerifiedAsOne() throws Exception {
        try (FileAuditJournal journal = FileAuditJournal.open(dir, 4096, System.err, Gateway.journalRows())) {
            for (int i = 0; i < 40; i++) {
                journal.rejected(new dev.postern.policy.port.Rejection(dev.postern.policy.port.Stage.JSON, "PARSE_ERROR",
                        java.util.Optional.empty(), "ef".repeat(32)));
            }
        }
        Run run = verify();
        assertEquals(ExitStatus.OK, run.exit, run.toString());
        assertTrue(run.out.matches("(?s).*decisions\\.jsonl: 43 rows in [0-9]+ files \\(decisions\\.000001\\.jsonl, .*decisions\\.jsonl\\), chain intact.*"),
                run.out);
    }

    @Test
    void usageErrorsExitOneAndHelpIsPrinted() {
        assertEquals(ExitStatus.USAGE, cli("audit").exit);
        assertEquals(ExitStatus.USAGE, cli("audit", "check", dir.toString()).exit);
        assertEquals(ExitStatus.USAGE, cli("audit", "verify").exit);
        assertEquals(ExitStatus.USAGE, cli("audit", "verify", dir.toString(), "extra").exit);
        Run help = cli("audit", "verify", "--help");
        assertEquals(ExitStatus.OK, help.exit);
        assertTrue(help.out.startsWith("usage: postern audit verify DIR"), help.out);
        assertTrue(cli("--help").out.contains("audit verify DIR"));
    }
}
