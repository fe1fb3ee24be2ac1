package dev.postern.bench.archfixtures;

import dev.postern.fixtures.archfixtures.FixtureAssertions;

/** Allowed: the benchmarks start gateways with the test fixtures' GatewayProcess. Never run. */
public final class BenchUsingTestFixtures {
    private BenchUsingTestFixtures() {
    }

    static void check() {
        FixtureAssertions.assertQuiet("");
    }
}
