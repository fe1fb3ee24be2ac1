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

    /** A read-only tool answered from the configuration; no executor is involved. */
    record Answer(ObjectNode structuredContent) implements Binding {
        public Answer {
            Objects.requireNonNull(structuredContent, "structuredContent");
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
