package dev.postern.archfixtures;

import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.Decision;

/** Compliant: reads permits the engine made, as the dispatcher and the journal do. Never run. */
public final class PermitReader {
    private PermitReader() {
    }

    static String ruleOf(Decision decision) {
        if (decision instanceof Decision.Permit permit) {
            AuthorizedAction action = permit.permit();
            return action.rule();
        }
        return "denied";
    }
}
