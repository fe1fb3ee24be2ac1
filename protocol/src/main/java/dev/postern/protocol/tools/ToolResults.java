package dev.postern.protocol.tools;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.Decision;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.Outcome;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Renders outcomes, denials and argument failures as MCP {@code CallToolResult} objects. A success
 * carries {@code structuredContent} (valid against the tool's output schema) and the same JSON as one
 * text content item. A failure ({@code isError: true}) carries only the text item, holding the JSON
 * {@code {"error":{code, message, rule?, pointer?, partial?}}}: MCP requires structured content to
 * match the output schema, which describes success, and strict clients (the TypeScript SDK) reject a
 * result that does not. {@code partial} is what an executor had read before it failed (a timeout
 * mid-command), in the same shape as the tool's success, rendered by the outcome's {@link EffectKind} (for
 * {@code ssh_exec}: streams, encodings, truncation flags, and null exit status and signal). Bytes that are not valid UTF-8 (or a body whose media type is not textual) come back
 * as base64, never lossily. Stateless.
 */
public final class ToolResults {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private ToolResults() {
    }

    /** A success rendered by its kind, or a failure with its code, message and any partial its kind renders. */
    public static ObjectNode outcome(EffectKinds kinds, Outcome outcome) {
        if (!(outcome instanceof ExecutionFailure f)) {
            return success(kinds.render(outcome));
        }
        ObjectNode e = errorObject(f.code().name(), f.message());
        f.partial().ifPresent(p -> e.set("partial", kinds.render(p)));
        return wrapError(e);
    }

    public static ObjectNode answer(ObjectNode structured) {
        return success(structured);
    }

    public static ObjectNode denied(Decision.Deny deny) {
        ObjectNode e = errorObject("POLICY_DENIED", deny.reason());
        e.put("rule", deny.rule());
        return wrapError(e);
    }

    public static ObjectNode invalidArguments(Binding.Invalid invalid) {
        ObjectNode e = errorObject("INVALID_ARGUMENTS", invalid.message());
        e.put("pointer", invalid.pointer());
        return wrapError(e);
    }

    private static ObjectNode errorObject(String code, String message) {
        ObjectNode e = JSON.objectNode();
        e.put("code", code);
        e.put("message", message);
        return e;
    }

    private static ObjectNode wrapError(ObjectNode error) {
        ObjectNode body = JSON.objectNode();
        body.set("error", error);
        ObjectNode result = JSON.objectNode();
        result.putArray("content").addObject().put("type", "text").put("text", body.toString());
        result.put("isError", true);
        return result;
    }

    private static ObjectNode success(ObjectNode structured) {
        ObjectNode result = JSON.objectNode();
        result.putArray("content").addObject().put("type", "text").put("text", structured.toString());
        result.set("structuredContent", structured);
        result.put("isError", false);
        return result;
    }

    /** The bytes as a string if they are valid UTF-8 (a cut at the cap mid-character counts as invalid). */
    static Optional<String> utf8(byte[] bytes) {
        try {
            return Optional.of(StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }
}
