package dev.postern.protocol.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;
import java.util.Optional;

/**
 * The token a client put in a request's {@code _meta.progressToken}: a string or an integer, kept as
 * the client wrote it so the notification names it exactly. A private copy; never changed.
 */
public record ProgressToken(JsonNode value) {
    private static final int MAX_LENGTH = 256;

    public ProgressToken {
        Objects.requireNonNull(value, "value");
        if (!value.isTextual() && !value.isIntegralNumber()) {
            throw new IllegalArgumentException("a progress token is a string or an integer");
        }
        value = value.deepCopy();
    }

    /** The token of a request's params, if it carries a usable one (a string of at most 256 characters, or a 64-bit integer). */
    static Optional<ProgressToken> of(JsonNode params) {
        JsonNode token = params == null ? null : params.path("_meta").get("progressToken");
        if (token == null || !(token.isTextual() && token.textValue().length() <= MAX_LENGTH || token.isIntegralNumber()
                && token.canConvertToLong())) {
            return Optional.empty();
        }
        return Optional.of(new ProgressToken(token));
    }
}
