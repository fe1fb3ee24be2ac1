package dev.postern.app.journal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.outcome.Outcome;

/**
 * What a row of {@code actions.jsonl} says about one kind's permit or outcome: the journal writes the
 * chain, the sequence and the rule; the kind of effect (through the composition root) fills in the rest.
 * So the journal names no tool and branches on no kind.
 */
public interface ActionRows {

    /** Puts the intent fields: {@code action} (the tool's name), {@code target} and a bounded {@code preview}. */
    void intent(AuthorizedAction permit, ObjectNode row);

    /** Puts the outcome fields: {@code result} ({@code ok} or the failure code), then the kind's counts. */
    void outcome(Outcome outcome, ObjectNode row);
}
