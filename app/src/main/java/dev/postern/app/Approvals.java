package dev.postern.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.ApprovalFailure;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.Decision;
import dev.postern.policy.HumanApproval;
import dev.postern.policy.PendingApproval;
import dev.postern.policy.port.ApprovalRecord;
import dev.postern.policy.port.ApprovalRecord.Channel;
import dev.postern.policy.port.AuditJournal;
import dev.postern.policy.port.Cancellation;
import dev.postern.protocol.approval.ApprovalForm;
import dev.postern.protocol.approval.ApprovalRoute;
import dev.postern.protocol.approval.RequestStateCodec;
import dev.postern.protocol.mcp.ServerRequests;
import dev.postern.app.config.ApprovalChannel;
import dev.postern.app.config.ApprovalChannels;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The approval step of a tool call whose decision is {@link Decision.ApprovalRequired} (DESIGN §5,
 * "Approval"): asks a human through the route the protocol layer found and turns the answer into the
 * permit (only for an explicit approval of exactly that action) or into a final denial with an
 * {@code approval.*} rule; every question and answer goes to the decisions journal. Which channel
 * may answer is the rule's ({@link ApprovalChannels}): the client's own elicitation, exactly as before
 * channels existed ({@code client}); the page and the terminal through {@link LocalApprovals}, the
 * client at most told the page's URL ({@code local}); or the first of both ({@code any}). Nothing is
 * remembered between calls except the stateless era's used requestStates and, in URL mode, the held
 * action each unexpired requestState waits on. Thread-safe.
 */
final class Approvals {
    /** The key of Postern's one entry in {@code inputRequests} and {@code inputResponses}. */
    static final String INPUT_KEY = "approval";

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private final RequestStateCodec states;
    private final Duration timeout;
    private final AuditJournal journal;
    private final ApprovalChannels channels;
    private final Optional<Local> local;
    /** Stateless era, URL mode: the held action each minted requestState waits on. */
    private final Map<String, LocalApprovals.Held> byState = new ConcurrentHashMap<>();

    /** Approvals only the client's own elicitation answers (the {@code client} channel), as before channels existed. */
    Approvals(RequestStateCodec states, Duration timeout, AuditJournal journal) {
        this(states, timeout, journal, ApprovalChannels.only(ApprovalChannel.CLIENT), Optional.empty());
    }

    /** Approvals answered by {@code channels}; {@code local} holds the actions the page and the terminal may answer. */
    Approvals(RequestStateCodec states, Duration timeout, AuditJournal journal, ApprovalChannels channels, Optional<Local> local) {
        this.states = Objects.requireNonNull(states, "states");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.journal = Objects.requireNonNull(journal, "journal");
        this.channels = Objects.requireNonNull(channels, "channels");
        this.local = Objects.requireNonNull(local, "local");
    }

    /** The channels Postern owns: its held actions, their page, and where the one-line notice of each goes. */
    record Local(LocalApprovals held, ApprovalPage page, PrintStream diagnostics) {
        Local {
            Objects.requireNonNull(held, "held");
            Objects.requireNonNull(page, "page");
            Objects.requireNonNull(diagnostics, "diagnostics");
        }
    }

    /** Sends a handshake-era client {@code elicitation/create} and waits for its answer. */
    interface Elicitor {
        Asked ask(ObjectNode params, Duration timeout, Cancellation cancellation);

        /**
         * Waits until {@code local} completes (a held action answered, expired or withdrawn), sending the
         * client {@code question} meanwhile when present; the client's reply to it ends the wait (as
         * {@link Asked.Replied}) only when {@code replyEnds}, else it is read and the wait goes on. When
         * {@code local} completes first, {@link Asked.Settled} is returned and an unanswered question is
         * withdrawn ({@code notifications/elicitation/complete} for a URL-mode one, else
         * {@code notifications/cancelled}). This default asks no client.
         */
        default Asked await(Optional<ObjectNode> question, boolean replyEnds, CompletableFuture<?> local, Duration timeout,
                            Cancellation cancellation) {
            CompletableFuture<Object> stop = new CompletableFuture<>();
            local.whenComplete((v, e) -> stop.complete(Boolean.TRUE));
            cancellation.onCancel(() -> stop.complete(Boolean.FALSE));
            try {
                return Boolean.TRUE.equals(stop.get(timeout.toMillis(), TimeUnit.MILLISECONDS)) ? new Asked.Settled() : new Asked.Cancelled();
            } catch (TimeoutException e) {
                return new Asked.TimedOut();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Asked.Ended();
            } catch (ExecutionException e) {
                throw new IllegalStateException("a stop signal never fails", e);
            }
        }
    }

