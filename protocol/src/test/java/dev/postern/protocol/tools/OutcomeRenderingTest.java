package dev.postern.protocol.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.Decision;
import dev.postern.policy.action.HeaderField;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.HttpResponseOutcome;
import dev.postern.policy.outcome.SshExitOutcome;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * How each outcome becomes a CallToolResult: which HTTP media types come back as text and which as
 * base64, exit status and signal present or null, a success's text copy equal to its structured
 * content, and the error object of a denial, an argument failure and a failed HTTP call's partial.
 */
class OutcomeRenderingTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] TEXT = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
    private static final String FINGERPRINT = "SHA256:" + "A".repeat(43);

    private static HttpResponseOutcome http(String contentTypeHeader, String contentType, byte[] body, boolean truncated) {
        List<HeaderField> headers = contentType == null ? List.of(new HeaderField("X-Other", "1"))
                : List.of(new HeaderField("X-Other", "1"), new HeaderField(contentTypeHeader, contentType));
        return new HttpResponseOutcome("api", 200, headers, body, truncated);
    }

    private static JsonNode structured(ObjectNode result) throws Exception {
        assertFalse(result.get("isError").asBoolean());
        // structuredContent is written raw (the text item's string, serialized once): read it as a client does.
        JsonNode s = JSON.readTree(JSON.writeValueAsString(result)).get("structuredContent");
        assertEquals(s, JSON.readTree(result.get("content").get(0).get("text").textValue()), "the text item is the same JSON");
        assertEquals("text", result.get("content").get(0).get("type").textValue());
        return s;
    }

    private static JsonNode error(ObjectNode result) throws Exception {
        assertTrue(result.get("isError").asBoolean());
        assertFalse(result.has("structuredContent"));
        return JSON.readTree(result.get("content").get(0).get("text").textValue()).get("error");
    }

    @ParameterizedTest
    @ValueSource(strings = {"text/plain", "TEXT/HTML; charset=utf-8", "application/json", "application/problem+json",
        "application/xml", "image/svg+xml", "application/javascript", "application/x-www-form-urlencoded"})
    void textualMediaTypesComeBackAsText(String contentType) throws Exception {
        JsonNode s = structured(ToolResults.outcome(TestKinds.ALL, http("Content-Type", contentType, TEXT, false)));
        assertEquals("{\"ok\":true}", s.get("body").textValue());
        assertEquals("text", s.get("bodyEncoding").textValue());
    }

    @ParameterizedTest
    @ValueSource(strings = {"application/octet-stream", "image/png", "application/pdf", "multipart/form-data"})
    void otherMediaTypesComeBackAsBase64EvenWhenTheBytesAreText(String contentType) throws Exception {
        JsonNode s = structured(ToolResults.outcome(TestKinds.ALL, http("content-type", contentType, TEXT, false)));
        assertEquals(Base64.getEncoder().encodeToString(TEXT), s.get("body").textValue());
        assertEquals("base64", s.get("bodyEncoding").textValue());
    }

    @Test
    void aBodyWithoutAContentTypeIsBase64() throws Exception {
        JsonNode s = structured(ToolResults.outcome(TestKinds.ALL, http(null, null, TEXT, false)));
        assertEquals("base64", s.get("bodyEncoding").textValue());
    }

    @Test
    void anEmptyBodyIsEmptyTextWhateverItsType() throws Exception {
        JsonNode s = structured(ToolResults.outcome(TestKinds.ALL, http("Content-Type", "image/png", new byte[0], false)));
        assertEquals("", s.get("body").textValue());
        assertEquals("text", s.get("bodyEncoding").textValue());
    }

    @Test
    void aTextualBodyCutMidCharacterIsBase64NotLossy() throws Exception {
        byte[] cut = {'a', (byte) 0xC3};
        JsonNode s = structured(ToolResults.outcome(TestKinds.ALL, http("Content-Type", "text/plain", cut, true)));
        assertEquals(Base64.getEncoder().encodeToString(cut), s.get("body").textValue());
        assertEquals("base64", s.get("bodyEncoding").textValue());
        assertTrue(s.get("truncated").asBoolean());
    }

    @Test
    void anHttpSuccessCarriesTargetStatusAndHeadersInOrder() throws Exception {
        JsonNode s = structured(ToolResults.outcome(TestKinds.ALL, new HttpResponseOutcome("api", 404,
                List.of(new HeaderField("A", "1"), new HeaderField("B", "2")), new byte[0], false)));
        assertEquals("api", s.get("target").textValue());
        assertEquals(404, s.get("status").asInt());
        assertEquals("[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"B\",\"value\":\"2\"}]", s.get("headers").toString());
        assertFalse(s.get("truncated").asBoolean());
    }

    @Test
    void anSshExitCarriesStatusAndNullSignal() throws Exception {
        JsonNode s = structured(ToolResults.outcome(TestKinds.ALL, new SshExitOutcome("web", OptionalInt.of(3), Optional.empty(),
                "out".getBytes(StandardCharsets.UTF_8), false, new byte[0], true, FINGERPRINT)));
        assertEquals("web", s.get("host").textValue());
        assertEquals(3, s.get("exitStatus").asInt());
        assertTrue(s.get("exitSignal").isNull());
        assertEquals("out", s.get("stdout").textValue());
        assertFalse(s.get("stdoutTruncated").asBoolean());
        assertEquals("", s.get("stderr").textValue());
        assertTrue(s.get("stderrTruncated").asBoolean());
        assertEquals(FINGERPRINT, s.get("hostKeyFingerprint").textValue());
    }

    @Test
    void anSshKillCarriesTheSignalAndNullStatus() throws Exception {
        JsonNode s = structured(ToolResults.outcome(TestKinds.ALL, new SshExitOutcome("web", OptionalInt.empty(), Optional.of("KILL"),
                new byte[0], false, new byte[0], false, FINGERPRINT)));
        assertTrue(s.get("exitStatus").isNull());
        assertEquals("KILL", s.get("exitSignal").textValue());
    }

    @Test
    void aFailedHttpCallCarriesWhatWasReadAsItsPartial() throws Exception {
        HttpResponseOutcome readSoFar = http("Content-Type", "text/plain", TEXT, true);
        JsonNode e = error(ToolResults.outcome(TestKinds.ALL, new ExecutionFailure(FailureCode.RESPONSE_TOO_LARGE, "over the cap", Optional.of(readSoFar))));
        assertEquals("RESPONSE_TOO_LARGE", e.get("code").textValue());
        assertEquals("over the cap", e.get("message").textValue());
        assertEquals("{\"ok\":true}", e.get("partial").get("body").textValue());
        assertTrue(e.get("partial").get("truncated").asBoolean());
    }

    @Test
    void aDenialNamesItsRuleAndReason() throws Exception {
        JsonNode e = error(ToolResults.denied(new Decision.Deny("http.path", "not under /v1")));
        assertEquals("POLICY_DENIED", e.get("code").textValue());
        assertEquals("not under /v1", e.get("message").textValue());
        assertEquals("http.path", e.get("rule").textValue());
        assertFalse(e.has("pointer"));
    }

    @Test
    void anArgumentFailureNamesItsPointer() throws Exception {
        JsonNode e = error(ToolResults.invalidArguments(new Binding.Invalid("/url", "must be a string")));
        assertEquals("INVALID_ARGUMENTS", e.get("code").textValue());
        assertEquals("must be a string", e.get("message").textValue());
        assertEquals("/url", e.get("pointer").textValue());
        assertFalse(e.has("rule"));
    }

    @Test
    void aLocalAnswerIsASuccessWithThatContent() throws Exception {
        ObjectNode answer = JsonNodeFactory.instance.objectNode().put("k", "v");
        assertEquals("{\"k\":\"v\"}", structured(ToolResults.answer(answer)).toString());
    }
}
