package dev.postern.policy.outcome;

/** The result of executing one permit. Closed, like the set of actions. */
public sealed interface Outcome permits HttpResponseOutcome, SshExitOutcome, SqlRowsOutcome, ExecutionFailure {
}
