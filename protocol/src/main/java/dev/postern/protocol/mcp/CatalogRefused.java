package dev.postern.protocol.mcp;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;
import java.util.Optional;

/**
 * Thrown by a session's catalog supplier when there is no catalog to serve and never will be (the
 * gateway's config turned out invalid): the session ends. {@link McpServer} adds the one error line
 * ({@code CONFIG_INVALID}) that answers the request it was serving, so the client can show why.
 */
public class CatalogRefused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient ObjectNode data;
    private final String answer;

    /** A refusal whose {@code message} the client is shown, with {@code data} (say, the file and its problems) beside it. */
    public CatalogRefused(String message, ObjectNode data) {
        this(message, data, null);
    }

    private CatalogRefused(String message, ObjectNode data, String answer) {
        super(Objects.requireNonNull(message, "message"), null, false, false);
        this.data = Objects.requireNonNull(data, "data").deepCopy();
        this.answer = answer;
    }

    /** What the client is told beside the message. */
    public ObjectNode data() {
        return data.deepCopy();
    }

    /** The error line answering the request being served when the refusal came, if one was. */
    public Optional<String> answer() {
        return Optional.ofNullable(answer);
    }

    /** This refusal, carrying {@code line} as the answer to the request it interrupted. */
    CatalogRefused answering(String line) {
        return new CatalogRefused(getMessage(), data, Objects.requireNonNull(line, "line"));
    }
}
