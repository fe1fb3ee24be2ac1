package dev.postern.protocol.tools;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/** A kind's success as a tool result: structured content for {@link ToolResults} to wrap, or a whole result of the effect's own. */
public sealed interface KindResult {

    /** {@code structuredContent}, valid against the tool's output schema; also sent as one text item. */
    record Structured(ObjectNode content) implements KindResult {
        public Structured {
            Objects.requireNonNull(content, "content");
        }
    }

    /**
     * A complete {@code CallToolResult} (content items, {@code structuredContent} when the tool declares an
     * output schema, {@code isError}), checked and masked by the kind's executor; passed on as it is.
     */
    record Whole(ObjectNode callToolResult) implements KindResult {
        public Whole {
            Objects.requireNonNull(callToolResult, "callToolResult");
            if (!callToolResult.path("content").isArray()) {
                throw new IllegalArgumentException("a whole result needs a content array");
            }
        }
    }
}
