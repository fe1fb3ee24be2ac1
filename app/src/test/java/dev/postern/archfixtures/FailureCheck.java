package dev.postern.archfixtures;

import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.Outcome;

/** Compliant: a failure is no kind of effect, so every presenter may ask whether an outcome is one. Never run. */
public final class FailureCheck {
    static boolean failed(Outcome outcome) {
        return outcome instanceof ExecutionFailure;
    }
}
