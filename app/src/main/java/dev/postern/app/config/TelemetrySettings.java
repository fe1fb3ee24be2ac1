package dev.postern.app.config;

import dev.postern.policy.model.CredentialRef;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The {@code telemetry} section as loaded: where OTLP/HTTP export goes, the headers sent with it (each
 * value a credential's name, never the secret), the resource it describes and which signals leave.
 * Immutable; holds no secret, so it may be printed.
 */
public record TelemetrySettings(URI endpoint, Map<String, CredentialRef> headers, String serviceName,
                                Map<String, String> resourceAttributes, Set<Signal> signals, Duration timeout, int maxQueue) {

    /** A signal that can be exported; {@code LOGS} are the journal's rows. */
    public enum Signal {
        TRACES, METRICS, LOGS;

        /** The name the config file uses. */
        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public TelemetrySettings {
        Objects.requireNonNull(endpoint, "endpoint");
        if (!("http".equals(endpoint.getScheme()) || "https".equals(endpoint.getScheme())) || endpoint.getHost() == null
                || endpoint.getRawUserInfo() != null || endpoint.getRawQuery() != null || endpoint.getRawFragment() != null) {
            throw new IllegalArgumentException("endpoint must be an http or https URL with a host and no user info, query or fragment");
        }
        headers = Map.copyOf(Objects.requireNonNull(headers, "headers"));
        Objects.requireNonNull(serviceName, "serviceName");
        if (serviceName.isBlank()) {
            throw new IllegalArgumentException("serviceName must not be blank");
        }
        resourceAttributes = Map.copyOf(Objects.requireNonNull(resourceAttributes, "resourceAttributes"));
        signals = Set.copyOf(Objects.requireNonNull(signals, "signals"));
        if (signals.isEmpty()) {
            throw new IllegalArgumentException("signals must name at least one signal");
        }
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive");
        }
        if (maxQueue < 1) {
            throw new IllegalArgumentException("maxQueue must be positive");
        }
    }

    /** Whether {@code signal} is exported. */
    public boolean exports(Signal signal) {
        return signals.contains(signal);
    }
}
