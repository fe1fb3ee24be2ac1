package dev.postern.app;

import dev.postern.app.config.TelemetrySettings;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.port.CredentialStore;
import dev.postern.policy.port.CredentialUnavailableException;
import dev.postern.policy.port.Telemetry;
import dev.postern.telemetry.OtlpSettings;
import dev.postern.telemetry.OtlpTelemetry;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one class of {@code app} that names the telemetry adapter: {@link Gateway} reaches it only when
 * the config has a {@code telemetry} section, so with telemetry off neither this class nor any
 * OpenTelemetry class is loaded ({@code TelemetryOffLoadsNothingTest}). Telemetry never stops the
 * gateway: a header credential that cannot be read leaves it off, with one line on stderr.
 */
final class TelemetryExport {
    private TelemetryExport() {
    }

    static Telemetry start(TelemetrySettings settings, CredentialStore credentials, PrintStream diagnostics) {
        Map<String, String> headers = new LinkedHashMap<>();
        for (Map.Entry<String, CredentialRef> h : settings.headers().entrySet()) {
            try {
                headers.put(h.getKey(), credentials.resolve(h.getValue()).revealAsString());
            } catch (CredentialUnavailableException e) {
                diagnostics.println("postern: telemetry: header " + h.getKey() + ": " + e.detail() + "; telemetry is off");
                return Telemetry.OFF;
            }
        }
        return OtlpTelemetry.start(new OtlpSettings(settings.endpoint(), headers, settings.serviceName(), Version.current(),
                settings.resourceAttributes(), settings.exports(TelemetrySettings.Signal.TRACES),
                settings.exports(TelemetrySettings.Signal.METRICS), settings.exports(TelemetrySettings.Signal.LOGS), settings.timeout(), settings.maxQueue()), diagnostics);
    }
}
