package dev.postern.protocol.tools;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * The result of a read-only tool whose answer is fixed for the catalog's life ({@code postern_targets}:
 * the configuration does not change while Postern runs): its structured content and its
 * {@code CallToolResult}, rendered by {@link ToolResults#answer} once, when the catalog is built (the
 * rendering and its size cap are pure functions of that content). Neither node is ever handed out:
 * the accessors return copies, so no caller can change what the next call answers. Immutable;
 * thread-safe.
 */
public final class FixedResult {
    private final ObjectNode structuredContent;
    private final ObjectNode result;

    FixedResult(ObjectNode structuredContent) {
        this.structuredContent = Objects.requireNonNull(structuredContent, "structuredContent").deepCopy();
        this.result = ToolResults.answer(this.structuredContent.deepCopy());
    }

    /** A copy of the structured content. */
    public ObjectNode structuredContent() {
        return structuredContent.deepCopy();
    }

    /** A copy of the {@code CallToolResult}, exactly as {@link ToolResults#answer} renders the content. */
    public ObjectNode result() {
        return result.deepCopy();
    }
}
