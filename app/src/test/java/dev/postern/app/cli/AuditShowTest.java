package dev.postern.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.postern.app.ExitStatus;
import dev.postern.app.Gateway;
import dev.postern.journal.FileAuditJournal;
import dev.postern.journal.SamplePermits;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.HttpResponseOutcome;
import dev.postern.policy.outcome.SshExitOutcome;
import dev.postern.policy.port.ApprovalRecord;
import dev.postern.policy.port.Rejection;
import dev.postern.policy.port.Stage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code postern audit show}: intents joined with their outcomes, interrupted ones marked, denials
 * interleaved by time, over rotated files and several writers; the filters, JSON lines, and
 * {@code --follow} across rotation.
 */
class AuditShowTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String FRAME = "ef".repeat(32);

    @TempDir
    Path dir;

    private FileAuditJournal open(long rotateBytes) throws Exception {
        return FileAuditJournal.open(dir, rotateBytes, new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8),
                Gateway.journalRows());
    }

    private static HttpResponseOutcome ok(int status) {
        return new HttpResponseOutcome("api", status, List.of(), new byte[3], false);
    }

    private static SshExitOutcome exit(int status) {
        return new SshExitOutcome("web", OptionalInt.of(status), Optional.empty(), new byte[0], false, new byte[0], false, "SHA256:" + "A".repeat(43));
    }

    private static Rejection denial(String rule) {
        return new Rejection(Stage.POLICY, "POLICY_DENIED", Optional.of(rule), FRAME);
    }

    /** An HTTP call that returned 200, a denial, an SSH call that exited 2, an SSH call that never ended, a TIMEOUT. */
    private void writeADay() throws Exception {
        try (FileAuditJournal journal = open(FileAuditJournal.DEFAULT_ROTATE_BYTES)) {
            journal.outcome(journal.intent(SamplePermits.http("/v1/items"), FRAME), ok(200));
            journal.rejected(denial("http.path"));
            journal.outcome(journal.intent(SamplePermits.ssh("error"), FRAME), exit(2));
            journal.intent(SamplePermits.ssh("killed"), FRAME);
            journal.outcome(journal.intent(SamplePermits.http("/v1/slow"), FRAME), new ExecutionFailure(FailureCode.TIMEOUT, "slow")
                    .withDetail("dialing 127.0.0.1:9: SocketTimeoutException: Read timed out"));
        }
    }

    private static List<String> body(CliRun run) {
        List<String> lines = run.out().lines().toList();
        assertTrue(lines.get(0).startsWith("TIME (UTC)"), run.toString());
        return lines.subList(1, lines.size());
    }

    @Test
    void eachIntentIsJoinedWithItsOutcomeAndDenialsAreInterleavedByTime() throws Exception {
        writeADay();

        CliRun run = CliRun.of("audit", "show", dir.toString());

        assertEquals(ExitStatus.OK, run.exit, run.toString());
        List<String> rows = body(run);
        assertEquals(5, rows.size(), run.out());
        assertTrue(rows.get(0).matches(".*http_request +api +ok 200 +POST http://127.0.0.1:9/v1/items\\?q=q"), rows.get(0));
        assertTrue(rows.get(1).matches(".*- +- +denied +rule http.path"), rows.get(1));
        assertTrue(rows.get(2).matches(".*ssh_exec +web +ok exit 2 +'grep' 'error' '/var/log/app.log'"), rows.get(2));
        assertTrue(rows.get(3).matches(".*ssh_exec +web +interrupted +'grep' 'killed' '/var/log/app.log'"), rows.get(3));
        assertTrue(rows.get(4).matches(".*http_request +api +TIMEOUT +POST http://127.0.0.1:9/v1/slow\\?q=q"
                + " — slow \\| dialing 127.0.0.1:9: SocketTimeoutException: Read timed out"), "the operator sees the detail: " + rows.get(4));
        assertEquals("", run.err());
    }

    @Test
    void theConfigNamesTheJournalForShowAndVerifyWhenNoDirectoryIsGiven() throws Exception {
        writeADay();
        Path config = Files.createDirectories(dir.resolve("cfg")).resolve("postern.json");
        Files.writeString(config, "{ \"journal\": { \"directory\": \"" + dir + "\" } }");

        CliRun shown = CliRun.of("audit", "show", "--config", config.toString());
        assertEquals(ExitStatus.OK, shown.exit, shown.toString());
        assertEquals(body(CliRun.of("audit", "show", dir.toString())), body(shown), "the config's journal.directory is the DIR");
        CliRun verified = CliRun.of("audit", "verify", "--config=" + config);
        assertEquals(ExitStatus.OK, verified.exit, verified.toString());
        assertTrue(verified.out().contains("chain intact"), verified.toString());
    }

    @Test
    void aDirectoryAndAConfigTogetherAreAUsageErrorAndAnInvalidConfigIsAConfigError() throws Exception {
        Path config = dir.resolve("postern.json");
        Files.writeString(config, "{ \"journal\": { \"directory\": \"j\" }, \"sesion\": {} }");

        CliRun both = CliRun.of("audit", "show", dir.toString(), "--config", config.toString());
        assertEquals(ExitStatus.USAGE, both.exit, both.toString());
        assertTrue(both.err().contains("not both"), both.err());
        CliRun invalid = CliRun.of("audit", "verify", "--config", config.toString());
        assertEquals(ExitStatus.CONFIG_ERROR, invalid.exit, invalid.toString());
        assertTrue(invalid.err().contains("sesion"), invalid.err());
    }

    @Test
    void anApprovalGivenOnThePageOrInTheTerminalShowsItsChannel() throws Exception {
        String digest = "sha256:" + "cd".repeat(32);
        try (FileAuditJournal journal = open(FileAuditJournal.DEFAULT_ROTATE_BYTES)) {
            journal.approval(ApprovalRecord.asked("ssh.command:web.restart", digest, ApprovalRecord.Channel.LOCAL, FRAME));
            journal.approval(ApprovalRecord.answered("ssh.command:web.restart", digest, ApprovalRecord.Channel.PAGE, "approved",
                    "approved", FRAME));
            journal.approval(ApprovalRecord.answered("ssh.command:web.restart", digest, ApprovalRecord.Channel.TERMINAL,
                    "approval.declined", "denied", FRAME));
        }
        List<String> rows = body(CliRun.of("audit", "show", dir.toString()));
        assertEquals(3, rows.size(), rows.toString());
        assertTrue(rows.get(0).contains("via local"), rows.get(0));
        assertTrue(rows.get(1).matches(".* approved +rule ssh.command:web.restart via page, action " + digest + ".*"), rows.get(1));
        assertTrue(rows.get(2).contains("via terminal"), rows.get(2));
        CliRun json = CliRun.of("audit", "show", dir.toString(), "--json");
        assertTrue(json.out().contains("\"channel\":\"page\"") && json.out().contains("\"channel\":\"terminal\""), json.out());
    }

    @Test
    void approvalStepsReadAsAskedApprovedOrDeniedAndOnlyARefusalCountsAsADenial() throws Exception {
        String digest = "sha256:" + "ab".repeat(32);
        try (FileAuditJournal journal = open(FileAuditJournal.DEFAULT_ROTATE_BYTES)) {
            journal.approval(ApprovalRecord.asked("http.confirm", digest, ApprovalRecord.Channel.CLIENT, FRAME));
            journal.approval(ApprovalRecord.answered("http.confirm", digest, ApprovalRecord.Channel.CLIENT, "approved",
                    "the human approved", FRAME));
            journal.approval(ApprovalRecord.answered("http.confirm", digest, ApprovalRecord.Channel.CLIENT, "approval.denied",
                    "the human declined", FRAME));
        }
        List<String> rows = body(CliRun.of("audit", "show", dir.toString()));
        assertEquals(3, rows.size(), rows.toString());
        assertTrue(rows.get(0).matches(".* approval asked +rule http.confirm via client, action " + digest), rows.get(0));
        assertTrue(rows.get(1).matches(".* approved +rule http.confirm via client, action " + digest + ": the human approved"),
                rows.get(1));
        assertTrue(rows.get(2).matches(".* denied approval.denied +rule http.confirm .*: the human declined"), rows.get(2));
        assertFalse(String.join("\n", rows).contains("rejected"), "an approval step is no rejection: " + rows);
        List<String> denied = body(CliRun.of("audit", "show", dir.toString(), "--denied"));
        assertEquals(1, denied.size(), "only the refusal is a denial: " + denied);
        assertTrue(denied.get(0).contains("approval.denied"), denied.get(0));
    }

    @Test
    void everyFailureCodeIsShownWholeInTheResultColumn() throws Exception {
        try (FileAuditJournal journal = open(FileAuditJournal.DEFAULT_ROTATE_BYTES)) {
            for (FailureCode code : FailureCode.values()) {
                journal.outcome(journal.intent(SamplePermits.http("/v1/" + code.name().toLowerCase(java.util.Locale.ROOT)), FRAME),
                        new ExecutionFailure(code, "it failed"));
            }
        }
        List<String> rows = body(CliRun.of("audit", "show", dir.toString()));
        assertEquals(FailureCode.values().length, rows.size());
        for (int i = 0; i < rows.size(); i++) {
            String code = FailureCode.values()[i].name();
            assertTrue(rows.get(i).contains(" " + code + " "), "not cut: " + code + " in " + rows.get(i));
        }
    }

    @Test
    void filtersSelectByToolTargetDenialAndTime() throws Exception {
        writeADay();

        assertEquals(2, body(CliRun.of("audit", "show", dir.toString(), "--tool", "http_request")).size());
        assertEquals(2, body(CliRun.of("audit", "show", dir.toString(), "--target", "web", "--tool", "ssh_exec")).size());
        assertEquals(0, body(CliRun.of("audit", "show", dir.toString(), "--target", "web", "--tool", "http_request")).size());
        List<String> denied = body(CliRun.of("audit", "show", dir.toString(), "--denied"));
        assertEquals(1, denied.size());
        assertTrue(denied.get(0).contains("denied"), denied.toString());
        assertEquals(0, body(CliRun.of("audit", "show", dir.toString(), "--since", Instant.now().plusSeconds(60).toString())).size());
        assertEquals(5, body(CliRun.of("audit", "show", dir.toString(), "--since", "24h")).size());
        String today = Instant.now().atZone(ZoneOffset.UTC).toLocalDate().toString();
        assertEquals(5, body(CliRun.of("audit", "show", dir.toString(), "--since", today)).size());
        assertEquals(0, body(CliRun.of("audit", "show", dir.toString(), "--until", today)).size());
    }

    @Test
    void aTargetsHttpDenialsAreFoundByItsNameThroughTheConfig() throws Exception {
        try (FileAuditJournal journal = open(FileAuditJournal.DEFAULT_ROTATE_BYTES)) {
            journal.outcome(journal.intent(SamplePermits.http("/v1/items"), FRAME), ok(200));
            journal.rejected(new Rejection(Stage.POLICY, "POLICY_DENIED", Optional.of("http.path"), FRAME,
                    Optional.of(new dev.postern.policy.action.HttpRequestAction("GET", "http://127.0.0.1:9/admin", List.of(), List.of(),
                            Optional.empty()))));
            journal.rejected(new Rejection(Stage.POLICY, "POLICY_DENIED", Optional.of("http.target"), FRAME,
                    Optional.of(new dev.postern.policy.action.HttpRequestAction("GET", "http://elsewhere.example/", List.of(), List.of(),
                            Optional.empty()))));
        }
        Path config = Files.createDirectories(dir.resolve("cfg")).resolve("postern.json");
        Files.writeString(config, "{ \"journal\": { \"directory\": \"" + dir + "\" }, \"http\": { \"targets\": [ { \"name\": \"api\","
                + " \"baseUrl\": \"http://127.0.0.1:9\", \"methods\": [\"POST\"], \"pathPrefixes\": [\"/v1\"],"
                + " \"allowPrivateAddresses\": true } ] } }");

        CliRun run = CliRun.of("audit", "show", "--config", config.toString(), "--target", "api");

        assertEquals(ExitStatus.OK, run.exit, run.toString());
        List<String> rows = body(run);
        assertEquals(2, rows.size(), run.toString());
        assertTrue(rows.get(1).contains("denied") && rows.get(1).contains("GET http://127.0.0.1:9/admin"), run.toString());
        assertEquals(1, body(CliRun.of("audit", "show", dir.toString(), "--target", "api")).size(),
                "without the config a denial's host is all there is to match");
    }

    @Test
    void relativeTimesCountBackFromTheClock() throws Exception {
        writeADay();
        Clock tomorrow = Clock.fixed(Instant.now().plus(Duration.ofDays(1)), ZoneOffset.UTC);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Io io = new Io(out, new ByteArrayInputStream(new byte[0]), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));

        assertEquals(ExitStatus.OK, new AuditShowCommand(tomorrow, () -> true, Duration.ofMillis(10)).run(List.of(dir.toString(), "--since", "1h"), io));
        assertEquals(1, out.toString(StandardCharsets.UTF_8).lines().count(), "only the header: nothing in the last hour before tomorrow");
    }

    @Test
    void jsonPrintsOneJoinedObjectPerLine() throws Exception {
        writeADay();

        CliRun run = CliRun.of("audit", "show", dir.toString(), "--json");

        assertEquals(ExitStatus.OK, run.exit, run.toString());
        List<JsonNode> lines = new ArrayList<>();
        for (String line : run.out().lines().toList()) {
            lines.add(JSON.readTree(line));
        }
        assertEquals(List.of("action", "decision", "action", "action", "action"), lines.stream().map(l -> l.get("type").asText()).toList());
        JsonNode first = lines.get(0);
        assertEquals("done", first.get("status").asText());
        assertEquals(1, first.get("seq").asLong());
        assertEquals("actions.jsonl", first.get("file").asText());
        assertEquals(1, first.get("outcome").get("intent").asLong());
        assertEquals(200, first.get("outcome").get("status").asInt());
        assertFalse(first.get("intent").has("prev"), "the chain hash is verify's business");
        assertEquals("interrupted", lines.get(3).get("status").asText());
        assertTrue(lines.get(3).get("outcome").isNull());
        assertEquals("http.path", lines.get(1).get("row").get("rule").asText());
    }

    @Test
    void rowsOfSeveralWritersAcrossRotatedFilesAreAllJoined() throws Exception {
        int perWriter = 60;
        try (FileAuditJournal a = open(4096); FileAuditJournal b = open(4096)) {
            List<CompletableFuture<Void>> writers = new ArrayList<>();
            for (FileAuditJournal j : List.of(a, b)) {
                writers.add(CompletableFuture.runAsync(() -> {
                    for (int i = 0; i < perWriter; i++) {
                        try {
                            long seq = j.intent(SamplePermits.ssh("w" + i), FRAME);
                            if (i % 10 == 0) {
                                j.rejected(denial("ssh.args.pattern"));
                            }
                            j.outcome(seq, exit(0));
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }
                }));
            }
            for (CompletableFuture<Void> w : writers) {
                w.get(60, TimeUnit.SECONDS);
            }
        }
        try (var files = Files.list(dir)) {
            assertTrue(files.filter(p -> p.getFileName().toString().matches("actions\\.[0-9]{6}\\.jsonl")).count() > 2, "the files rotated");
        }

        CliRun run = CliRun.of("audit", "show", dir.toString(), "--json");

        List<JsonNode> lines = new ArrayList<>();
        for (String line : run.out().lines().toList()) {
            lines.add(JSON.readTree(line));
        }
        assertEquals(2 * perWriter, lines.stream().filter(l -> l.get("type").asText().equals("action")
                && l.get("status").asText().equals("done")).count(), run.err());
        assertEquals(2 * perWriter / 10, lines.stream().filter(l -> l.get("type").asText().equals("decision")).count());
        for (int i = 1; i < lines.size(); i++) {
            assertFalse(Instant.parse(lines.get(i).get("time").asText()).isBefore(Instant.parse(lines.get(i - 1).get("time").asText())),
                    "time order at line " + i);
        }
    }

    @Test
    void followPrintsNewRowsAcrossRotationAndAnActionAgainWhenItEnds() throws Exception {
        try (FileAuditJournal journal = open(4096)) {
            journal.outcome(journal.intent(SamplePermits.http("/v1/before"), FRAME), ok(200));
            AtomicBoolean stop = new AtomicBoolean();
            PipedLines out = new PipedLines();
            Io io = new Io(out, new ByteArrayInputStream(new byte[0]), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
            CompletableFuture<ExitStatus> follow = CompletableFuture.supplyAsync(
                    () -> new AuditShowCommand(Clock.systemUTC(), stop::get, Duration.ofMillis(20)).run(List.of(dir.toString(), "--follow", "--json"), io));
            out.await(1);

            long pending = journal.intent(SamplePermits.ssh("long"), FRAME);
            out.await(2);
            for (int i = 0; i < 40; i++) {
                journal.outcome(journal.intent(SamplePermits.http("/v1/during/" + i), FRAME), ok(201));
            }
            journal.rejected(denial("http.method"));
            journal.outcome(pending, exit(0));
            out.await(2 + 40 * 2 + 1 + 1);
            stop.set(true);
            assertEquals(ExitStatus.OK, follow.get(30, TimeUnit.SECONDS));

            List<JsonNode> lines = out.json();
            assertEquals(2 + 80 + 1 + 1, lines.size(), out.text());
            assertEquals("done", lines.get(0).get("status").asText());
            assertEquals("running", lines.get(1).get("status").asText());
            // The decisions and actions journals are written by separate writers, so the denial may be
            // printed before or after the long call's end: find the long call's lines, not the last line.
            List<JsonNode> longCall = lines.stream()
                    .filter(l -> l.get("type").asText().equals("action") && l.get("seq").asLong() == pending).toList();
            assertEquals(List.of("running", "done"), longCall.stream().map(l -> l.get("status").asText()).toList(),
                    "the long call is printed running, and again when it ends: " + out.text());
            assertEquals(1, lines.stream().filter(l -> l.get("type").asText().equals("decision")).count());
        }
        try (var files = Files.list(dir)) {
            assertTrue(files.anyMatch(p -> p.getFileName().toString().matches("actions\\.[0-9]{6}\\.jsonl")), "the file rotated under --follow");
        }
    }

    @Test
    void controlCharactersInARowNeverReachTheTerminal() throws Exception {
        Files.writeString(dir.resolve("actions.jsonl"), "{\"seq\":1,\"time\":\"2026-12-01T00:00:00Z\",\"kind\":\"intent\",\"action\":\"ssh_exec\","
                + "\"target\":\"web\\u001b]0;owned\\u0007\",\"preview\":\"ls\\u001b[2J\\r\\nfake row\",\"prev\":\"" + "0".repeat(64) + "\"}\n");

        CliRun run = CliRun.of("audit", "show", dir.toString());

        assertEquals(ExitStatus.OK, run.exit, run.toString());
        assertFalse(run.out().chars().anyMatch(c -> c == 0x1b || c == 0x07 || c == '\r'), run.out());
        assertEquals(2, run.out().lines().count(), "one header and one row, not a forged second row: " + run.out());
        assertTrue(run.out().contains("ls?[2J??fake row"), run.out());
    }

    @Test
    void aJournalDirectoryThatDoesNotExistIsNoJournalHereWithOrWithoutFollow() {
        Path absent = dir.resolve("absent");
        for (List<String> extra : List.of(List.<String>of(), List.of("--follow"))) {
            List<String> args = new java.util.ArrayList<>(List.of("audit", "show", absent.toString()));
            args.addAll(extra);
            CliRun run = CliRun.of(args.toArray(String[]::new));
            assertEquals(ExitStatus.CHECK_FAILED, run.exit, run.toString());
            assertEquals("postern audit show: no journal here: " + absent + " does not exist\n", run.err(), run.toString());
            assertEquals("", run.out());
        }
    }

    @Test
    void anEmptyJournalDirectoryArgumentIsAUsageErrorNotTheCurrentDirectory() {
        for (String subcommand : List.of("show", "verify")) {
            for (String empty : List.of("", " ")) {
                CliRun run = CliRun.of("audit", subcommand, empty);
                assertEquals(ExitStatus.USAGE, run.exit, run.toString());
                assertTrue(run.err().startsWith("postern audit: the journal directory is an empty argument (an unset variable?)")
                        || run.err().startsWith("postern audit " + subcommand + ": the journal directory is an empty argument"), run.err());
                assertEquals("", run.out());
            }
        }
    }

    @Test
    void aJournalFileGivenForItsDirectoryIsAUsageError() throws Exception {
        writeADay();
        Path file = dir.resolve("actions.jsonl");
        CliRun run = CliRun.of("audit", "show", file.toString());
        assertEquals(ExitStatus.USAGE, run.exit, run.toString());
        assertTrue(run.err().startsWith("postern audit show: " + file + " is not a directory"), run.err());
    }

    @Test
    void aDirectoryWithoutJournalsAndBadTimesAreRefused() throws Exception {
        CliRun none = CliRun.of("audit", "show", dir.toString());
        assertEquals(ExitStatus.CHECK_FAILED, none.exit, none.toString());
        assertTrue(none.err().contains("no journal here"), none.err());

        writeADay();
        CliRun bad = CliRun.of("audit", "show", dir.toString(), "--since", "yesterday");
        assertEquals(ExitStatus.USAGE, bad.exit, bad.toString());
        assertTrue(bad.err().contains("--since takes an ISO-8601 instant"), bad.err());
        CliRun help = CliRun.of("audit", "show", "--help");
        assertEquals(ExitStatus.OK, help.exit);
        assertTrue(help.out().startsWith("usage: postern audit show DIR"), help.out());
    }

    /** An output stream a test can wait on, line by line. */
    private static final class PipedLines extends OutputStream {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        @Override
        public synchronized void write(int b) {
            bytes.write(b);
            notifyAll();
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            bytes.write(b, off, len);
            notifyAll();
        }

        synchronized String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }

        synchronized void await(long lines) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (text().lines().count() < lines) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("waited for " + lines + " lines, have:\n" + text());
                }
                wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            }
        }

        List<JsonNode> json() throws Exception {
            List<JsonNode> out = new ArrayList<>();
            for (String line : text().lines().toList()) {
                out.add(JSON.readTree(line));
            }
            return out;
        }
    }
}