    /** What became of one question sent to the client. */
    sealed interface Asked {
        record Replied(ServerRequests.Reply reply) implements Asked {
            public Replied {
                Objects.requireNonNull(reply, "reply");
            }
        }

        record TimedOut() implements Asked {
        }

        record Cancelled() implements Asked {
        }

        /** The client's input ended (or the session is stopping) before an answer came. */
        record Ended() implements Asked {
        }

        /** A held action's answer came (through the page or the terminal) or it expired, before the client answered. */
        record Settled() implements Asked {
        }

        /** The question could not be put; {@code why} says so. */
        record Unavailable(String why) implements Asked {
            public Unavailable {
                Objects.requireNonNull(why, "why");
            }
        }
    }

    /** Where the approval step leaves the call. */
    sealed interface Step {
        /** Approved: run this permit (exactly once). */
        record Granted(AuthorizedAction permit) implements Step {
            public Granted {
                Objects.requireNonNull(permit, "permit");
            }
        }

        /** Not approved: answer with this denial; nothing runs. */
        record Refused(Decision.Deny deny) implements Step {
            public Refused {
                Objects.requireNonNull(deny, "deny");
            }
        }

        /** Stateless era, first call: answer {@code input_required} with this question and state; nothing runs. */
        record InputRequired(ObjectNode inputRequests, String requestState) implements Step {
            public InputRequired {
                Objects.requireNonNull(inputRequests, "inputRequests");
                Objects.requireNonNull(requestState, "requestState");
            }
        }

        /** Stateless era, the request declared no form elicitation: answer {@code -32021}; nothing runs. */
        record CapabilityMissing(ObjectNode requiredCapabilities) implements Step {
            public CapabilityMissing {
                Objects.requireNonNull(requiredCapabilities, "requiredCapabilities");
            }
        }
    }

    /** How long a human may take, and a stateless approval stays valid. */
    Duration timeout() {
        return timeout;
    }

    /** Settles one pending approval for a call of {@code tool}; blocks while a handshake-era human decides. */
    Step settle(PendingApproval pending, String tool, ApprovalRoute route, Elicitor elicitor, Cancellation cancellation,
                String frameSha256) {
        return settle(pending, tool, "an MCP client", route, elicitor, cancellation, frameSha256);
    }

    /**
     * As above, for a call from the client named {@code client}: through the client's elicitation where
     * the rule's channel is {@code client} (or no local channel exists), else through the page and the
     * terminal, racing the client's form question under {@code any} in the handshake era.
     */
    Step settle(PendingApproval pending, String tool, String client, ApprovalRoute route, Elicitor elicitor,
                Cancellation cancellation, String frameSha256) {
        ApprovalChannel channel = channels.of(pending.rule());
        if (!channel.local() || local.isEmpty()) {
            return byClient(pending, tool, route, elicitor, cancellation, frameSha256);
        }
        if (route instanceof ApprovalRoute.Stateless stateless) {
            if (channel == ApprovalChannel.ANY && stateless.canElicit()) {
                // No gateway state spans the two requests of a stateless round trip: the client's form answers.
                return stateless(pending, tool, stateless, frameSha256);
            }
            if (stateless.canUrl() && (stateless.first() || stateless.requestState().isPresent())) {
                return statelessUrl(pending, tool, client, stateless, elicitor, cancellation, frameSha256);
            }
            return held(pending, tool, client, false, elicitor, cancellation, frameSha256);
        }
        if (route instanceof ApprovalRoute.Elicit elicit && channel == ApprovalChannel.ANY) {
            return race(pending, tool, client, elicit, elicitor, cancellation, frameSha256);
        }
        boolean url = route instanceof ApprovalRoute.UrlOnly || route instanceof ApprovalRoute.Elicit e && e.url();
        return held(pending, tool, client, url, elicitor, cancellation, frameSha256);
    }

