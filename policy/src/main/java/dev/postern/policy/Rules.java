package dev.postern.policy;

import dev.postern.policy.action.Action;

/**
 * The rules of one kind of effect: which action type they judge and how. Each kind has exactly one,
 * listed in {@link PolicyEngine}'s constructor; a test checks every permitted {@link Action} has one.
 */
interface Rules<A extends Action> {

    /** The one action type these rules judge. */
    Class<A> actionType();

    /** Deny by default; a {@link Decision.Permit} only for what an allowance explicitly allows. */
    Decision decide(A action);
}
