package dev.postern.policy.archfixtures;

import dev.postern.telemetry.OtlpSettings;

/** Violation: the kernel naming the telemetry adapter. Never run. */
public final class PolicyStartingTelemetry {
    static String endpoint(OtlpSettings settings) {
        return settings.endpoint().toString();
    }
}
