package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.journal.FileAuditJournal;
import dev.postern.journal.HashChain;
import dev.postern.journal.JournalSettings;
import dev.postern.journal.SamplePermits;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.HttpResponseOutcome;
import dev.postern.policy.port.Rejection;
import dev.postern.policy.port.Stage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kinds' fields in the journal's rows, as the composition root describes them ({@link Gateway#journalRows()})
 * to the real journal: the tool and target, the rendered action but never a body, digests when arguments
 * are redacted, and each outcome's counts.
 */
class JournalRowsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String FRAME = "ab".repeat(32);

    @TempDir
    Path dir;

    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();

    private FileAuditJournal open(JournalSettings settings) throws Exception {
        return FileAuditJournal.open(dir, settings, new PrintStream(stderr, true, StandardCharsets.UTF_8), Gateway.journalRows());
    }

    private List<String> lines(String name) throws Exception {
        return Files.readAllLines(dir.resolve(name), StandardCharsets.UTF_8);
    }

    @Test
    void intentAndOutcomeRowsNameTheToolTheTargetAndTheOutcomesCounts() throws Exception {
        try (FileAuditJournal journal = open(JournalSettings.rotatingAt(1 << 20))) {
            journal.outcome(journal.intent(SamplePermits.http("/v1/items", "q", "b"), FRAME),
                    new HttpResponseOutcome("api", 201, List.of(), new byte[12], false));
            journal.outcome(journal.intent(SamplePermits.ssh("word"), FRAME), new ExecutionFailure(FailureCode.TIMEOUT, "slow"));
        }
        List<String> rows = lines(FileAuditJournal.ACTIONS);
        JsonNode intent = JSON.readTree(rows.get(0));
        assertEquals("http_request", intent.get("action").textValue());
        assertEquals("api", intent.get("target").textValue());
        JsonNode outcome = JSON.readTree(rows.get(1));
        assertEquals(201, outcome.get("status").asInt());
        assertEquals(12, outcome.get("bytes").asInt());
        assertEquals("TIMEOUT", JSON.readTree(rows.get(3)).get("result").textValue());
        assertTrue(Gateway.chainVerifier().verify(dir).intact());
    }

    @Test
    void intentRowsHoldTheRenderedActionButNeverABody() throws Exception {
        try (FileAuditJournal journal = open(JournalSettings.rotatingAt(1 << 20))) {
            journal.intent(SamplePermits.http("/v1/items", "marker-query", "marker-body"), FRAME);
            journal.intent(SamplePermits.ssh("marker-argument"), FRAME);
        }
        String actions = Files.readString(dir.resolve(FileAuditJournal.ACTIONS));
        assertFalse(actions.contains("marker-body"), actions);
        assertTrue(actions.contains("\"url\":\"http://127.0.0.1:9/v1/items?q=marker-query\""), actions);
        assertTrue(actions.contains("\"preview\":\"POST http://127.0.0.1:9/v1/items?q=marker-query\""), actions);
        assertTrue(actions.contains("\"argv\":[\"grep\",\"marker-argument\",\"/var/log/app.log\"]"), actions);
        assertTrue(actions.contains("\"command\":\"grep\""), actions);
    }

    @Test
    void withRedactedArgumentsIntentRowsKeepOnlyDigests() throws Exception {
        try (FileAuditJournal journal = open(JournalSettings.rotatingAt(1 << 20).redactingArguments(true))) {
            journal.intent(SamplePermits.http("/v1/items", "marker-query", "marker-body"), FRAME);
            journal.intent(SamplePermits.ssh("marker-argument"), FRAME);
            journal.rejected(new Rejection(Stage.POLICY, "POLICY_DENIED", Optional.of("ssh.args"), FRAME,
                    Optional.of(SamplePermits.ssh("marker-denied").action())));
        }
        String all = Files.readString(dir.resolve(FileAuditJournal.ACTIONS)) + Files.readString(dir.resolve(FileAuditJournal.DECISIONS));
        assertFalse(all.contains("marker"), all);
        List<String> rows = lines(FileAuditJournal.ACTIONS);
        assertEquals("POST http://127.0.0.1:9/v1/items", JSON.readTree(rows.get(0)).get("preview").asText());
        assertEquals(HashChain.sha256("http://127.0.0.1:9/v1/items?q=marker-query"), JSON.readTree(rows.get(0)).get("argumentsSha256").asText());
        assertEquals("grep", JSON.readTree(rows.get(1)).get("preview").asText());
        assertEquals(64, JSON.readTree(rows.get(1)).get("argumentsSha256").asText().length());
        JsonNode denial = JSON.readTree(lines(FileAuditJournal.DECISIONS).get(0));
        assertEquals("grep", denial.get("refused").asText());
        assertEquals("web", denial.get("target").asText());
        assertEquals(64, denial.get("argumentsSha256").asText().length());
    }
}
