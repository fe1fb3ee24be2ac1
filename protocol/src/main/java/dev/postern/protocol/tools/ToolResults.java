package dev.postern.protocol.tools;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import dev.postern.policy.Decision;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.Outcome;
import dev.postern.transport.StrictUtf8;
import java.nio.charset.CharacterCodingException;
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
 * as base64, never lossily.
 *
 * <p>The structured JSON is serialized once: that one string is the text item and is written raw
 * as {@code structuredContent}. A result is capped as rendered, escapes counted (a NUL byte becomes
 * six bytes, then seven in the text copy). A result that would pass {@code maxResultBytes} is
 * rendered again by its kind to fit ({@link EffectKind#renderWithin}: streams that base64 shrinks go
 * out base64, then streams or rows are cut and flagged truncated), so what an executor got within its
 * cap reaches the agent; a result that fits is rendered exactly as before. Only what no kind can make
 * fit (a failure's message, huge headers) becomes the failure {@code RESPONSE_TOO_LARGE}, with
 * nothing of the result in it. Stateless.
 */
public final class ToolResults {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    /** The cap on one rendered result when the caller sets none: well above 1 MiB of text rendered twice. */
    public static final long DEFAULT_MAX_RESULT_BYTES = 8L << 20;

    private ToolResults() {
    }

    public static ObjectNode outcome(EffectKinds kinds, Outcome outcome) {
        return outcome(kinds, outcome, DEFAULT_MAX_RESULT_BYTES);
    }

    /**
     * The result for {@code outcome}, a success rendered by its kind or a failure with any partial its
     * kind renders, shrunk by its kind to fit {@code maxResultBytes}, or RESPONSE_TOO_LARGE if even
     * that would render past it.
     */
    public static ObjectNode outcome(EffectKinds kinds, Outcome outcome, long maxResultBytes) {
        if (!(outcome instanceof ExecutionFailure f)) {
            KindResult result = kinds.result(outcome);
            if (result instanceof KindResult.Whole whole) {
                return whole(whole.callToolResult(), maxResultBytes);
            }
            String text = kinds.render(outcome).toString();
            long rendered = renderedSuccess(text);
            if (rendered > maxResultBytes) {
                text = kinds.renderWithin(outcome, maxResultBytes).toString();
                rendered = renderedSuccess(text);
            }
            return success(text, rendered, maxResultBytes);
        }
        ObjectNode e = errorObject(f.code().name(), f.message());
        if (f.partial().isPresent()) {
            Outcome p = f.partial().get();
            e.set("partial", kinds.render(p));
            if (RenderedSize.ofJsonString(errorText(e)) > maxResultBytes) {
                // The partial appears once, escaped once: a success's measure of it is never smaller.
                long room = maxResultBytes - RenderedSize.ofJsonString(errorText(errorObject(f.code().name(), f.message())))
                        - PARTIAL_FIELD_BYTES;
                e.set("partial", kinds.renderWithin(p, room));
            }
        }
        return wrapError(e, maxResultBytes);
    }

    /** {@code ,"partial":} inside the text item's string, with room to spare. */
    private static final int PARTIAL_FIELD_BYTES = 32;

    /** What a success holding {@code structured} counts against the cap: its JSON, and again escaped in the text item. */
    static long renderedSuccess(ObjectNode structured) {
        return renderedSuccess(structured.toString());
    }

    private static long renderedSuccess(String text) {
        return RenderedSize.ofUtf8(text) + RenderedSize.ofJsonString(text);
    }

    private static String errorText(ObjectNode error) {
        ObjectNode body = JSON.objectNode();
        body.set("error", error);
        return body.toString();
    }

    public static ObjectNode answer(ObjectNode structured) {
        String text = structured.toString();
        return success(text, renderedSuccess(text), DEFAULT_MAX_RESULT_BYTES);
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
        return wrapError(error, DEFAULT_MAX_RESULT_BYTES);
    }

    private static ObjectNode wrapError(ObjectNode error, long maxResultBytes) {
        ObjectNode body = JSON.objectNode();
        body.set("error", error);
        String text = body.toString();
        long rendered = RenderedSize.ofJsonString(text);
        if (rendered > maxResultBytes) {
            return tooLarge(rendered, maxResultBytes);
        }
        ObjectNode result = JSON.objectNode();
        result.putArray("content").addObject().put("type", "text").put("text", text);
        result.put("isError", true);
        return result;
    }

    private static ObjectNode success(String text, long rendered, long maxResultBytes) {
        if (rendered > maxResultBytes) {
            return tooLarge(rendered, maxResultBytes);
        }
        ObjectNode result = JSON.objectNode();
        result.putArray("content").addObject().put("type", "text").put("text", text);
        result.putRawValue("structuredContent", new RawValue(text));
        result.put("isError", false);
        return result;
    }

    /** A result the kind's effect made itself, passed on as it is unless it would render past the cap. */
    private static ObjectNode whole(ObjectNode result, long maxResultBytes) {
        long rendered = RenderedSize.ofUtf8(result.toString());
        return rendered > maxResultBytes ? tooLarge(rendered, maxResultBytes) : result;
    }

    private static ObjectNode tooLarge(long rendered, long maxResultBytes) {
        return wrapError(errorObject("RESPONSE_TOO_LARGE", "the result would be " + rendered
                + " bytes once rendered, over the gateway's cap of " + maxResultBytes + " bytes; nothing of it is returned"));
    }

    /** The bytes as a string if they are valid UTF-8 (a cut at the cap mid-character counts as invalid). */
    static Optional<String> utf8(byte[] bytes) {
        try {
            return Optional.of(StrictUtf8.decode(bytes));
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }
}
