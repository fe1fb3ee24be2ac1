package dev.postern.executor.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.policy.json.JsonValue.JsonObject;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.port.SecretMask;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Each failure the upstream executor answers with: its code and its words for the agent (the
 * server's configured name and whether anything was sent; never a path, a pid or an exception), and
 * the judgement of an upstream's JSON-RPC error and of a result over the cap. No child process: the
 * executor's own tests show each one arises where it should.
 */
class McpFailuresTest {
    private static final long CAP = 1000;
    private static final UpstreamServer SERVER = new UpstreamServer("files", List.of("/opt/mcp/bin/files-server"), "/srv/mcp",
            Map.of(), Duration.ofSeconds(5), Duration.ofMillis(2500), CAP, List.of(), Optional.empty());
    private static final Pattern REVEALING = Pattern.compile("/|Exception|pid");
    private static final String UNKNOWN = "the request had been sent: its effect is unknown";
    private static final SecretMask MASK = new SecretMask(List.of("s3cret-token".getBytes(StandardCharsets.UTF_8)));

    private static ExecutionFailure fitForTheAgent(ExecutionFailure f, FailureCode code, String message) {
        assertEquals(code, f.code(), f.message());
        assertEquals(message, f.message());
        assertFalse(REVEALING.matcher(f.message()).find(), () -> "the agent would learn too much: " + f.message());
        return f;
    }

    private static JsonObject parse(String json) {
        try {
            return (JsonObject) Harness.CODEC.parse(json);
        } catch (Exception e) {
            throw new AssertionError(json, e);
        }
    }

    private static ExecutionFailure ofError(String error) {
        return McpFailures.ofError(SERVER, parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":" + error + "}"), MASK);
    }

    @Test
    void failuresBeforeTheRequestIsSentSaySoAndNameTheServer() {
        fitForTheAgent(McpFailures.closed(), FailureCode.EXECUTOR_FAILED, "the upstream executor is closed; nothing was sent");
        fitForTheAgent(McpFailures.notConfigured("files"), FailureCode.EXECUTOR_FAILED,
                "upstream files is not one this executor was configured with; nothing was sent");
        fitForTheAgent(McpFailures.unavailable("upstream files is unavailable (it exited); nothing was sent"),
                FailureCode.UPSTREAM_UNAVAILABLE, "upstream files is unavailable (it exited); nothing was sent");
        fitForTheAgent(McpFailures.cancelledWhileStarting(SERVER), FailureCode.CANCELLED,
                "the call was cancelled while upstream files was starting; nothing was sent");
        fitForTheAgent(McpFailures.toolGone(SERVER), FailureCode.UPSTREAM_UNAVAILABLE,
                "upstream files no longer lists the tool; nothing was sent");
        fitForTheAgent(McpFailures.pinChanged(), FailureCode.UPSTREAM_UNAVAILABLE,
                "the tool's definition changed since the call was allowed; nothing was sent");
        fitForTheAgent(McpFailures.exitedBeforeTheCall(SERVER), FailureCode.UPSTREAM_UNAVAILABLE,
                "upstream files: it exited before the call; nothing was sent");
        fitForTheAgent(McpFailures.tooManyWaiting(SERVER), FailureCode.UPSTREAM_UNAVAILABLE,
                "upstream files: too many calls are waiting for it; nothing was sent");
        fitForTheAgent(McpFailures.cancelledBeforeSent(), FailureCode.CANCELLED,
                "the call was cancelled before it was sent; nothing was sent");
    }

    @Test
    void failuresAfterTheRequestWasSentSayItsEffectIsUnknown() {
        fitForTheAgent(McpFailures.exitedWhileWriting(SERVER), FailureCode.UPSTREAM_UNAVAILABLE,
                "upstream files: it exited while the call was being written; " + UNKNOWN);
        fitForTheAgent(McpFailures.exitedBeforeAnswering(SERVER), FailureCode.UPSTREAM_UNAVAILABLE,
                "upstream files: it exited before it answered; " + UNKNOWN);
        fitForTheAgent(McpFailures.timedOut(SERVER), FailureCode.TIMEOUT,
                "upstream files did not answer within 2500 ms; it was told to cancel; " + UNKNOWN);
        fitForTheAgent(McpFailures.interrupted(), FailureCode.CANCELLED, "the call was interrupted; " + UNKNOWN);
        fitForTheAgent(McpFailures.cancelled(SERVER), FailureCode.CANCELLED,
                "the call was cancelled; upstream files was told to cancel; " + UNKNOWN);
    }

    @Test
    void anUpstreamsErrorIsPassedOnWithItsCodeMaskedAndMadePrintable() {
        fitForTheAgent(ofError("{\"code\":-32000,\"message\":\"boom s3cret-token\\u001b[2J\"}"), FailureCode.EXECUTOR_FAILED,
                "upstream files answered the call with JSON-RPC error -32000: boom ****?[2J");
        fitForTheAgent(ofError("{\"code\":7.0,\"message\":\"integral\"}"), FailureCode.EXECUTOR_FAILED,
                "upstream files answered the call with JSON-RPC error 7: integral");
    }

    @Test
    void anUpstreamsErrorMessageIsCutAtTwoHundredCharacters() {
        String exactly = "e".repeat(McpFailures.MAX_ERROR_MESSAGE);
        assertEquals("upstream files answered the call with JSON-RPC error 1: " + exactly,
                ofError("{\"code\":1,\"message\":\"" + exactly + "\"}").message(), "200 characters are kept whole");
        assertEquals("upstream files answered the call with JSON-RPC error 1: " + exactly + "…",
                ofError("{\"code\":1,\"message\":\"" + exactly + "f\"}").message(), "the 201st is cut");
    }

    @Test
    void anErrorWithoutAnIntegralCodeOrAStringMessageBreaksTheProtocol() {
        String broke = "upstream files broke the protocol: its error response is not a well-formed JSON-RPC error;"
                + " nothing of its answer is returned";
        for (String error : List.of("{\"message\":\"no code\"}", "{\"code\":\"1\",\"message\":\"a string code\"}",
                "{\"code\":1.5,\"message\":\"a fraction\"}", "{\"code\":1e30,\"message\":\"past 64 bits\"}",
                "{\"code\":1}", "{\"code\":1,\"message\":2}", "\"not an object\"")) {
            fitForTheAgent(ofError(error), FailureCode.UPSTREAM_PROTOCOL_ERROR, broke);
        }
    }

    @Test
    void aResultOverTheCapIsRefusedAndOneAtTheCapPasses() {
        assertEquals(Optional.empty(), McpFailures.overCap(SERVER, CAP));
        ExecutionFailure over = fitForTheAgent(McpFailures.overCap(SERVER, CAP + 1).orElseThrow(), FailureCode.RESPONSE_TOO_LARGE,
                "upstream files's result is 1001 bytes, over the server's cap of 1000; nothing of it is returned");
        assertTrue(over.partial().isEmpty());
    }

    @Test
    void aBrokenAnswerSaysWhyAndThatNothingOfItIsReturned() {
        fitForTheAgent(McpFailures.protocolError(SERVER, "its result is not a well-formed CallToolResult (no content)"),
                FailureCode.UPSTREAM_PROTOCOL_ERROR, "upstream files broke the protocol: its result is not a well-formed"
                        + " CallToolResult (no content); nothing of its answer is returned");
    }

    @Test
    void anErrorResponsesCodeIsReadForTheCallsSpanWhenItIsAWholeNumberThatFitsAnInt() {
        assertEquals(java.util.OptionalInt.of(-32000), McpFailures.errorCode(parse("{\"error\":{\"code\":-32000,\"message\":\"x\"}}")));
        assertEquals(java.util.OptionalInt.of(7), McpFailures.errorCode(parse("{\"error\":{\"code\":7.0}}")));
        assertEquals(java.util.OptionalInt.of(Integer.MAX_VALUE),
                McpFailures.errorCode(parse("{\"error\":{\"code\":" + Integer.MAX_VALUE + "}}")));
        assertEquals(java.util.OptionalInt.of(Integer.MIN_VALUE),
                McpFailures.errorCode(parse("{\"error\":{\"code\":" + Integer.MIN_VALUE + "}}")));
        for (String none : List.of("{\"result\":{}}", "{\"error\":{\"message\":\"no code\"}}", "{\"error\":{\"code\":\"1\"}}",
                "{\"error\":{\"code\":1.5}}", "{\"error\":{\"code\":" + (Integer.MAX_VALUE + 1L) + "}}",
                "{\"error\":{\"code\":" + (Integer.MIN_VALUE - 1L) + "}}", "{\"error\":\"not an object\"}")) {
            assertEquals(java.util.OptionalInt.empty(), McpFailures.errorCode(parse(none)), none);
        }
    }
}
