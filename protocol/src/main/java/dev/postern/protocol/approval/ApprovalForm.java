package dev.postern.protocol.approval;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.ApprovalFailure;
import dev.postern.policy.PendingApproval;
import dev.postern.policy.ShownAction;
import dev.postern.policy.model.Printable;
import java.util.Iterator;
import java.util.Objects;

/**
 * The question a human is asked about one action, as form-mode {@code elicitation/create} params
 * (one required boolean, {@code approve}, unticked by default), and the strict reading of the
 * answer: only {@code action: "accept"} with content exactly {@code {"approve": true}} approves.
 * Stateless; thread-safe.
 */
public final class ApprovalForm {
    /** The one field of the form. */
    public static final String FIELD = "approve";
    /** How much of one shown value the message carries; the digest always covers all of it. */
    static final int MAX_SHOWN_CHARS = 2000;

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private ApprovalForm() {
    }

    /** What the human answered, read strictly. */
    public sealed interface Answer {
        /** Accepted with {@code approve: true}. */
        record Approved() implements Answer {
        }

        /** Not approved, and well-formed: declined, dismissed, or accepted with {@code approve: false}. */
        record NotApproved(ApprovalFailure failure, String reason) implements Answer {
            public NotApproved {
                Objects.requireNonNull(failure, "failure");
                Objects.requireNonNull(reason, "reason");
            }
        }
    }

    /**
     * The {@code elicitation/create} params for {@code pending} through {@code tool}; {@code withMode}
     * adds {@code "mode": "form"} (2025-11-25 and later; 2025-06-18 has no mode).
     */
    public static ObjectNode params(PendingApproval pending, String tool, boolean withMode) {
        ObjectNode params = JSON.objectNode();
        if (withMode) {
            params.put("mode", "form");
        }
        params.put("message", message(pending, tool));
        ObjectNode schema = params.putObject("requestedSchema");
        schema.put("type", "object");
        ObjectNode approve = schema.putObject("properties").putObject(FIELD);
        approve.put("type", "boolean");
        approve.put("title", "Approve");
        approve.put("description", "Run exactly this action, once");
        approve.put("default", false);
        schema.putArray("required").add(FIELD);
        return params;
    }

    /** The text the human reads: the tool, each shown value (long ones cut, control characters escaped), the digest. */
    public static String message(PendingApproval pending, String tool) {
        StringBuilder b = new StringBuilder("Postern asks you to approve this action (")
                .append(pending.reason()).append("):\n")
                .append("tool: ").append(tool);
        for (ShownAction.Field f : pending.shown().fields()) {
            b.append('\n').append(f.label()).append(": ").append(shown(f.value()));
        }
        return b.append("\naction digest: ").append(pending.digest()).toString();
    }

    /**
     * Reads an {@code ElicitResult}: {@code decline} and {@code cancel} are not approvals; {@code accept}
     * approves only with content exactly {@code {"approve": true}}. Anything else (a missing or unknown
     * action, other or extra fields, another type) is an invalid answer.
     */
    public static Answer judge(JsonNode result) {
        if (result == null || !result.isObject()) {
            return invalid("the answer is not an object");
        }
        JsonNode action = result.get("action");
        if (action == null || !action.isTextual()) {
            return invalid("the answer has no action");
        }
        switch (action.textValue()) {
            case "decline":
                return new Answer.NotApproved(ApprovalFailure.DECLINED, "the human declined this action");
            case "cancel":
                return new Answer.NotApproved(ApprovalFailure.DECLINED, "the human dismissed the question without approving");
            case "accept":
                break;
            default:
                return invalid("the answer's action is not accept, decline or cancel");
        }
        JsonNode content = result.get("content");
        if (content == null || !content.isObject() || content.size() != 1) {
            return invalid("an accepted answer must carry exactly the field \"" + FIELD + '"');
        }
        JsonNode approve = content.get(FIELD);
        if (approve == null || !approve.isBoolean()) {
            return invalid("\"" + FIELD + "\" must be true or false");
        }
        return approve.booleanValue()
                ? new Answer.Approved()
                : new Answer.NotApproved(ApprovalFailure.DECLINED, "the human did not tick \"" + FIELD + '"');
    }

    private static Answer invalid(String why) {
        return new Answer.NotApproved(ApprovalFailure.INVALID, why);
    }

    private static String shown(String value) {
        StringBuilder b = new StringBuilder();
        int count = 0;
        for (Iterator<Integer> it = value.codePoints().iterator(); it.hasNext(); ) {
            int c = it.next();
            if (count++ == MAX_SHOWN_CHARS) {
                int rest = value.codePointCount(0, value.length()) - MAX_SHOWN_CHARS;
                return b.append("… (").append(rest).append(" more characters, covered by the digest)").toString();
            }
            if (Printable.deceives(c)) {
                // Control, line-separator and bidi characters would let a value pose as another line or value.
                b.append(String.format("\\u%04x", c));
            } else {
                b.appendCodePoint(c);
            }
        }
        return b.toString();
    }
}
