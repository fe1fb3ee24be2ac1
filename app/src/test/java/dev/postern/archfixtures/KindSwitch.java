package dev.postern.archfixtures;

import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.AuthorizedSshCommand;
import dev.postern.policy.outcome.HttpResponseOutcome;
import dev.postern.policy.outcome.Outcome;

/** Violation: a presenter branching on kinds with instanceof, where a forgotten kind fails at run time. Never run. */
public final class KindSwitch {
    static String describe(Outcome outcome) {
        if (outcome instanceof HttpResponseOutcome r) {
            return "status " + r.status();
        }
        return "something else";
    }

    static boolean isSsh(AuthorizedAction permit) {
        return permit instanceof AuthorizedSshCommand;
    }
}
