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
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * The approval step of a tool call whose decision is {@link Decision.ApprovalRequired} (DESIGN §5,
 * "Approval"): asks a human through the route the protocol layer found and turns the answer into the
 * permit (only for an explicit approval of exactly that action) or into a final denial with an
 * {@code approval.*} rule; every question and answer goes to the decisions journal. Nothing is
 * remembered between calls except the stateless era's used requestStates. Thread-safe.
 */
final class Approvals {
    /** The key of Postern's one entry in {@code inputRequests} and {@code inputResponses}. */
    static final String INPUT_KEY = "approval";

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private final RequestStateCodec states;
    private final Duration timeout;
    private final AuditJournal journal;

    Approvals(RequestStateCodec states, Duration timeout, AuditJournal journal) {
        this.states = Objects.requireNonNull(states, "states");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.journal = Objects.requireNonNull(journal, "journal");
    }

    /** Sends a handshake-era client {@code elicitation/create} and waits for its answer. */
    interface Elicitor {
        Asked ask(ObjectNode params, Duration timeout, Cancellation cancellation);
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
        if (route instanceof ApprovalRoute.Unable unable) {
            return refuse(pending, Channel.NONE, ApprovalFailure.UNSUPPORTED, "unsupported", unable.why(), frameSha256);
        }
        if (route instanceof ApprovalRoute.Elicit elicit) {
            return elicit(pending, tool, elicit, elicitor, cancellation, frameSha256);
        }
        return stateless(pending, tool, (ApprovalRoute.Stateless) route, frameSha256);
    }

    private Step elicit(PendingApproval pending, String tool, ApprovalRoute.Elicit route, Elicitor elicitor,
                        Cancellation cancellation, String frameSha256) {
        journal.approval(ApprovalRecord.asked(pending.rule(), pending.digest(), Channel.ELICITATION, frameSha256));
        Asked asked = elicitor.ask(ApprovalForm.params(pending, tool, route.withMode()), timeout, cancellation);
        if (asked instanceof Asked.TimedOut) {
            return refuse(pending, Channel.ELICITATION, ApprovalFailure.TIMEOUT, "timeout",
                    "no answer from a human within " + timeout.toSeconds() + " s; nothing ran", frameSha256);
        }
        if (asked instanceof Asked.Ended) {
            return refuse(pending, Channel.ELICITATION, ApprovalFailure.TIMEOUT, "input-ended",
                    "the client's input ended before a human answered; nothing ran", frameSha256);
        }
        if (asked instanceof Asked.Unavailable unavailable) {
            return refuse(pending, Channel.ELICITATION, ApprovalFailure.UNSUPPORTED, "busy",
                    unavailable.why() + "; nothing ran", frameSha256);
        }
        if (asked instanceof Asked.Cancelled) {
            return refuse(pending, Channel.ELICITATION, ApprovalFailure.DECLINED, "cancelled",
                    "the call was cancelled while it waited for a human; nothing ran", frameSha256);
        }
        ServerRequests.Reply reply = ((Asked.Replied) asked).reply();
        if (reply.error().isPresent()) {
            JsonNode code = reply.error().get().path("code");
            return refuse(pending, Channel.ELICITATION, ApprovalFailure.INVALID, "client-error",
                    "the client answered the question with error " + (code.isInt() ? code.intValue() : "(no code)")
                            + "; nothing ran", frameSha256);
        }
        return judge(pending, reply.result().get(), Channel.ELICITATION, frameSha256);
    }

    private Step stateless(PendingApproval pending, String tool, ApprovalRoute.Stateless route, String frameSha256) {
        if (!route.canElicit()) {
            ObjectNode required = JSON.objectNode();
            required.putObject("elicitation").putObject("form");
            journal.approval(ApprovalRecord.answered(pending.rule(), pending.digest(), Channel.INPUT_REQUIRED,
                    ApprovalFailure.UNSUPPORTED.rule(), "missing-capability", frameSha256));
            return new Step.CapabilityMissing(required);
        }
        if (route.first()) {
            ObjectNode inputRequests = JSON.objectNode();
            ObjectNode request = inputRequests.putObject(INPUT_KEY);
            request.put("method", "elicitation/create");
            request.set("params", ApprovalForm.params(pending, tool, true));
            String state = states.mint(tool, pending.digest());
            journal.approval(ApprovalRecord.asked(pending.rule(), pending.digest(), Channel.INPUT_REQUIRED, frameSha256));
            return new Step.InputRequired(inputRequests, state);
        }
        if (route.requestState().isEmpty()) {
            return refuse(pending, Channel.INPUT_REQUIRED, ApprovalFailure.INVALID, "no-request-state",
                    "inputResponses came without the requestState Postern issued; nothing ran", frameSha256);
        }
        RequestStateCodec.Redemption redemption = states.redeem(route.requestState().get(), tool, pending.digest());
        if (redemption instanceof RequestStateCodec.Redemption.Refused refused) {
            return refuse(pending, Channel.INPUT_REQUIRED, ApprovalFailure.INVALID,
                    "request-state-" + refused.problem().name().toLowerCase(Locale.ROOT).replace('_', '-'),
                    "the requestState is not a valid, unused, unexpired approval of this exact action ("
                            + describe(refused.problem()) + "); nothing ran", frameSha256);
        }
        JsonNode answer = route.inputResponses().map(r -> r.get(INPUT_KEY)).orElse(null);
        if (answer == null) {
            return refuse(pending, Channel.INPUT_REQUIRED, ApprovalFailure.INVALID, "no-answer",
                    "inputResponses holds no answer under \"" + INPUT_KEY + "\"; nothing ran", frameSha256);
        }
        return judge(pending, answer, Channel.INPUT_REQUIRED, frameSha256);
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
