package dev.postern.journal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.action.Action;
import dev.postern.policy.outcome.Outcome;

/**
 * What a row says about one kind's permit, outcome or refused action: the journal writes the chain,
 * the sequence, the session, the rule, and masks every credential; the kind of effect (through the
 * composition root) fills in the rest. So the journal names no tool and branches on no kind.
 */
public interface ActionRows {

    /**
     * Puts the intent fields: {@code action} (the tool's name), {@code target}, the rendered action and
     * a one-line {@code preview}; with {@code redactArguments}, digests instead of the rendered arguments.
     */
    void intent(AuthorizedAction permit, ObjectNode row, boolean redactArguments);

    /**
     * Puts a denial's fields: {@code tool}, the {@code target} or {@code host} asked for, and what was
     * {@code refused}; with {@code redactArguments}, digests instead of the arguments.
     */
    void denial(Action action, ObjectNode row, boolean redactArguments);

    /** Puts the outcome fields: {@code result} ({@code ok} or the failure code), then the kind's counts. */
    void outcome(Outcome outcome, ObjectNode row);
}
