package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.postern.journal.FileAuditJournal;
import dev.postern.fixtures.RecordingExecutor;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.AuthorizedHttpRequest;
import dev.postern.policy.Decision;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.outcome.HttpResponseOutcome;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.Cancellation;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The use case in order — decide, intent row, dispatch, outcome row, answer — and explain's dry run stopping after the decision. */
class ToolCallServiceTest {
    private static final String FRAME = "f".repeat(64);

    @TempDir
    Path dir;

    private final RecordingExecutor<AuthorizedHttpRequest> http = RecordingExecutor.http();
    private final PolicyEngine engine = new PolicyEngine(SessionHarness.policy());

    private static HttpRequestAction get(String path) {
        return new HttpRequestAction("GET", "http://127.0.0.1:9" + path, List.of(), List.of(), Optional.empty());
    }

    /** Renders the end of a call as a word, so a test sees which arm ran. */
    private static final ToolCallService.Answers<String> WORDS = new ToolCallService.Answers<>() {
        @Override
        public String denied(Decision.Deny deny) {
            return "denied " + deny.rule();
        }

        @Override
        public String executed(Outcome outcome) {
            return "executed " + assertInstanceOf(HttpResponseOutcome.class, outcome).status();
        }

        @Override
        public void fatal(VirtualMachineError error) {
            throw new AssertionError("no executor here fails fatally", error);
        }

        @Override
        public String inputRequired(com.fasterxml.jackson.databind.node.ObjectNode inputRequests, String requestState) {
            throw new AssertionError("no rule here needs approval");
        }

        @Override
        public String missingCapability(com.fasterxml.jackson.databind.node.ObjectNode requiredCapabilities) {
            throw new AssertionError("no rule here needs approval");
        }
    };

    @Test
    void aPermittedCallIsJournaledBeforeAndAfterItsOneExecution() throws Exception {
        PrintStream diagnostics = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        try (FileAuditJournal journal = FileAuditJournal.open(dir, diagnostics, Gateway.journalRows());
                Dispatcher dispatcher = new Dispatcher(List.of(http))) {
            ToolCallService service = ToolCallService.executing(engine, journal, dispatcher, diagnostics);

            assertEquals("executed 200", service.call(get("/v1/items"), FRAME, new Cancellation(), WORDS));
        }

        assertEquals(1, http.count());
        List<String> rows = Files.readAllLines(dir.resolve(FileAuditJournal.ACTIONS));
        assertEquals(2, rows.size(), rows::toString);
        JsonNode intent = JsonMapper.builder().build().readTree(rows.get(0));
        JsonNode outcome = JsonMapper.builder().build().readTree(rows.get(1));
        assertEquals("intent", intent.get("kind").textValue());
        assertEquals("http_request", intent.get("action").textValue());
        assertEquals("outcome", outcome.get("kind").textValue());
        assertEquals(200, outcome.get("status").intValue());
    }

    @Test
    void aDeniedCallIsJournaledAsADecisionAndReachesNoExecutor() throws Exception {
        PrintStream diagnostics = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        try (FileAuditJournal journal = FileAuditJournal.open(dir, diagnostics, Gateway.journalRows());
                Dispatcher dispatcher = new Dispatcher(List.of(http))) {
            ToolCallService service = ToolCallService.executing(engine, journal, dispatcher, diagnostics);

            assertTrue(service.call(get("/admin"), FRAME, new Cancellation(), WORDS).startsWith("denied http."));
        }

        http.assertNoAttempts();
        assertEquals(List.of(), Files.readAllLines(dir.resolve(FileAuditJournal.ACTIONS)));
        assertEquals(1, Files.readAllLines(dir.resolve(FileAuditJournal.DECISIONS)).size());
    }

    @Test
    void theDryRunStopsAtThePermitAndCannotExecute() {
        ToolCallService explainer = ToolCallService.explaining(engine);

        AuthorizedAction permit = explainer.dryRun(get("/v1/items"), new ToolCallService.DryAnswers<AuthorizedAction>() {
            @Override
            public AuthorizedAction denied(Decision.Deny deny) {
                throw new AssertionError("denied: " + deny);
            }

            @Override
            public AuthorizedAction permitted(AuthorizedAction p) {
                return p;
            }

            @Override
            public AuthorizedAction approvalRequired(dev.postern.policy.PendingApproval pending) {
                throw new AssertionError("no rule here needs approval");
            }
        });

        assertInstanceOf(AuthorizedHttpRequest.class, permit);
        assertThrows(IllegalStateException.class, () -> explainer.call(get("/v1/items"), FRAME, new Cancellation(), WORDS));
        http.assertNoAttempts();
    }
}
