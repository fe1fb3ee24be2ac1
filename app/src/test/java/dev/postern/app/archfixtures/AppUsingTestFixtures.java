package dev.postern.app.archfixtures;

import dev.postern.fixtures.archfixtures.FixtureAssertions;

/** Violation: main code depending on the test fixtures. Never run. */
public final class AppUsingTestFixtures {
    private AppUsingTestFixtures() {
    }

    static void check() {
        FixtureAssertions.assertQuiet("");
    }
}
