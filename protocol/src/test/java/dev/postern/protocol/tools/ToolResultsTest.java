package dev.postern.protocol.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.SshExitOutcome;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class ToolResultsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String FINGERPRINT = "SHA256:" + "A".repeat(43);

    @Test
    void timeoutRendersWhatWasReadSoFarUnderErrorPartial() throws Exception {
        byte[] notUtf8 = {(byte) 0xff, 0x00, 0x41};
        SshExitOutcome readSoFar = new SshExitOutcome("web-1", OptionalInt.empty(), Optional.empty(),
                "started\n".getBytes(StandardCharsets.UTF_8), true, notUtf8, false, FINGERPRINT);

        ObjectNode result = ToolResults.outcome(TestKinds.ALL, new ExecutionFailure(FailureCode.TIMEOUT, "no answer", Optional.of(readSoFar)));

        assertTrue(result.get("isError").asBoolean());
        assertFalse(result.has("structuredContent"), "errors carry no structuredContent");
        JsonNode error = errorOf(result);
        assertEquals("TIMEOUT", error.get("code").asText());
        assertEquals("no answer", error.get("message").asText());
        JsonNode partial = error.get("partial");
        assertEquals("web-1", partial.get("host").asText());
        assertTrue(partial.get("exitStatus").isNull());
        assertTrue(partial.get("exitSignal").isNull());
        assertEquals("started\n", partial.get("stdout").asText());
        assertEquals("text", partial.get("stdoutEncoding").asText());
        assertTrue(partial.get("stdoutTruncated").asBoolean());
        assertEquals(Base64.getEncoder().encodeToString(notUtf8), partial.get("stderr").asText());
        assertEquals("base64", partial.get("stderrEncoding").asText());
        assertFalse(partial.get("stderrTruncated").asBoolean());
        assertEquals(FINGERPRINT, partial.get("hostKeyFingerprint").asText());
    }

    @Test
    void failureWithNothingReadHasNoPartial() throws Exception {
        ObjectNode result = ToolResults.outcome(TestKinds.ALL, new ExecutionFailure(FailureCode.CONNECT_FAILED, "refused"));

        JsonNode error = errorOf(result);
        assertEquals("CONNECT_FAILED", error.get("code").asText());
        assertFalse(error.has("partial"));
        assertFalse(result.has("structuredContent"));
    }

    @Test
    void aBodyOfNulBytesOverTheCapAsTextComesBackWholeAsBase64() throws Exception {
        byte[] nul = new byte[1 << 20];
        dev.postern.policy.outcome.HttpResponseOutcome r = new dev.postern.policy.outcome.HttpResponseOutcome("api", 200,
                java.util.List.of(new dev.postern.policy.action.HeaderField("Content-Type", "text/plain")), nul, false);

        ObjectNode result = ToolResults.outcome(TestKinds.ALL, r, 4L << 20);

        assertFalse(result.get("isError").asBoolean(), "13 MiB as text, 2.7 MiB as base64");
        JsonNode structured = JSON.readTree(result.get("structuredContent").toString());
        assertEquals("base64", structured.get("bodyEncoding").textValue());
        assertEquals(java.util.Arrays.toString(nul), java.util.Arrays.toString(Base64.getDecoder().decode(structured.get("body").textValue())));
        assertFalse(structured.get("truncated").asBoolean());
        String text = result.get("content").get(0).get("text").textValue();
        assertTrue(RenderedSize.ofUtf8(text) + RenderedSize.ofJsonString(text) <= 4L << 20);
    }

    @Test
    void aResultNoKindCanShrinkIsCappedAsRenderedAndBecomesResponseTooLarge() throws Exception {
        dev.postern.policy.outcome.HttpResponseOutcome r = new dev.postern.policy.outcome.HttpResponseOutcome("api", 200,
                java.util.List.of(new dev.postern.policy.action.HeaderField("X-Quotes", "\"".repeat(1 << 20))), new byte[0], false);

        ObjectNode capped = ToolResults.outcome(TestKinds.ALL, r, 4L << 20);

        assertTrue(capped.get("isError").asBoolean());
        assertFalse(capped.has("structuredContent"));
        JsonNode error = errorOf(capped);
        assertEquals("RESPONSE_TOO_LARGE", error.get("code").asText());
        assertTrue(error.get("message").asText().contains("over the gateway's cap of 4194304 bytes"), error.toString());
        assertTrue(JSON.writeValueAsBytes(capped).length < 1024, "the refusal carries nothing of the body");
    }

    @Test
    void theRenderedSizeIsTheSizeJacksonWritesAndTheStructuredJsonIsSerializedOnce() throws Exception {
        java.util.Random random = new java.util.Random(17);
        for (int round = 0; round < 200; round++) {
            byte[] body = new byte[random.nextInt(300)];
            for (int i = 0; i < body.length; i++) {
                body[i] = (byte) (random.nextBoolean() ? random.nextInt(0x80) : "\"\\\u0000\n\té€".getBytes(StandardCharsets.UTF_8)[random.nextInt(8)]);
            }
            ObjectNode result = ToolResults.outcome(TestKinds.ALL, new dev.postern.policy.outcome.HttpResponseOutcome("api", 200,
                    java.util.List.of(new dev.postern.policy.action.HeaderField("Content-Type", "text/plain")), body, false), 1L << 20);
            byte[] written = JSON.writeValueAsBytes(result);
            String text = result.get("content").get(0).get("text").textValue();
            long expected = "{\"content\":[{\"type\":\"text\",\"text\":".length() + RenderedSize.ofJsonString(text)
                    + "}],\"structuredContent\":".length() + RenderedSize.ofUtf8(text) + ",\"isError\":false}".length();
            assertEquals(expected, written.length, "round " + round + ": " + new String(written, StandardCharsets.UTF_8));
            assertEquals(JSON.readTree(text), JSON.readTree(written).get("structuredContent"), "the text item is the structured JSON");
        }
    }

    /** The error object inside the one text content item. */
    private static JsonNode errorOf(ObjectNode result) throws Exception {
        assertEquals(1, result.get("content").size());
        JsonNode item = result.get("content").get(0);
        assertEquals("text", item.get("type").asText());
        return JSON.readTree(item.get("text").asText()).get("error");
    }
}
