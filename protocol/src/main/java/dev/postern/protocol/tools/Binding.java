package dev.postern.protocol.tools;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.action.Action;
import java.util.Objects;

/** What a tool's arguments turned into: an action for the policy, a local answer, or a refusal. */
public sealed interface Binding {

    /** Arguments that describe an external effect; the policy decides next. */
    record ToAction(Action action) implements Binding {
        public ToAction {
            Objects.requireNonNull(action, "action");
        }
    }

    /**
     * A read-only tool answered from the configuration; no executor is involved. The answer is fixed
     * for the catalog's life, so its result is rendered once ({@link FixedResult}).
     */
    record Answer(FixedResult fixed) implements Binding {
        public Answer {
            Objects.requireNonNull(fixed, "fixed");
        }

        /** A copy of the answer's structured content. */
        public ObjectNode structuredContent() {
            return fixed.structuredContent();
        }
    }

    /** Arguments that failed validation, with the JSON pointer (into the arguments) that failed. */
    record Invalid(String pointer, String message) implements Binding {
        public Invalid {
            Objects.requireNonNull(pointer, "pointer");
            Objects.requireNonNull(message, "message");
        }
    }
}
