package dev.postern.protocol.jsonrpc;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;
import java.util.Optional;

/**
 * An inbound JSON-RPC response: the client answering a request Postern sent it (an
 * {@code elicitation/create}). It has an id of Postern's, and exactly one of a result or an error
 * object with an integer {@code code} and a string {@code message}; nothing else.
 */
public record JsonRpcResponse(RequestId id, Optional<JsonNode> result, Optional<JsonNode> error) {

    public JsonRpcResponse {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(result, "result");
        Objects.requireNonNull(error, "error");
        if (result.isPresent() == error.isPresent()) {
            throw new IllegalArgumentException("a response carries a result or an error, not both or neither");
        }
    }

    /** Whether {@code value} is shaped as a response rather than a request: no method, a result or an error. */
    public static boolean looksLikeOne(JsonNode value) {
        return value.isObject() && !value.has("method") && (value.has("result") || value.has("error"));
    }

    /** Reads a value that {@link #looksLikeOne looks like a response}; the exception says which rule it broke. */
    public static JsonRpcResponse read(JsonNode value) throws JsonRpcMessage.InvalidRequest {
        JsonNode version = value.get("jsonrpc");
        if (version == null || !version.isTextual() || !version.textValue().equals("2.0")) {
            throw new JsonRpcMessage.InvalidRequest("\"jsonrpc\" must be the string \"2.0\"");
        }
        var names = value.fieldNames();
        while (names.hasNext()) {
            String n = names.next();
            if (!n.equals("jsonrpc") && !n.equals("id") && !n.equals("result") && !n.equals("error")) {
                throw new JsonRpcMessage.InvalidRequest("a response must not carry \"" + n + '"');
            }
        }
        if (value.has("result") && value.has("error")) {
            throw new JsonRpcMessage.InvalidRequest("a response carries \"result\" or \"error\", not both");
        }
        JsonNode id = value.get("id");
        Optional<RequestId> rid = id == null ? Optional.empty() : RequestId.of(id);
        if (rid.isEmpty()) {
            throw new JsonRpcMessage.InvalidRequest("a response to a request Postern never sent (its id is "
                    + (id == null ? "missing" : id.getNodeType().name().toLowerCase(java.util.Locale.ROOT)) + ')');
        }
        if (value.has("error")) {
            JsonNode error = value.get("error");
            if (!error.isObject() || !error.path("code").isIntegralNumber() || !error.path("message").isTextual()) {
                throw new JsonRpcMessage.InvalidRequest("\"error\" must be an object with an integer code and a string message");
            }
            return new JsonRpcResponse(rid.get(), Optional.empty(), Optional.of(error));
        }
        return new JsonRpcResponse(rid.get(), Optional.of(value.get("result")), Optional.empty());
    }
}
