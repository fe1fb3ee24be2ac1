package dev.postern.protocol.approval;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;
import java.util.Optional;

/**
 * How a tool call's client can be asked to approve an action, as the protocol layer found it: by a
 * server-sent {@code elicitation/create} (handshake era, capability declared at {@code initialize}),
 * not at all, or through the stateless era's {@code input_required} round trip with what this
 * request carried back. Immutable.
 */
public sealed interface ApprovalRoute {

    /**
     * Handshake era, the client declared form elicitation; {@code withMode} for 2025-11-25 and later;
     * {@code url} when it also declared URL-mode elicitation (2025-11-25).
     */
    record Elicit(boolean withMode, boolean url) implements ApprovalRoute {
        public Elicit(boolean withMode) {
            this(withMode, false);
        }
    }

    /** Handshake era, 2025-11-25: the client declared URL-mode elicitation and not form. */
    record UrlOnly() implements ApprovalRoute {
    }

    /** No human can be asked on this connection; {@code why} says so to the agent. */
    record Unable(String why) implements ApprovalRoute {
        public Unable {
            Objects.requireNonNull(why, "why");
        }
    }

    /**
     * Stateless era: whether this request's {@code clientCapabilities} declare form elicitation, and
     * the {@code inputResponses} and {@code requestState} it carried (both absent on a first call).
     */
    record Stateless(boolean canElicit, boolean canUrl, Optional<JsonNode> inputResponses, Optional<String> requestState)
            implements ApprovalRoute {
        public Stateless {
            Objects.requireNonNull(inputResponses, "inputResponses");
            Objects.requireNonNull(requestState, "requestState");
        }

        /** A request that declared no URL-mode elicitation. */
        public Stateless(boolean canElicit, Optional<JsonNode> inputResponses, Optional<String> requestState) {
            this(canElicit, false, inputResponses, requestState);
        }

        /** A first call: nothing carried back yet. */
        public boolean first() {
            return inputResponses.isEmpty() && requestState.isEmpty();
        }
    }

    /** Whether {@code capabilities} declare URL-mode elicitation ({@code elicitation.url}, 2025-11-25 and later). */
    static boolean urlElicitation(JsonNode capabilities) {
        return capabilities != null && capabilities.path("elicitation").path("url").isObject();
    }

    /**
     * Whether {@code capabilities} (a client's capabilities object) declare form-mode elicitation: an
     * {@code elicitation} object with {@code form}, or with neither {@code form} nor {@code url} (the
     * 2025-06-18 shape, which means form).
     */
    static boolean formElicitation(JsonNode capabilities) {
        if (capabilities == null) {
            return false;
        }
        JsonNode e = capabilities.get("elicitation");
        if (e == null || !e.isObject()) {
            return false;
        }
        return e.path("form").isObject() || (!e.has("form") && !e.has("url"));
    }
}
