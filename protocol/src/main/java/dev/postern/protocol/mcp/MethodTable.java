package dev.postern.protocol.mcp;

import dev.postern.protocol.jsonrpc.JsonRpcMessage.Request;
import dev.postern.transport.Frame;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The requests a connection serves, one row per method and era: in the handshake era each method
 * with what it needs of the {@link Lifecycle}; in the stateless era each method on its own.
 * {@code server/discover} is in neither: it is served in any state. Immutable once built.
 */
final class MethodTable {
    static final String DISCOVER = "server/discover";

    /** Serves one request that passed its era's checks. */
    @FunctionalInterface
    interface Handler {
        Inbound handle(Request request, Frame frame);
    }

    /** A handshake-era method: what it needs, and who serves it. */
    record Row(Lifecycle.Needs needs, Handler handler) {
        Row {
            Objects.requireNonNull(needs, "needs");
            Objects.requireNonNull(handler, "handler");
        }
    }

    private final Map<String, Row> handshake = new LinkedHashMap<>();
    private final Map<String, Handler> stateless = new LinkedHashMap<>();

    MethodTable handshake(String method, Lifecycle.Needs needs, Handler handler) {
        handshake.put(method, new Row(needs, handler));
        return this;
    }

    MethodTable stateless(String method, Handler handler) {
        stateless.put(method, handler);
        return this;
    }

    Optional<Row> inHandshake(String method) {
        return Optional.ofNullable(handshake.get(method));
    }

    Optional<Handler> inStateless(String method) {
        return Optional.ofNullable(stateless.get(method));
    }

    /** Whether any era serves the method (for "params by position" versus "method not found"). */
    boolean knows(String method) {
        return method.equals(DISCOVER) || handshake.containsKey(method) || stateless.containsKey(method);
    }
}
