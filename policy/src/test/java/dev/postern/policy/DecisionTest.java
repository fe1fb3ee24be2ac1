package dev.postern.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A denial always carries a well-formed rule id and a reason; a permit always carries a permit. */
class DecisionTest {

    @ParameterizedTest
    @ValueSource(strings = {"http.method", "ssh.args.pattern", "http.target:github", "ssh.command:web-1.tail-log"})
    void wellFormedRuleIdIsAccepted(String rule) {
        assertEquals(rule, new Decision.Deny(rule, "because").rule());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "HTTP.method", "http..method", "http.method ", ".http", "http.target:", "http.target:a b"})
    void malformedRuleIdIsRefused(String rule) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Decision.Deny(rule, "because"));
        assertTrue(e.getMessage().contains("rule"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "\t\n"})
    void blankReasonIsRefused(String reason) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Decision.Deny("http.method", reason));
        assertTrue(e.getMessage().contains("reason"), e.getMessage());
    }

    @Test
    void nullPartsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Decision.Deny(null, "because"));
        assertThrows(NullPointerException.class, () -> new Decision.Deny("http.method", null));
        assertThrows(NullPointerException.class, () -> new Decision.Permit(null));
    }
}
