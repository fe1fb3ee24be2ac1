package dev.postern.protocol.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Optional;

/**
 * The params checks of each method, apart from the methods: each returns the first problem, worded
 * as the client sees it, or empty when the params are acceptable. Stateless.
 */
final class Params {

    private Params() {
    }

    /** {@code initialize}: protocolVersion, capabilities and clientInfo {name, version}. */
    static Optional<String> ofInitialize(ObjectNode p) {
        return Optional.ofNullable(p == null ? "params are required"
                : !textual(p, "protocolVersion") ? "params.protocolVersion must be a string"
                : !p.path("capabilities").isObject() ? "params.capabilities must be an object"
                : !p.path("clientInfo").isObject() || !textual(p.get("clientInfo"), "name") || !textual(p.get("clientInfo"), "version")
                        ? "params.clientInfo must be an object with string name and version"
                : null);
    }

    /** {@code tools/list}: nothing but a string cursor and {@code _meta}, judged member by member in order. */
    static Optional<String> ofToolsList(Optional<ObjectNode> p) {
        if (p.isEmpty()) {
            return Optional.empty();
        }
        Iterator<String> names = p.get().fieldNames();
        while (names.hasNext()) {
            String n = names.next();
            if (n.equals("cursor") && !p.get().get(n).isTextual()) {
                return Optional.of("params.cursor must be a string");
            }
            if (!n.equals("cursor") && !n.equals(Responses.META)) {
                return Optional.of("unknown params member " + n);
            }
        }
        return Optional.empty();
    }

    /**
     * {@code tools/call}; in the stateless era ({@code retry}) also the multi round-trip members
     * {@code inputResponses} (an object) and {@code requestState} (a string).
     */
    static Optional<String> ofToolsCall(ObjectNode p, boolean retry) {
        if (p == null || !textual(p, "name")) {
            return Optional.of("params.name must be a string");
        }
        Iterator<String> names = p.fieldNames();
        while (names.hasNext()) {
            String n = names.next();
            boolean retryMember = retry && (n.equals(INPUT_RESPONSES) || n.equals(REQUEST_STATE));
            if (!n.equals("name") && !n.equals("arguments") && !n.equals(Responses.META) && !retryMember) {
                return Optional.of("unknown params member " + n);
            }
        }
        if (p.has("arguments") && !p.get("arguments").isObject()) {
            return Optional.of("params.arguments must be an object");
        }
        if (p.has(INPUT_RESPONSES) && !p.get(INPUT_RESPONSES).isObject()) {
            return Optional.of("params.inputResponses must be an object");
        }
        if (p.has(REQUEST_STATE) && !p.get(REQUEST_STATE).isTextual()) {
            return Optional.of("params.requestState must be a string");
        }
        return Optional.empty();
    }

    static final String INPUT_RESPONSES = "inputResponses";
    static final String REQUEST_STATE = "requestState";

    static boolean textual(JsonNode n, String field) {
        return n.path(field).isTextual();
    }
}
