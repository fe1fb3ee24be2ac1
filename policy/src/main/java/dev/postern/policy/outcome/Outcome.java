package dev.postern.policy.outcome;

import dev.postern.policy.RegistrationPoint;
import java.util.List;

/**
 * The result of executing one permit. Closed, like the set of actions. Each outcome says itself which
 * capped streams it carries and what an agent could read in it, so checks that apply to every kind
 * (caps, masking in the executor contract kit) need no branch per kind.
 */
@RegistrationPoint("the kind's outcome record in permits")
public sealed interface Outcome permits HttpResponseOutcome, SshExitOutcome, SqlRowsOutcome, UpstreamCallOutcome,
        ExecutionFailure {

    /** The output streams read under a cap, each with its truncation flag; empty when there are none. */
    List<CapturedStream> streams();

    /** Every text and byte of the outcome an agent would be shown, piece by piece, in a fixed order. */
    List<byte[]> visibleParts();
}
