package dev.postern.protocol.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.postern.protocol.jsonrpc.RequestId;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The requests Postern itself sent the client (today only {@code elicitation/create}) that still wait
 * for a response, keyed by ids of the form {@code "postern-approval-N"}. A response is delivered to
 * the waiting call by id; a response to an id whose wait already ended (timed out, cancelled) is
 * {@link Delivery#LATE} and runs nothing; a response to an id Postern never sent is
 * {@link Delivery#UNKNOWN}, which ends the session (DESIGN §5). Thread-safe.
 */
public final class ServerRequests {
    /** How many ended waits are remembered, so a late answer is told apart from a forged one. */
    static final int REMEMBERED_ENDED = 1024;
    private static final String PREFIX = "postern-approval-";

    private final AtomicLong counter = new AtomicLong();
    private final Map<RequestId, CompletableFuture<Reply>> open = new ConcurrentHashMap<>();
    private final Set<RequestId> ended = new LinkedHashSet<>();

    /** The client's response: exactly one of a result or an error object. */
    public record Reply(Optional<JsonNode> result, Optional<JsonNode> error) {
        public Reply {
            Objects.requireNonNull(result, "result");
            Objects.requireNonNull(error, "error");
            if (result.isPresent() == error.isPresent()) {
                throw new IllegalArgumentException("a reply has a result or an error, not both or neither");
            }
        }
    }

    /** One sent request: its id and where its reply arrives. */
    public record Pending(RequestId id, CompletableFuture<Reply> reply) {
        public Pending {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(reply, "reply");
        }
    }

    /** What became of a response the client sent. */
    public enum Delivery {
        /** Handed to the call that waits for it. */
        DELIVERED,
        /** Its wait had ended (timeout, cancellation, end of session): nothing runs. */
        LATE,
        /** Postern never sent a request with this id. */
        UNKNOWN
    }

    /** Opens a new request id; the caller sends the request, then waits on {@link Pending#reply()}. */
    public Pending open() {
        RequestId id = new RequestId.Text(PREFIX + counter.incrementAndGet());
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        open.put(id, reply);
        return new Pending(id, reply);
    }

    /** Delivers the client's response for {@code id}. */
    public Delivery deliver(RequestId id, Reply reply) {
        Objects.requireNonNull(reply, "reply");
        CompletableFuture<Reply> waiting = open.remove(id);
        if (waiting != null) {
            remember(id);
            waiting.complete(reply);
            return Delivery.DELIVERED;
        }
        synchronized (ended) {
            return ended.contains(id) ? Delivery.LATE : Delivery.UNKNOWN;
        }
    }

    /** Ends the wait for {@code id} (timeout, cancellation): a response that still comes is late. */
    public void end(RequestId id) {
        CompletableFuture<Reply> waiting = open.remove(id);
        if (waiting != null) {
            remember(id);
            waiting.cancel(false);
        }
    }

    /** Ends every wait: the session is over, no response can come. */
    public void endAll() {
        open.keySet().forEach(this::end);
    }

    /** How many requests wait for a response now. */
    public int waiting() {
        return open.size();
    }

    private void remember(RequestId id) {
        synchronized (ended) {
            ended.add(id);
            if (ended.size() > REMEMBERED_ENDED) {
                Iterator<RequestId> oldest = ended.iterator();
                oldest.next();
                oldest.remove();
            }
        }
    }
}
