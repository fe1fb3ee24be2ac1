package dev.postern.app;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.port.Cancellation;
import dev.postern.protocol.mcp.McpServer;
import dev.postern.protocol.mcp.ServerRequests;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A session's approval round trip with its client: an {@code elicitation/create} request put to the
 * client while the call waits, the answer matched by id, and the question withdrawn when the wait ends
 * some other way (timeout, the call's cancellation, end of input, or a held action answered on the page
 * or the terminal). What the answer means is the caller's ({@link Approvals}); the bounds on how many
 * calls may wait are the session's. Thread-safe: each call's worker asks its own question.
 */
final class ClientQuestions {
    private final McpServer mcp;
    private final SessionOutput output;
    private final CompletableFuture<Void> inputEnded;

    ClientQuestions(McpServer mcp, SessionOutput output, CompletableFuture<Void> inputEnded) {
        this.mcp = Objects.requireNonNull(mcp, "mcp");
        this.output = Objects.requireNonNull(output, "output");
        this.inputEnded = Objects.requireNonNull(inputEnded, "inputEnded");
    }

    /**
     * Puts one approval question to the client and waits for the answer, the timeout, the call's
     * cancellation or the end of input. Runs on the call's worker, which has given its admitted place
     * back for a waiting one (StdioSession's {@code Place}).
     */
    Approvals.Asked ask(ObjectNode params, Duration timeout, Cancellation cancellation) {
        ServerRequests.Pending pending = mcp.serverRequests().open();
        cancellation.onCancel(() -> pending.reply().cancel(false));
        try {
            output.write(mcp.renderServerRequest(pending.id(), "elicitation/create", params));
            return new Approvals.Asked.Replied(pending.reply().get(timeout.toMillis(), TimeUnit.MILLISECONDS));
        } catch (TimeoutException e) {
            mcp.serverRequests().end(pending.id());
            output.write(mcp.renderCancelServerRequest(pending.id(), "Postern waited " + timeout.toSeconds() + " s; the call ended unapproved"));
            return new Approvals.Asked.TimedOut();
        } catch (CancellationException e) {
            mcp.serverRequests().end(pending.id());
            return cancellation.isCancelled() ? new Approvals.Asked.Cancelled() : new Approvals.Asked.Ended();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            mcp.serverRequests().end(pending.id());
            return new Approvals.Asked.Ended();
        } catch (ExecutionException e) {
            throw new IllegalStateException("an answer future never fails", e);
        }
    }

    /**
     * Waits for a held action ({@code local}), as {@link #ask} waits, putting {@code question} to the client meanwhile when present: its reply ends the wait only
     * when {@code replyEnds}. When {@code local} completes first, an unanswered question is withdrawn
     * (URL mode: {@code notifications/elicitation/complete}; form: {@code notifications/cancelled}).
     * End of input ends the wait.
     */
    Approvals.Asked await(Optional<ObjectNode> question, boolean replyEnds, CompletableFuture<?> local,
            Duration timeout, Cancellation cancellation) {
        CompletableFuture<Object> stop = new CompletableFuture<>();
        local.whenComplete((v, e) -> stop.complete(LOCAL));
        cancellation.onCancel(() -> stop.complete(CANCELLED));
        inputEnded.whenComplete((v, e) -> stop.complete(ENDED));
        ServerRequests.Pending pending = question.isPresent() ? mcp.serverRequests().open() : null;
        if (pending != null) {
            pending.reply().whenComplete((reply, e) -> {
                if (e == null && replyEnds) {
                    stop.complete(reply);
                } else if (e != null) {
                    stop.complete(ENDED);
                }
            });
            output.write(mcp.renderServerRequest(pending.id(), "elicitation/create", question.get()));
        }
        Object why;
        try {
            why = stop.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            why = TIMED_OUT;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            why = ENDED;
        } catch (ExecutionException e) {
            throw new IllegalStateException("a stop signal never fails", e);
        }
        if (pending != null && !(why instanceof ServerRequests.Reply)) {
            boolean unanswered = !pending.reply().isDone();
            mcp.serverRequests().end(pending.id());
            if (why != ENDED && question.get().path("mode").asText().equals("url")) {
                output.write(mcp.renderElicitationComplete(question.get().get("elicitationId").asText()));
            } else if (unanswered && why != ENDED) {
                output.write(mcp.renderCancelServerRequest(pending.id(), "Postern no longer waits for this answer"));
            }
        }
        if (why instanceof ServerRequests.Reply reply) {
            return new Approvals.Asked.Replied(reply);
        }
        return why == LOCAL ? new Approvals.Asked.Settled() : why == CANCELLED ? new Approvals.Asked.Cancelled()
                : why == TIMED_OUT ? new Approvals.Asked.TimedOut() : new Approvals.Asked.Ended();
    }

    private static final Object LOCAL = "local";
    private static final Object CANCELLED = "cancelled";
    private static final Object ENDED = "ended";
    private static final Object TIMED_OUT = "timed out";
}