    private Step byClient(PendingApproval pending, String tool, ApprovalRoute route, Elicitor elicitor, Cancellation cancellation,
                          String frameSha256) {
        if (route instanceof ApprovalRoute.UrlOnly) {
            route = new ApprovalRoute.Unable("the client did not declare the elicitation capability (form) at initialize,"
                    + " so Postern cannot ask a human");
        }
        if (route instanceof ApprovalRoute.Unable unable) {
            return refuse(pending, Channel.NONE, ApprovalFailure.UNSUPPORTED, "unsupported", unable.why(), frameSha256);
        }
        if (route instanceof ApprovalRoute.Elicit elicit) {
            return elicit(pending, tool, elicit, elicitor, cancellation, frameSha256);
        }
        return stateless(pending, tool, (ApprovalRoute.Stateless) route, frameSha256);
    }

    /** Holds the action for the page and the terminal, and says so on stderr in one line. */
    private LocalApprovals.Held hold(PendingApproval pending, String tool, String client, String frameSha256) {
        Local l = local.get();
        LocalApprovals.Held held = l.held().open(new LocalApprovals.Shown(tool, pending.rule(), client,
                ApprovalForm.message(pending, tool), pending.digest()), timeout);
        journal.approval(ApprovalRecord.asked(pending.rule(), pending.digest(), Channel.LOCAL, frameSha256));
        l.diagnostics().println("postern: approval needed: " + l.page().url(held) + " (rule " + pending.rule() + ", tool " + tool
                + "; or in a terminal: postern approvals approve " + held.id() + "; expires in " + timeout.toSeconds() + " s)");
        return held;
    }

    /**
     * Waits for the page or the terminal, telling a client that declared URL mode where the page is
     * ({@code url}); its reply to that question approves nothing.
     */
    private Step held(PendingApproval pending, String tool, String client, boolean url, Elicitor elicitor,
                      Cancellation cancellation, String frameSha256) {
        LocalApprovals.Held held = hold(pending, tool, client, frameSha256);
        Optional<ObjectNode> question = url ? Optional.of(urlQuestion(pending, tool, held)) : Optional.empty();
        Asked asked = elicitor.await(question, false, held.answer(), timeout, cancellation);
        return afterHeld(pending, held, asked, frameSha256);
    }

    /** Under {@code any}, handshake era: the client's form question and the page race; the first answer counts. */
    private Step race(PendingApproval pending, String tool, String client, ApprovalRoute.Elicit route, Elicitor elicitor,
                      Cancellation cancellation, String frameSha256) {
        LocalApprovals.Held held = hold(pending, tool, client, frameSha256);
        journal.approval(ApprovalRecord.asked(pending.rule(), pending.digest(), Channel.CLIENT, frameSha256));
        Asked asked = elicitor.await(Optional.of(ApprovalForm.params(pending, tool, route.withMode())), true, held.answer(), timeout,
                cancellation);
        if (asked instanceof Asked.Replied replied) {
            // The client answered first: the page and the terminal can no longer.
            if (!local.get().held().claim(held)) {
                return afterHeld(pending, held, new Asked.Settled(), frameSha256);
            }
            return answeredByClient(pending, replied.reply(), frameSha256);
        }
        return afterHeld(pending, held, asked, frameSha256);
    }

    private Step afterHeld(PendingApproval pending, LocalApprovals.Held held, Asked asked, String frameSha256) {
        local.get().held().withdraw(held);
        Optional<LocalApprovals.Answer> answer = held.answer().getNow(Optional.empty());
        if (answer.isPresent()) {
            Channel via = answer.get().channel();
            if (answer.get().approved()) {
                journal.approval(ApprovalRecord.answered(pending.rule(), pending.digest(), via, "approved", "approved", frameSha256));
                return new Step.Granted(pending.grant(new HumanApproval(pending.digest(), via.name().toLowerCase(Locale.ROOT))).permit());
            }
            return refuse(pending, via, ApprovalFailure.DECLINED, "denied",
                    "the human denied this action on the " + (via == Channel.PAGE ? "approval page" : "terminal") + "; nothing ran",
                    frameSha256);
        }
        if (asked instanceof Asked.Cancelled) {
            return refuse(pending, Channel.LOCAL, ApprovalFailure.DECLINED, "cancelled",
                    "the call was cancelled while it waited for a human; nothing ran", frameSha256);
        }
        if (asked instanceof Asked.Ended) {
            return refuse(pending, Channel.LOCAL, ApprovalFailure.TIMEOUT, "input-ended",
                    "the client's input ended before a human answered; nothing ran", frameSha256);
        }
        if (asked instanceof Asked.Unavailable unavailable) {
            return refuse(pending, Channel.LOCAL, ApprovalFailure.UNSUPPORTED, "busy", unavailable.why() + "; nothing ran", frameSha256);
        }
        return refuse(pending, Channel.LOCAL, ApprovalFailure.TIMEOUT, "timeout",
                "no answer from a human within " + timeout.toSeconds() + " s; nothing ran", frameSha256);
    }

