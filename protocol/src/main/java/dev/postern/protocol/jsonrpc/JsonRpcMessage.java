package dev.postern.protocol.jsonrpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;
import java.util.Optional;

/** An inbound JSON-RPC message that passed the shape rules: a request or a notification. */
public sealed interface JsonRpcMessage {

    String method();

    /** The by-name params object; empty when absent or given by position. */
    Optional<ObjectNode> params();

    /**
     * True when params came as an array. JSON-RPC allows that; no MCP method does, so the MCP layer
     * answers such a request with -32602 and the session continues.
     */
    boolean paramsByPosition();

    record Request(RequestId id, String method, Optional<ObjectNode> params, boolean paramsByPosition) implements JsonRpcMessage {
        public Request {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(method, "method");
            Objects.requireNonNull(params, "params");
            if (paramsByPosition && params.isPresent()) {
                throw new IllegalArgumentException("params are by name or by position, not both");
            }
        }
    }

    record Notification(String method, Optional<ObjectNode> params, boolean paramsByPosition) implements JsonRpcMessage {
        public Notification {
            Objects.requireNonNull(method, "method");
            Objects.requireNonNull(params, "params");
            if (paramsByPosition && params.isPresent()) {
                throw new IllegalArgumentException("params are by name or by position, not both");
            }
        }
    }

    /** Reads the shape of one parsed value; the exception says which rule it broke. */
    static JsonRpcMessage classify(JsonNode value) throws InvalidRequest {
        if (!value.isObject()) {
            throw new InvalidRequest(value.isArray() ? "batch arrays are not accepted in this session" : "a message must be a JSON object");
        }
        JsonNode version = value.get("jsonrpc");
        if (version == null || !version.isTextual() || !version.textValue().equals("2.0")) {
            throw new InvalidRequest("\"jsonrpc\" must be the string \"2.0\"");
        }
        var names = value.fieldNames();
        while (names.hasNext()) {
            String n = names.next();
            if (!n.equals("jsonrpc") && !n.equals("id") && !n.equals("method") && !n.equals("params")
                    && !n.equals("result") && !n.equals("error")) {
                throw new InvalidRequest("unknown member \"" + n + "\"");
            }
        }
        JsonNode method = value.get("method");
        if (method == null) {
            if (value.has("result") || value.has("error")) {
                throw new InvalidRequest("a response to a request Postern never sent");
            }
            throw new InvalidRequest("a request needs a \"method\"");
        }
        if (value.has("result") || value.has("error")) {
            throw new InvalidRequest("a request must not carry \"result\" or \"error\"");
        }
        if (!method.isTextual() || method.textValue().isEmpty()) {
            throw new InvalidRequest("\"method\" must be a non-empty string");
        }
        JsonNode params = value.get("params");
        Optional<ObjectNode> p = Optional.empty();
        boolean byPosition = false;
        if (params != null) {
            if (params.isObject()) {
                p = Optional.of((ObjectNode) params);
            } else if (params.isArray()) {
                byPosition = true;
            } else {
                throw new InvalidRequest("\"params\" must be an object or an array");
            }
        }
        JsonNode id = value.get("id");
        if (id == null) {
            return new Notification(method.textValue(), p, byPosition);
        }
        Optional<RequestId> rid = RequestId.of(id);
        if (rid.isEmpty()) {
            throw new InvalidRequest("\"id\" must be a string or an integer");
        }
        return new Request(rid.get(), method.textValue(), p, byPosition);
    }

    /** Valid JSON that is not a valid JSON-RPC 2.0 message (-32600). */
    final class InvalidRequest extends Exception {
        private static final long serialVersionUID = 1L;

        public InvalidRequest(String message) {
            super(message);
        }
    }
}
