package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.AuthorizedHttpRequest;
import dev.postern.policy.Decision;
import dev.postern.policy.PendingApproval;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Origin;
import dev.postern.policy.model.Policy;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.ApprovalRecord;
import dev.postern.policy.port.AuditJournal;
import dev.postern.policy.port.Cancellation;
import dev.postern.policy.port.Rejection;
import dev.postern.protocol.approval.ApprovalRoute;
import dev.postern.protocol.approval.RequestStateCodec;
import dev.postern.protocol.mcp.ServerRequests;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The approval step in both eras with scripted answers: only an explicit accept of exactly this
 * action yields a permit; everything else is a final approval.* denial, and each question and answer
 * is journaled.
 */
class ApprovalsTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String FRAME = "0".repeat(64);
    private static final HttpTarget API = new HttpTarget("api", Origin.parseBaseUrl("https://api.example.com"),
            Set.of("GET", "POST"), List.of("/"), Set.of(), Optional.empty(), Duration.ofSeconds(5), 1024, false)
            .withConfirm(Set.of("POST"));
    private static final PolicyEngine ENGINE = new PolicyEngine(Policy.of(List.of(API), List.of()));

    private final Journal journal = new Journal();
    private final Approvals approvals = new Approvals(RequestStateCodec.withFreshKey(Duration.ofSeconds(60)),
            Duration.ofSeconds(60), journal);

    private static PendingApproval pending(String body) {
        Decision d = ENGINE.decide(new HttpRequestAction("POST", "https://api.example.com/orders", List.of(), List.of(),
                Optional.of(body)));
        return assertInstanceOf(Decision.ApprovalRequired.class, d).pending();
    }

    private static JsonNode json(String s) {
        try {
            return MAPPER.readTree(s);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Answers every question with one scripted result, recording what it was asked. */
    private static Approvals.Elicitor answering(Approvals.Asked asked, List<ObjectNode> questions) {
        return (params, timeout, cancellation) -> {
            questions.add(params);
            return asked;
        };
    }

    private static Approvals.Asked replied(String result) {
        return new Approvals.Asked.Replied(new ServerRequests.Reply(Optional.of(json(result)), Optional.empty()));
    }

    private Approvals.Step settle(PendingApproval p, ApprovalRoute route, Approvals.Elicitor elicitor) {
        return approvals.settle(p, "http_request", route, elicitor, new Cancellation(), FRAME);
    }

    private static final Approvals.Elicitor NEVER = (params, timeout, cancellation) -> {
        throw new AssertionError("no question may be sent here");
    };

    private static String rule(Approvals.Step step) {
        return assertInstanceOf(Approvals.Step.Refused.class, step).deny().rule();
    }

    // ---- handshake era ----

    @Test
    void anAcceptWithApproveTrueGrantsThePermitForThatRequest() {
        List<ObjectNode> questions = new ArrayList<>();
        PendingApproval p = pending("{\"id\":7}");
        Approvals.Step step = settle(p, new ApprovalRoute.Elicit(true),
                answering(replied("{\"action\":\"accept\",\"content\":{\"approve\":true}}"), questions));
        AuthorizedAction permit = assertInstanceOf(Approvals.Step.Granted.class, step).permit();
        assertEquals("https://api.example.com:443/orders", ((AuthorizedHttpRequest) permit).uri().toString());
        assertEquals(1, questions.size());
        assertTrue(questions.get(0).get("message").textValue().contains("{\"id\":7}"));
        assertEquals(List.of("asked:client", "answered:client:approved"), journal.summary());
    }

    @Test
    void declineCancelGarbageErrorTimeoutAndCancellationEachEndWithTheirRule() {
        assertEquals("approval.declined", rule(settle(pending("{}"), new ApprovalRoute.Elicit(true),
                answering(replied("{\"action\":\"decline\"}"), new ArrayList<>()))));
        assertEquals("approval.declined", rule(settle(pending("{}"), new ApprovalRoute.Elicit(true),
                answering(replied("{\"action\":\"cancel\"}"), new ArrayList<>()))));
        assertEquals("approval.invalid", rule(settle(pending("{}"), new ApprovalRoute.Elicit(true),
                answering(replied("{\"action\":\"accept\",\"content\":{\"approve\":\"yes\"}}"), new ArrayList<>()))));
        assertEquals("approval.invalid", rule(settle(pending("{}"), new ApprovalRoute.Elicit(true),
                answering(new Approvals.Asked.Replied(new ServerRequests.Reply(Optional.empty(),
                        Optional.of(json("{\"code\":-32601,\"message\":\"no\"}")))), new ArrayList<>()))));
        assertEquals("approval.timeout", rule(settle(pending("{}"), new ApprovalRoute.Elicit(true),
                answering(new Approvals.Asked.TimedOut(), new ArrayList<>()))));
        assertEquals("approval.declined", rule(settle(pending("{}"), new ApprovalRoute.Elicit(true),
                answering(new Approvals.Asked.Cancelled(), new ArrayList<>()))));
    }

    @Test
    void aClientThatCannotBeAskedIsNeverAsked() {
        assertEquals("approval.unsupported", rule(settle(pending("{}"), new ApprovalRoute.Unable("no elicitation"), NEVER)));
        assertEquals(List.of("answered:none:approval.unsupported"), journal.summary());
    }

    // ---- stateless era ----

    private static ApprovalRoute.Stateless retry(String answer, String state) {
        ObjectNode responses = MAPPER.createObjectNode();
        responses.set(Approvals.INPUT_KEY, json(answer));
        return new ApprovalRoute.Stateless(true, Optional.of(responses), Optional.ofNullable(state));
    }

    private static final String ACCEPT = "{\"action\":\"accept\",\"content\":{\"approve\":true}}";

    private Approvals.Step.InputRequired first(PendingApproval p) {
        return assertInstanceOf(Approvals.Step.InputRequired.class,
                settle(p, new ApprovalRoute.Stateless(true, Optional.empty(), Optional.empty()), NEVER));
    }

    @Test
    void aFirstStatelessCallAsksThroughInputRequiredAndTheRetryWithItsStateIsGrantedOnce() {
        PendingApproval p = pending("{}");
        Approvals.Step.InputRequired asked = first(p);
        JsonNode request = asked.inputRequests().get(Approvals.INPUT_KEY);
        assertEquals("elicitation/create", request.get("method").textValue());
        assertEquals("form", request.get("params").get("mode").textValue());
        assertInstanceOf(Approvals.Step.Granted.class, settle(pending("{}"), retry(ACCEPT, asked.requestState()), NEVER));
        assertEquals("approval.invalid", rule(settle(pending("{}"), retry(ACCEPT, asked.requestState()), NEVER)),
                "a replayed requestState is no approval");
        assertEquals(List.of("asked:client", "answered:client:approved",
                "answered:client:approval.invalid"), journal.summary());
        assertEquals("request-state-replayed", journal.records.get(2).detail().get());
    }

    @Test
    void aStateMovedToAnotherActionIsNoApproval() {
        Approvals.Step.InputRequired asked = first(pending("{\"id\":1}"));
        assertEquals("approval.invalid", rule(settle(pending("{\"id\":2}"), retry(ACCEPT, asked.requestState()), NEVER)));
        assertEquals("request-state-other-action", journal.records.get(1).detail().get());
    }

    @Test
    void aStateWithACharacterChangedIsNoApproval() {
        String state = first(pending("{}")).requestState();
        char c = state.charAt(3);
        String changed = state.substring(0, 3) + (c == 'A' ? 'B' : 'A') + state.substring(4);
        assertEquals("approval.invalid", rule(settle(pending("{}"), retry(ACCEPT, changed), NEVER)));
    }

    @Test
    void anAnswerWithoutAStateOrAStateWithoutAnAnswerIsNoApproval() {
        assertEquals("approval.invalid", rule(settle(pending("{}"), retry(ACCEPT, null), NEVER)));
        String state = first(pending("{}")).requestState();
        assertEquals("approval.invalid", rule(settle(pending("{}"),
                new ApprovalRoute.Stateless(true, Optional.empty(), Optional.of(state)), NEVER)));
    }

    @Test
    void aStatelessDeclineIsFinalAndItsStateIsUsedUp() {
        String state = first(pending("{}")).requestState();
        assertEquals("approval.declined", rule(settle(pending("{}"), retry("{\"action\":\"decline\"}", state), NEVER)));
        assertEquals("approval.invalid", rule(settle(pending("{}"), retry(ACCEPT, state), NEVER)),
                "no second chance with the same state after a decline");
    }

    @Test
    void aStatelessClientWithoutElicitationGetsTheMissingCapability() {
        Approvals.Step step = settle(pending("{}"), new ApprovalRoute.Stateless(false, Optional.empty(), Optional.empty()), NEVER);
        assertEquals("{\"elicitation\":{\"form\":{}}}",
                assertInstanceOf(Approvals.Step.CapabilityMissing.class, step).requiredCapabilities().toString());
    }

    /** Keeps approval rows; anything else is not expected here. */
    static final class Journal implements AuditJournal {
        final List<ApprovalRecord> records = new CopyOnWriteArrayList<>();

        List<String> summary() {
            List<String> out = new ArrayList<>();
            for (ApprovalRecord r : records) {
                out.add(r.event().name().toLowerCase() + ":" + r.channel().name().toLowerCase()
                        + r.result().map(x -> ":" + x).orElse(""));
            }
            return out;
        }

        @Override
        public void dropped(String server, String reason, String sha256, long bytes) {
            throw new AssertionError("unexpected upstream report from " + server);
        }

        @Override
        public void rejected(Rejection rejection) {
            throw new AssertionError("unexpected rejection " + rejection);
        }

        @Override
        public void approval(ApprovalRecord record) {
            records.add(record);
        }

        @Override
        public long intent(AuthorizedAction permit, String frameSha256, java.util.Optional<String> tool) {
            throw new AssertionError("nothing runs here");
        }

        @Override
        public void outcome(long intentSeq, Outcome outcome) {
            throw new AssertionError("nothing runs here");
        }

        @Override
        public void close() {
        }
    }
}
