package dev.postern.app.archfixtures;

import io.opentelemetry.api.trace.Span;

/** Violation: the composition root reaching OpenTelemetry itself instead of through the telemetry port. Never run. */
public final class GatewayTracingDirectly {
    static void trace() {
        Span.current().setAttribute("postern.decision", "permit");
    }
}
