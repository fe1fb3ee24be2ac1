package dev.postern.protocol.archfixtures;

import org.junit.jupiter.api.Assertions;

/** Violation: main code calling JUnit. Never run. */
public final class ProtocolAssertingWithJUnit {
    private ProtocolAssertingWithJUnit() {
    }

    static void check(boolean condition) {
        Assertions.assertTrue(condition);
    }
}
