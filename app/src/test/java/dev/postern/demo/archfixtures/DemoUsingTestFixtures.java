package dev.postern.demo.archfixtures;

import dev.postern.fixtures.archfixtures.FixtureAssertions;

/** Allowed: the demo depends on the test fixtures (DESIGN §2). Never run. */
public final class DemoUsingTestFixtures {
    private DemoUsingTestFixtures() {
    }

    static void check() {
        FixtureAssertions.assertQuiet("");
    }
}