    /** Stateless era, URL mode: the first call answers input_required with the page's URL; the retry waits for the page. */
    private Step statelessUrl(PendingApproval pending, String tool, String client, ApprovalRoute.Stateless route, Elicitor elicitor,
                              Cancellation cancellation, String frameSha256) {
        if (route.first()) {
            LocalApprovals.Held held = hold(pending, tool, client, frameSha256);
            ObjectNode inputRequests = JSON.objectNode();
            ObjectNode request = inputRequests.putObject(INPUT_KEY);
            request.put("method", "elicitation/create");
            request.set("params", urlQuestion(pending, tool, held));
            String state = states.mint(tool, pending.digest());
            byState.values().removeIf(h -> h.expiry().isBefore(java.time.Instant.now()));
            byState.put(state, held);
            // An answered action waits for the retry (the state expires with it); an expired one is forgotten.
            held.answer().thenAccept(a -> {
                if (a.isEmpty()) {
                    byState.remove(state);
                }
            });
            return new Step.InputRequired(inputRequests, state);
        }
        String state = route.requestState().get();
        RequestStateCodec.Redemption redemption = states.redeem(state, tool, pending.digest());
        if (redemption instanceof RequestStateCodec.Redemption.Refused refused) {
            return refuse(pending, Channel.LOCAL, ApprovalFailure.INVALID,
                    "request-state-" + refused.problem().name().toLowerCase(Locale.ROOT).replace('_', '-'),
                    "the requestState is not a valid, unused, unexpired approval of this exact action ("
                            + describe(refused.problem()) + "); nothing ran", frameSha256);
        }
        LocalApprovals.Held held = byState.remove(state);
        if (held == null) {
            return refuse(pending, Channel.LOCAL, ApprovalFailure.TIMEOUT, "expired",
                    "the approval expired before the retry; nothing ran", frameSha256);
        }
        Asked asked = held.answer().isDone() ? new Asked.Settled()
                : elicitor.await(Optional.empty(), false, held.answer(), timeout, cancellation);
        return afterHeld(pending, held, asked, frameSha256);
    }

    /** URL-mode {@code elicitation/create} params sending the human to {@code held}'s page. */
    private ObjectNode urlQuestion(PendingApproval pending, String tool, LocalApprovals.Held held) {
        ObjectNode params = JSON.objectNode();
        params.put("mode", "url");
        params.put("message", "Postern asks you to approve or deny one action (" + pending.reason() + ", tool " + tool
                + ") on its local approval page; it expires in " + timeout.toSeconds() + " s.");
        params.put("url", local.get().page().url(held));
        params.put("elicitationId", "postern-" + held.id());
        return params;
    }

    private Step elicit(PendingApproval pending, String tool, ApprovalRoute.Elicit route, Elicitor elicitor,
                        Cancellation cancellation, String frameSha256) {
        journal.approval(ApprovalRecord.asked(pending.rule(), pending.digest(), Channel.CLIENT, frameSha256));
        Asked asked = elicitor.ask(ApprovalForm.params(pending, tool, route.withMode()), timeout, cancellation);
        if (asked instanceof Asked.TimedOut) {
            return refuse(pending, Channel.CLIENT, ApprovalFailure.TIMEOUT, "timeout",
                    "no answer from a human within " + timeout.toSeconds() + " s; nothing ran", frameSha256);
        }
        if (asked instanceof Asked.Ended) {
            return refuse(pending, Channel.CLIENT, ApprovalFailure.TIMEOUT, "input-ended",
                    "the client's input ended before a human answered; nothing ran", frameSha256);
        }
        if (asked instanceof Asked.Unavailable unavailable) {
            return refuse(pending, Channel.CLIENT, ApprovalFailure.UNSUPPORTED, "busy",
                    unavailable.why() + "; nothing ran", frameSha256);
        }
        if (asked instanceof Asked.Cancelled) {
            return refuse(pending, Channel.CLIENT, ApprovalFailure.DECLINED, "cancelled",
                    "the call was cancelled while it waited for a human; nothing ran", frameSha256);
        }
        return answeredByClient(pending, ((Asked.Replied) asked).reply(), frameSha256);
    }

