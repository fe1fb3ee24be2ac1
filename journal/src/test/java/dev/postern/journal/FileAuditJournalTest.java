package dev.postern.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.HttpResponseOutcome;
import dev.postern.policy.port.JournalUnavailableException;
import dev.postern.policy.port.Rejection;
import dev.postern.policy.port.Stage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The two chained journal files: seq and prev on every row, chains that survive a reopen, and rows that hold no raw input. */
class FileAuditJournalTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String FRAME = "ab".repeat(32);

    @TempDir
    Path dir;

    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();

    private FileAuditJournal open() throws Exception {
        return FileAuditJournal.open(dir, new PrintStream(stderr, true, StandardCharsets.UTF_8), TestRows.ROWS);
    }

    private List<String> lines(String name) throws Exception {
        return Files.readAllLines(dir.resolve(name), StandardCharsets.UTF_8);
    }

    private static void assertChained(List<String> lines) throws Exception {
        String prev = HashChain.GENESIS;
        for (int i = 0; i < lines.size(); i++) {
            JsonNode row = JSON.readTree(lines.get(i));
            assertEquals(i + 1, row.get("seq").asLong(), "row " + (i + 1));
            assertEquals(prev, row.get("prev").textValue(), "row " + (i + 1) + " must carry the hash of the row before it");
            prev = HashChain.sha256(lines.get(i));
        }
    }

    private static Rejection rejection(Stage stage, String reason, Optional<String> rule) {
        return new Rejection(stage, reason, rule, FRAME);
    }

    @Test
    void openingCreatesTheDirectoryAndBothFiles() throws Exception {
        Path nested = dir.resolve("a/b");
        try (FileAuditJournal journal = FileAuditJournal.open(nested, new PrintStream(stderr, true, StandardCharsets.UTF_8), TestRows.ROWS)) {
            assertTrue(Files.isRegularFile(nested.resolve(FileAuditJournal.DECISIONS)));
            assertTrue(Files.isRegularFile(nested.resolve(FileAuditJournal.ACTIONS)));
        }
    }

    @Test
    void decisionRowsAreChainedFromTheGenesisHash() throws Exception {
        try (FileAuditJournal journal = open()) {
            journal.rejected(rejection(Stage.JSON, "PARSE_ERROR", Optional.empty()));
            journal.rejected(rejection(Stage.SCHEMA, "INVALID_ARGUMENTS", Optional.empty()));
            journal.rejected(rejection(Stage.POLICY, "POLICY_DENIED", Optional.of("http.path")));
        }
        List<String> rows = lines(FileAuditJournal.DECISIONS);
        assertEquals(3, rows.size());
        assertChained(rows);
        JsonNode last = JSON.readTree(rows.get(2));
        assertEquals("policy", last.get("stage").textValue());
        assertEquals("POLICY_DENIED", last.get("reason").textValue());
        assertEquals("http.path", last.get("rule").textValue());
        assertEquals(FRAME, last.get("frame").textValue());
        assertTrue(JSON.readTree(rows.get(0)).get("rule").isNull());
    }

    @Test
    void decisionRowsHoldOnlyTheDocumentedFields() throws Exception {
        try (FileAuditJournal journal = open()) {
            journal.rejected(rejection(Stage.FRAMING, "NOT_UTF8", Optional.empty()));
        }
        JsonNode row = JSON.readTree(lines(FileAuditJournal.DECISIONS).get(0));
        Set<String> fields = new TreeSet<>();
        row.fieldNames().forEachRemaining(fields::add);
        assertEquals(new TreeSet<>(Set.of("seq", "time", "stage", "reason", "rule", "frame", "prev")), fields);
    }

    @Test
    void approvalRowsRecordTheQuestionAndTheAnswerByDigestInTheDecisionsChain() throws Exception {
        String digest = "sha256:" + "ab".repeat(32);
        String frame = "cd".repeat(32);
        try (FileAuditJournal journal = open()) {
            journal.approval(dev.postern.policy.port.ApprovalRecord.asked("http.target:api", digest,
                    dev.postern.policy.port.ApprovalRecord.Channel.CLIENT, frame));
            journal.approval(dev.postern.policy.port.ApprovalRecord.answered("http.target:api", digest,
                    dev.postern.policy.port.ApprovalRecord.Channel.CLIENT, "approval.declined", "decline", frame));
        }
        List<String> rows = lines(FileAuditJournal.DECISIONS);
        assertChained(rows);
        JsonNode asked = JSON.readTree(rows.get(0));
        JsonNode answered = JSON.readTree(rows.get(1));
        assertEquals("approval", asked.get("stage").textValue());
        assertEquals("asked", asked.get("event").textValue());
        assertEquals(digest, asked.get("digest").textValue());
        assertEquals("client", asked.get("channel").textValue());
        assertEquals(frame, asked.get("frame").textValue());
        assertEquals("answered", answered.get("event").textValue());
        assertEquals("approval.declined", answered.get("result").textValue());
        assertEquals("decline", answered.get("detail").textValue());
        Set<String> fields = new TreeSet<>();
        answered.fieldNames().forEachRemaining(fields::add);
        assertEquals(new TreeSet<>(Set.of("seq", "time", "stage", "event", "rule", "digest", "channel", "result", "detail",
                "frame", "prev")), fields);
    }

    @Test
    void intentAndOutcomeRowsAreChainedAndTheOutcomeNamesItsIntent() throws Exception {
        AuthorizedAction http = Permits.http("/v1/items", "q", "b");
        try (FileAuditJournal journal = open()) {
            long first = journal.intent(http, FRAME);
            journal.outcome(first, new HttpResponseOutcome("api", 201, List.of(), new byte[12], false));
            long second = journal.intent(Permits.ssh("word"), FRAME);
            journal.outcome(second, new ExecutionFailure(FailureCode.TIMEOUT, "slow"));
            assertEquals(1, first);
            assertEquals(3, second);
        }
        List<String> rows = lines(FileAuditJournal.ACTIONS);
        assertEquals(4, rows.size());
        assertChained(rows);
        JsonNode intent = JSON.readTree(rows.get(0));
        assertEquals("intent", intent.get("kind").textValue());
        assertEquals(http.rule(), intent.get("rule").textValue());
        assertEquals(FRAME, intent.get("frame").textValue());
        assertEquals("HttpRequestAction", intent.get("action").textValue(), "the kind's fields come from the rows it is given");
        JsonNode outcome = JSON.readTree(rows.get(1));
        assertEquals("outcome", outcome.get("kind").textValue());
        assertEquals(1, outcome.get("intent").asLong());
        assertEquals("ok", outcome.get("result").textValue());
        assertEquals("TIMEOUT", JSON.readTree(rows.get(3)).get("result").textValue());
        assertEquals(3, JSON.readTree(rows.get(3)).get("intent").asLong());
    }

    @Test
    void theRowsAreToldWhetherToRedactArgumentsAndDenialsAreDescribedByThem() throws Exception {
        try (FileAuditJournal journal = FileAuditJournal.open(dir, JournalSettings.rotatingAt(1 << 20).redactingArguments(true),
                new PrintStream(stderr, true, StandardCharsets.UTF_8), TestRows.ROWS)) {
            journal.intent(Permits.http("/v1/items", "marker-query", "marker-body"), FRAME);
            journal.rejected(new Rejection(Stage.POLICY, "POLICY_DENIED", Optional.of("ssh.args"), FRAME,
                    Optional.of(Permits.ssh("marker-denied").action())));
        }
        assertEquals("-", JSON.readTree(lines(FileAuditJournal.ACTIONS).get(0)).get("preview").asText());
        JsonNode denial = JSON.readTree(lines(FileAuditJournal.DECISIONS).get(0));
        assertEquals("SshCommandAction", denial.get("tool").asText());
        assertEquals("ssh.args", denial.get("rule").asText());
        assertEquals("POLICY_DENIED", denial.get("reason").asText());
    }

    @Test
    void reopeningContinuesBothChains() throws Exception {
        try (FileAuditJournal journal = open()) {
            journal.rejected(rejection(Stage.JSON, "PARSE_ERROR", Optional.empty()));
            journal.outcome(journal.intent(Permits.ssh("a"), FRAME), new ExecutionFailure(FailureCode.CANCELLED, "x"));
        }
        try (FileAuditJournal journal = open()) {
            journal.rejected(rejection(Stage.MCP, "UNKNOWN_TOOL", Optional.empty()));
            assertEquals(3, journal.intent(Permits.ssh("b"), FRAME));
        }
        List<String> decisions = lines(FileAuditJournal.DECISIONS);
        List<String> actions = lines(FileAuditJournal.ACTIONS);
        assertEquals(2, decisions.size());
        assertEquals(3, actions.size());
        assertChained(decisions);
        assertChained(actions);
    }

    @Test
    void concurrentWritersNeverBreakTheChain() throws Exception {
        try (FileAuditJournal journal = open()) {
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Thread thread = new Thread(() -> {
                    for (int i = 0; i < 50; i++) {
                        journal.rejected(rejection(Stage.SCHEMA, "INVALID_ARGUMENTS", Optional.empty()));
                    }
                });
                threads.add(thread);
                thread.start();
            }
            for (Thread thread : threads) {
                thread.join();
            }
        }
        List<String> rows = lines(FileAuditJournal.DECISIONS);
        assertEquals(200, rows.size());
        assertChained(rows);
    }

    @Test
    void anIntentThatCannotBeWrittenThrowsJournalUnavailable() throws Exception {
        FileAuditJournal journal = open();
        journal.close();
        JournalUnavailableException e = assertThrows(JournalUnavailableException.class,
                () -> journal.intent(Permits.ssh("a"), FRAME));
        assertTrue(e.getMessage().contains(FileAuditJournal.ACTIONS), e.getMessage());
    }

    @Test
    void aRowCutOffMidWriteIsRemovedAtStartAndTheRepairIsJournaledRatherThanFusedWithTheNextRow() throws Exception {
        try (FileAuditJournal journal = open()) {
            journal.rejected(rejection(Stage.JSON, "PARSE_ERROR", Optional.empty()));
        }
        Files.writeString(dir.resolve(FileAuditJournal.DECISIONS), "{\"seq\":2,\"ti", java.nio.file.StandardOpenOption.APPEND);
        try (FileAuditJournal journal = open()) {
            journal.rejected(rejection(Stage.MCP, "UNKNOWN_TOOL", Optional.empty()));
        }
        List<String> rows = lines(FileAuditJournal.DECISIONS);
        assertEquals(3, rows.size(), String.join("\n", rows));
        assertChained(rows);
        JsonNode repair = JSON.readTree(rows.get(1));
        assertEquals("repair", repair.get("kind").textValue());
        assertEquals(12, repair.get("removedBytes").asInt());
        assertEquals(HashChain.sha256("{\"seq\":2,\"ti"), repair.get("removedSha256").textValue());
        assertEquals("UNKNOWN_TOOL", JSON.readTree(rows.get(2)).get("reason").textValue());
        assertTrue(TestRows.verifier().verify(dir).intact());
    }

    @Test
    void aLastRowThatNoLongerChainsToTheRowBeforeItStopsStartUpNamingTheFileAndRow() throws Exception {
        try (FileAuditJournal journal = open()) {
            journal.outcome(journal.intent(Permits.ssh("a"), FRAME), new ExecutionFailure(FailureCode.CANCELLED, "x"));
        }
        Path actions = dir.resolve(FileAuditJournal.ACTIONS);
        Files.writeString(actions, Files.readString(actions).replaceFirst("\"rule\":\"", "\"rule\":\"x"));
        java.io.IOException e = assertThrows(java.io.IOException.class, this::open);
        assertTrue(e.getMessage().contains(actions.toString()) && e.getMessage().contains("seq 2")
                && e.getMessage().contains("does not chain to the row before it"), e.getMessage());
    }

    @Test
    void aJournalPathThatIsNotARegularFileIsRefused() throws Exception {
        Files.createSymbolicLink(dir.resolve(FileAuditJournal.ACTIONS), Path.of("/dev/null"));
        java.io.IOException e = assertThrows(java.io.IOException.class, this::open);
        assertTrue(e.getMessage().contains(FileAuditJournal.ACTIONS + " is not a regular file"), e.getMessage());
    }

    @Test
    void aSessionThatWroteNothingButItsEndLeavesNoRowsAsADiscoveryProbeDoes() throws Exception {
        SessionFacts facts = SessionFacts.of(dir.resolve("postern.json"), "a".repeat(64), "9.9.9");
        try (FileAuditJournal journal = FileAuditJournal.open(dir, JournalSettings.rotatingAt(1 << 20).withSession(facts),
                new PrintStream(stderr, true, StandardCharsets.UTF_8), TestRows.ROWS)) {
            journal.sessionEnded("OK");
        }
        assertEquals(List.of(), lines(FileAuditJournal.ACTIONS), "no empty start and end pair");
        try (FileAuditJournal journal = FileAuditJournal.open(dir, JournalSettings.rotatingAt(1 << 20).withSession(facts),
                new PrintStream(stderr, true, StandardCharsets.UTF_8), TestRows.ROWS)) {
            journal.rejected(rejection(Stage.POLICY, "POLICY_DENIED", Optional.of("http.path")));
        }
        assertEquals(List.of("start", "end"), lines(FileAuditJournal.ACTIONS).stream().map(l -> {
            try {
                return JSON.readTree(l).get("event").asText();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }).toList(), "a session that journaled a denial is on record");
    }

    @Test
    void aSessionStartsAndEndsOnRecordAndEveryRowOfBothJournalsCarriesItsId() throws Exception {
        SessionFacts facts = SessionFacts.of(dir.resolve("postern.json"), "a".repeat(64), "9.9.9");
        try (FileAuditJournal journal = FileAuditJournal.open(dir, JournalSettings.rotatingAt(1 << 20).withSession(facts),
                new PrintStream(stderr, true, StandardCharsets.UTF_8), TestRows.ROWS)) {
            journal.sessionClient("claude-code", "2.1.0", "handshake", "2025-11-25");
            journal.sessionClient("again", "1", "stateless", "2026-07-28");
            journal.outcome(journal.intent(Permits.ssh("w"), FRAME), new ExecutionFailure(FailureCode.TIMEOUT, "slow"));
            journal.rejected(rejection(Stage.POLICY, "POLICY_DENIED", Optional.of("http.path")));
            journal.sessionEnded("OK");
        }
        List<JsonNode> actions = new ArrayList<>();
        for (String line : lines(FileAuditJournal.ACTIONS)) {
            actions.add(JSON.readTree(line));
        }
        assertEquals(List.of("session", "session", "intent", "outcome", "session"), actions.stream().map(r -> r.get("kind").asText()).toList(),
                "one client row however often the client is reported, one end row though close also ends the session");
        JsonNode start = actions.get(0);
        assertEquals("start", start.get("event").asText());
        assertEquals(ProcessHandle.current().pid(), start.get("pid").asLong());
        assertEquals(dir.resolve("postern.json").toString(), start.get("config").asText());
        assertEquals("a".repeat(64), start.get("configSha256").asText());
        assertEquals("9.9.9", start.get("postern").asText());
        assertEquals("claude-code", actions.get(1).get("client").asText());
        assertEquals("2025-11-25", actions.get(1).get("protocolVersion").asText());
        assertEquals("OK", actions.get(4).get("exit").asText());
        for (JsonNode row : actions) {
            assertEquals(facts.id(), row.get("session").asText(), row.toString());
        }
        assertEquals(facts.id(), JSON.readTree(lines(FileAuditJournal.DECISIONS).get(0)).get("session").asText());
        assertTrue(TestRows.verifier().verify(dir).intact());
    }

    @Test
    void twoSessionsHaveDifferentIds() {
        assertFalse(SessionFacts.of(dir, "b".repeat(64), "1").id().equals(SessionFacts.of(dir, "b".repeat(64), "1").id()));
    }

    @Test
    void everyStringOfEveryRowIsMaskedWithTheCredentialsOfTheMoment() throws Exception {
        java.util.concurrent.atomic.AtomicReference<String> secret = new java.util.concurrent.atomic.AtomicReference<>("s3cret-one");
        JournalSettings settings = JournalSettings.rotatingAt(1 << 20)
                .masking(() -> new dev.postern.policy.port.SecretMask(List.of(secret.get().getBytes(StandardCharsets.UTF_8))));
        try (FileAuditJournal journal = FileAuditJournal.open(dir, settings, new PrintStream(stderr, true, StandardCharsets.UTF_8),
                TestRows.ROWS)) {
            journal.rejected(rejection(Stage.POLICY, "POLICY_DENIED", Optional.of("x.s3cret-one.y")));
            secret.set("s3cret-two");
            journal.rejected(rejection(Stage.POLICY, "POLICY_DENIED", Optional.of("s3cret-two and s3cret-one")));
        }
        List<String> rows = lines(FileAuditJournal.DECISIONS);
        assertEquals("x.****.y", JSON.readTree(rows.get(0)).get("rule").asText());
        assertEquals("**** and s3cret-one", JSON.readTree(rows.get(1)).get("rule").asText(), "the mask is asked for each row");
        assertChained(rows);
    }

    @Test
    void aRefusedCallKeepsTheToolTheClientNamedAndThePointerThatFailedNeverAValue() throws Exception {
        try (FileAuditJournal journal = open()) {
            journal.rejected(new Rejection(Stage.SCHEMA, "INVALID_ARGUMENTS", Optional.empty(), FRAME)
                    .ofTool("shop__order_by_id", Optional.of("/arguments/id")));
            journal.rejected(new Rejection(Stage.MCP, "UNKNOWN_TOOL", Optional.empty(), FRAME).ofTool("no_such_tool", Optional.empty()));
        }
        List<String> rows = lines(FileAuditJournal.DECISIONS);
        JsonNode bound = JSON.readTree(rows.get(0));
        assertEquals("shop__order_by_id", bound.get("tool").textValue());
        assertEquals("/arguments/id", bound.get("pointer").textValue());
        JsonNode unknown = JSON.readTree(rows.get(1));
        assertEquals("no_such_tool", unknown.get("tool").textValue());
        assertFalse(unknown.has("pointer"), unknown.toString());
    }

    @Test
    void anIntentKeepsTheToolItWasCalledByWhenATypedToolStandsForIt() throws Exception {
        try (FileAuditJournal journal = open()) {
            journal.intent(Permits.ssh("typed"), FRAME, Optional.of("ops__restart_web"));
            journal.intent(Permits.ssh("plain"), FRAME);
        }
        List<String> rows = lines(FileAuditJournal.ACTIONS);
        assertEquals("ops__restart_web", JSON.readTree(rows.get(0)).get("tool").textValue());
        assertFalse(JSON.readTree(rows.get(1)).has("tool"), rows.get(1));
    }

    @Test
    void aJournalThatCannotBeClosedCleanlySaysSoOnStderrAndClosesTheOtherFile() throws Exception {
        CheckpointSigner signer = new CheckpointSigner(
                java.security.KeyPairGenerator.getInstance("Ed25519").generateKeyPair().getPrivate(), 100);
        FileAuditJournal journal = FileAuditJournal.open(dir, JournalSettings.rotatingAt(1 << 20).withSigner(Optional.of(signer)),
                new PrintStream(stderr, true, StandardCharsets.UTF_8), TestRows.ROWS);
        journal.rejected(rejection(Stage.JSON, "PARSE_ERROR", Optional.empty()));
        journal.intent(Permits.ssh("a"), FRAME);
        // Its checkpoint at close needs the file private; made writable by others, it cannot be signed.
        Files.setPosixFilePermissions(dir.resolve(FileAuditJournal.DECISIONS), java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw----"));
        journal.close();
        String said = stderr.toString(StandardCharsets.UTF_8);
        assertTrue(said.contains("postern: could not close " + dir.resolve(FileAuditJournal.DECISIONS) + ": "), said);
        assertTrue(said.contains("writable by group or others"), said);
        List<String> actions = lines(FileAuditJournal.ACTIONS);
        assertEquals(Checkpoints.KIND, JSON.readTree(actions.get(actions.size() - 1)).get("kind").asText(),
                "the actions file was still closed with its checkpoint");
    }
}
