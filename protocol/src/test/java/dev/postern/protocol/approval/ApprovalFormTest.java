package dev.postern.protocol.approval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.ApprovalFailure;
import dev.postern.policy.Decision;
import dev.postern.policy.PendingApproval;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Origin;
import dev.postern.policy.model.Policy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** The question shows the exact action; only an accept whose content is exactly {approve: true} approves. */
class ApprovalFormTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    static PendingApproval pending(String body) {
        HttpTarget t = new HttpTarget("api", Origin.parseBaseUrl("https://api.example.com"), Set.of("POST"), List.of("/"),
                Set.of(), Optional.empty(), Duration.ofSeconds(5), 1024, false).withConfirm(Set.of("POST"));
        Decision d = new PolicyEngine(Policy.of(List.of(t), List.of())).decide(
                new HttpRequestAction("POST", "https://api.example.com/orders/7/cancel", List.of(), List.of(), Optional.of(body)));
        return assertInstanceOf(Decision.ApprovalRequired.class, d).pending();
    }

    private static JsonNode json(String s) throws Exception {
        return MAPPER.readTree(s);
    }

    @Test
    void theFormIsOneRequiredBooleanAndTheMessageShowsTheExactAction() {
        PendingApproval p = pending("{\"reason\":\"fraud\"}");
        ObjectNode params = ApprovalForm.params(p, "http_request", true);
        assertEquals("form", params.get("mode").textValue());
        assertEquals("{\"type\":\"object\",\"properties\":{\"approve\":{\"type\":\"boolean\",\"title\":\"Approve\","
                + "\"description\":\"Run exactly this action, once\",\"default\":false}},\"required\":[\"approve\"]}",
                params.get("requestedSchema").toString());
        String message = params.get("message").textValue();
        assertTrue(message.contains("tool: http_request"), message);
        assertTrue(message.contains("method: POST"), message);
        assertTrue(message.contains("url: https://api.example.com:443/orders/7/cancel"), message);
        assertTrue(message.contains("body: {\"reason\":\"fraud\"}"), message);
        assertTrue(message.contains("action digest: " + p.digest()), message);
        assertFalse(ApprovalForm.params(p, "http_request", false).has("mode"));
    }

    @Test
    void aValueCannotPoseAsAnotherLineAndALongOneIsCut() {
        String message = ApprovalForm.message(pending("x\nmethod: GET\u202e" + "y".repeat(3000)), "http_request");
        assertFalse(message.contains("\nmethod: GET"), message);
        assertTrue(message.contains("\\u000amethod: GET\\u202e"), message);
        assertTrue(message.contains("more characters, covered by the digest"), message);
    }

    @Test
    void controlLineSeparatorAndBidiCharactersAreEscapedAndTheirNeighboursShownAsThemselves() {
        int[] escaped = {0x00, 0x1f, 0x7f, 0x80, 0x9f, 0x061c, 0x200e, 0x200f, 0x2028, 0x2029, 0x202a, 0x202e, 0x2066, 0x2069};
        int[] plain = {0x20, 0x7e, 0xa0, 0x061b, 0x200d, 0x2010, 0x2027, 0x202f, 0x2065, 0x206a};
        for (int c : escaped) {
            String message = ApprovalForm.message(pending("<" + Character.toString(c) + ">"), "http_request");
            assertTrue(message.contains("body: <" + String.format("\\u%04x", c) + ">"), Integer.toHexString(c) + ": " + message);
        }
        for (int c : plain) {
            String message = ApprovalForm.message(pending("<" + Character.toString(c) + ">"), "http_request");
            assertTrue(message.contains("body: <" + Character.toString(c) + ">"), Integer.toHexString(c) + ": " + message);
        }
    }

    @Test
    void aLongValueIsCutAfterTwoThousandCharactersCountedAsCodePointsAndSaysHowManyMoreThereAre() {
        String whole = "\ud83d\ude00".repeat(ApprovalForm.MAX_SHOWN_CHARS);
        assertTrue(ApprovalForm.message(pending(whole), "http_request").contains("body: " + whole + "\n"), "exactly at the limit: whole");
        String message = ApprovalForm.message(pending(whole + "ab"), "http_request");
        assertTrue(message.contains("body: " + whole + "\u2026 (2 more characters, covered by the digest)\n"), message);
    }

    @Test
    void acceptWithApproveTrueApproves() throws Exception {
        assertInstanceOf(ApprovalForm.Answer.Approved.class,
                ApprovalForm.judge(json("{\"action\":\"accept\",\"content\":{\"approve\":true}}")));
        assertInstanceOf(ApprovalForm.Answer.Approved.class,
                ApprovalForm.judge(json("{\"_meta\":{},\"action\":\"accept\",\"content\":{\"approve\":true}}")));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"action\":\"decline\"}",
        "{\"action\":\"cancel\"}",
        "{\"action\":\"decline\",\"content\":{\"approve\":true}}",
        "{\"action\":\"accept\",\"content\":{\"approve\":false}}"})
    void aDeclineACancelOrAnUntickedBoxIsDeclined(String answer) throws Exception {
        ApprovalForm.Answer.NotApproved a = assertInstanceOf(ApprovalForm.Answer.NotApproved.class, ApprovalForm.judge(json(answer)));
        assertEquals(ApprovalFailure.DECLINED, a.failure());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"action\":\"accept\"}",
        "{\"action\":\"accept\",\"content\":{}}",
        "{\"action\":\"accept\",\"content\":{\"approve\":\"true\"}}",
        "{\"action\":\"accept\",\"content\":{\"approve\":1}}",
        "{\"action\":\"accept\",\"content\":{\"approve\":true,\"also\":\"x\"}}",
        "{\"action\":\"accept\",\"content\":{\"Approve\":true}}",
        "{\"action\":\"accept\",\"content\":[true]}",
        "{\"action\":\"ACCEPT\",\"content\":{\"approve\":true}}",
        "{\"action\":true}",
        "{\"content\":{\"approve\":true}}",
        "[]",
        "\"accept\"",
        "null"})
    void anythingElseIsAnInvalidAnswer(String answer) throws Exception {
        ApprovalForm.Answer.NotApproved a = assertInstanceOf(ApprovalForm.Answer.NotApproved.class, ApprovalForm.judge(json(answer)));
        assertEquals(ApprovalFailure.INVALID, a.failure());
    }
}
