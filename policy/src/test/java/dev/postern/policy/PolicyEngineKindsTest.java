package dev.postern.policy;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.policy.action.Action;
import dev.postern.policy.model.Policy;
import org.junit.jupiter.api.Test;

/** Every kind of action the kernel enumerates has rules in the engine, so none reaches a missing branch at run time. */
class PolicyEngineKindsTest {

    @Test
    void everyPermittedActionHasRules() {
        PolicyEngine engine = new PolicyEngine(Policy.denyAll());
        Class<?>[] kinds = Action.class.getPermittedSubclasses();

        assertTrue(kinds.length >= 2, "Action permits too few kinds: " + kinds.length);
        for (Class<?> kind : kinds) {
            assertTrue(engine.judges(kind.asSubclass(Action.class)), () -> "no Rules in PolicyEngine for " + kind.getName());
        }
    }
}