    private Step answeredByClient(PendingApproval pending, ServerRequests.Reply reply, String frameSha256) {
        if (reply.error().isPresent()) {
            JsonNode code = reply.error().get().path("code");
            return refuse(pending, Channel.CLIENT, ApprovalFailure.INVALID, "client-error",
                    "the client answered the question with error " + (code.isInt() ? code.intValue() : "(no code)")
                            + "; nothing ran", frameSha256);
        }
        return judge(pending, reply.result().get(), Channel.CLIENT, frameSha256);
    }

    private Step stateless(PendingApproval pending, String tool, ApprovalRoute.Stateless route, String frameSha256) {
        if (!route.canElicit()) {
            ObjectNode required = JSON.objectNode();
            required.putObject("elicitation").putObject("form");
            journal.approval(ApprovalRecord.answered(pending.rule(), pending.digest(), Channel.CLIENT,
                    ApprovalFailure.UNSUPPORTED.rule(), "missing-capability", frameSha256));
            return new Step.CapabilityMissing(required);
        }
        if (route.first()) {
            ObjectNode inputRequests = JSON.objectNode();
            ObjectNode request = inputRequests.putObject(INPUT_KEY);
            request.put("method", "elicitation/create");
            request.set("params", ApprovalForm.params(pending, tool, true));
            String state = states.mint(tool, pending.digest());
            journal.approval(ApprovalRecord.asked(pending.rule(), pending.digest(), Channel.CLIENT, frameSha256));
            return new Step.InputRequired(inputRequests, state);
        }
        if (route.requestState().isEmpty()) {
            return refuse(pending, Channel.CLIENT, ApprovalFailure.INVALID, "no-request-state",
                    "inputResponses came without the requestState Postern issued; nothing ran", frameSha256);
        }
        RequestStateCodec.Redemption redemption = states.redeem(route.requestState().get(), tool, pending.digest());
        if (redemption instanceof RequestStateCodec.Redemption.Refused refused) {
            return refuse(pending, Channel.CLIENT, ApprovalFailure.INVALID,
                    "request-state-" + refused.problem().name().toLowerCase(Locale.ROOT).replace('_', '-'),
                    "the requestState is not a valid, unused, unexpired approval of this exact action ("
                            + describe(refused.problem()) + "); nothing ran", frameSha256);
        }
        JsonNode answer = route.inputResponses().map(r -> r.get(INPUT_KEY)).orElse(null);
        if (answer == null) {
            return refuse(pending, Channel.CLIENT, ApprovalFailure.INVALID, "no-answer",
                    "inputResponses holds no answer under \"" + INPUT_KEY + "\"; nothing ran", frameSha256);
        }
        return judge(pending, answer, Channel.CLIENT, frameSha256);
    }

    private Step judge(PendingApproval pending, JsonNode answer, Channel channel, String frameSha256) {
        ApprovalForm.Answer judged = ApprovalForm.judge(answer);
        if (judged instanceof ApprovalForm.Answer.NotApproved no) {
            return refuse(pending, channel, no.failure(), no.failure() == ApprovalFailure.INVALID ? "malformed-answer" : "not-approved",
                    no.reason() + "; nothing ran", frameSha256);
        }
        journal.approval(ApprovalRecord.answered(pending.rule(), pending.digest(), channel, "approved", "approved", frameSha256));
        return new Step.Granted(pending.grant(new HumanApproval(pending.digest(), channel.name().toLowerCase(Locale.ROOT)))
                .permit());
    }

    private Step refuse(PendingApproval pending, Channel channel, ApprovalFailure failure, String detail, String reason,
                        String frameSha256) {
        journal.approval(ApprovalRecord.answered(pending.rule(), pending.digest(), channel, failure.rule(), detail, frameSha256));
        return new Step.Refused(pending.refuse(failure, reason));
    }

    private static String describe(RequestStateCodec.Problem problem) {
        switch (problem) {
            case MALFORMED: return "it is malformed";
            case TAMPERED: return "it was altered or not issued by this gateway";
            case EXPIRED: return "it expired";
            case REPLAYED: return "it was already used";
            case OTHER_TOOL: return "it was issued for another tool";
            case OTHER_ACTION: return "it was issued for another action";
            case FULL: return "too many approvals are outstanding";
            default: throw new AssertionError(problem);
        }
    }
}
