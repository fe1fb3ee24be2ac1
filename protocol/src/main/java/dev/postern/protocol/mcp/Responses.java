package dev.postern.protocol.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.protocol.jsonrpc.ErrorCode;
import dev.postern.protocol.jsonrpc.RequestId;
import dev.postern.protocol.tools.FixedResult;
import dev.postern.transport.FramingError;
import java.io.UncheckedIOException;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Turns results and errors into JSON-RPC response lines, and owns the era's decoration: in the
 * stateless era every result carries {@code resultType} and the server's identity in {@code _meta}.
 * Also the texts of framing errors. Stateless apart from reading the current era; callable from any thread.
 */
final class Responses {
    static final String META = "_meta";
    static final String SERVER_INFO = "io.modelcontextprotocol/serverInfo";

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private final ServerInfo info;
    private final JsonMapper writer;
    private final Supplier<Era> era;
    /** The last fixed answer rendered without and with the stateless decoration (a benign race: any thread may render it). */
    private volatile Rendered renderedHandshake;
    private volatile Rendered renderedStateless;

    Responses(ServerInfo info, JsonMapper writer, Supplier<Era> era) {
        this.info = Objects.requireNonNull(info, "info");
        this.writer = Objects.requireNonNull(writer, "writer");
        this.era = Objects.requireNonNull(era, "era");
    }

    /** A result line, decorated as the connection's era requires. */
    String result(RequestId id, ObjectNode result) {
        if (era.get() == Era.STATELESS) {
            decorate(result);
        }
        ObjectNode n = envelope(id);
        n.set("result", result);
        return write(n);
    }

    /**
     * A result line for a fixed answer: the same bytes as {@link #result(RequestId, ObjectNode)} given
     * {@code fixed.result()}, but the result, decorated for the era, is serialized once per era (by this
     * writer) and spliced after the id; per call only the id is written. The era is read per
     * call, as above, so a result is never written with another era's decoration.
     */
    String result(RequestId id, FixedResult fixed) {
        boolean stateless = era.get() == Era.STATELESS;
        Rendered rendered = stateless ? renderedStateless : renderedHandshake;
        if (rendered == null || rendered.of() != fixed) {
            ObjectNode result = fixed.result();
            if (stateless) {
                decorate(result);
            }
            rendered = new Rendered(fixed, write(result));
            if (stateless) {
                renderedStateless = rendered;
            } else {
                renderedHandshake = rendered;
            }
        }
        // The envelope as the writer would write it, spliced: "jsonrpc", the id, the result. A numeric id is
        // its decimal digits (what the writer writes for a long); a text id goes through the writer to be escaped.
        String idJson = id instanceof RequestId.Number n ? Long.toString(n.value()) : write(id.toJson());
        return "{\"jsonrpc\":\"2.0\",\"id\":" + idJson + ",\"result\":" + rendered.json() + '}';
    }

    /** The stateless era's decoration of a result: its type, and the server's identity in _meta. */
    private void decorate(ObjectNode result) {
        if (!result.has("resultType")) {
            result.put("resultType", "complete");
        }
        ObjectNode meta = result.has(META) ? (ObjectNode) result.get(META) : result.putObject(META);
        meta.set(SERVER_INFO, serverInfo());
    }

    /** A fixed answer's result as serialized for one era. */
    private record Rendered(FixedResult of, String json) {
    }

    /** A request line from Postern to the client. */
    String request(RequestId id, String method, ObjectNode params) {
        ObjectNode n = envelope(id);
        n.put("method", method);
        n.set("params", params);
        return write(n);
    }

    /** A notification line from Postern to the client. */
    String notification(String method, ObjectNode params) {
        ObjectNode n = JSON.objectNode();
        n.put("jsonrpc", "2.0");
        n.put("method", method);
        n.set("params", params);
        return write(n);
    }

    /** An error line; {@code id} null means JSON {@code null}, {@code data} null means none. */
    String error(RequestId id, ErrorCode code, String message, ObjectNode data) {
        ObjectNode n = envelope(id);
        ObjectNode error = n.putObject("error").put("code", code.code()).put("message", message);
        if (data != null) {
            error.set("data", data);
        }
        return write(n);
    }

    ObjectNode serverInfo() {
        return JSON.objectNode().put("name", info.name()).put("version", info.version());
    }

    /** The parse error's text for a frame the transport refused. */
    static String describe(FramingError e) {
        switch (e.kind()) {
            case EMPTY_LINE: return "empty line";
            case TOO_LONG: return "line exceeds the frame byte limit";
            case INVALID_UTF8: return "line is not valid UTF-8";
            case BYTE_ORDER_MARK: return "line starts with a byte order mark";
            case BARE_CR: return "carriage return not followed by line feed";
            case TRUNCATED: return "input ended inside a line";
            default: return "input could not be read";
        }
    }

    private static ObjectNode envelope(RequestId id) {
        ObjectNode n = JSON.objectNode();
        n.put("jsonrpc", "2.0");
        n.set("id", id == null ? JSON.nullNode() : id.toJson());
        return n;
    }

    private String write(JsonNode n) {
        try {
            return writer.writeValueAsString(n);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
