package dev.postern.policy.archfixtures;

/**
 * Violation: a class in the policy's packages that the policy module did not build (it comes from the
 * app's test classes), as a split package in another jar would. Never run.
 */
public final class SplitPackageIntruder {
    private SplitPackageIntruder() {
    }
}
