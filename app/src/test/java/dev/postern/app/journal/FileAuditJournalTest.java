package dev.postern.app.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.app.Gateway;
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
        return FileAuditJournal.open(dir, new PrintStream(stderr, true, StandardCharsets.UTF_8), Gateway.journalRows());
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
        try (FileAuditJournal journal = FileAuditJournal.open(nested, new PrintStream(stderr, true, StandardCharsets.UTF_8), Gateway.journalRows())) {
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
    void intentAndOutcomeRowsAreChainedAndTheOutcomeNamesItsIntent() throws Exception {
        try (FileAuditJournal journal = open()) {
            long first = journal.intent(Permits.http("/v1/items", "q", "b"), FRAME);
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
        assertEquals("http_request", intent.get("action").textValue());
        assertEquals("api", intent.get("target").textValue());
        JsonNode outcome = JSON.readTree(rows.get(1));
        assertEquals("outcome", outcome.get("kind").textValue());
        assertEquals(1, outcome.get("intent").asLong());
        assertEquals(201, outcome.get("status").asInt());
        assertEquals(12, outcome.get("bytes").asInt());
        assertEquals("TIMEOUT", JSON.readTree(rows.get(3)).get("result").textValue());
        assertEquals(3, JSON.readTree(rows.get(3)).get("intent").asLong());
    }

    @Test
    void intentRowsHoldNoQueryBodyOrArgumentValues() throws Exception {
        try (FileAuditJournal journal = open()) {
            journal.intent(Permits.http("/v1/items", "marker-query", "marker-body"), FRAME);
            journal.intent(Permits.ssh("marker-argument"), FRAME);
        }
        String actions = Files.readString(dir.resolve(FileAuditJournal.ACTIONS));
        for (String marker : List.of("marker-query", "marker-body", "marker-argument")) {
            assertFalse(actions.contains(marker), marker + " reached the journal: " + actions);
        }
        assertTrue(actions.contains("\"preview\":\"POST http://127.0.0.1:9/v1/items\""), actions);
        assertTrue(actions.contains("\"preview\":\"grep\""), actions);
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
        assertTrue(Gateway.chainVerifier().verify(dir).intact());
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
}
