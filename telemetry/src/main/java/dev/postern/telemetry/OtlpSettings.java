package dev.postern.telemetry;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Where and what {@link OtlpTelemetry} exports: the collector's base URL, the headers sent with each
 * export (their values are secrets, resolved by the caller, never shown by {@link #toString}), the
 * resource (service name and version, more attributes), which signals (traces, metrics, logs: the journal's rows), the timeout of one export and
 * how many records may wait per signal.
 */
public record OtlpSettings(URI endpoint, Map<String, String> headers, String serviceName, String serviceVersion,
                           Map<String, String> resourceAttributes, boolean traces, boolean metrics, boolean logs, Duration timeout,
                           int maxQueue) {

    public OtlpSettings {
        Objects.requireNonNull(endpoint, "endpoint");
        headers = Map.copyOf(Objects.requireNonNull(headers, "headers"));
        Objects.requireNonNull(serviceName, "serviceName");
        Objects.requireNonNull(serviceVersion, "serviceVersion");
        resourceAttributes = Map.copyOf(Objects.requireNonNull(resourceAttributes, "resourceAttributes"));
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be positive");
        }
        if (maxQueue < 1) {
            throw new IllegalArgumentException("maxQueue must be positive");
        }
    }

    /** The URL of one signal's OTLP/HTTP path under the endpoint, such as {@code /v1/traces}. */
    String url(String path) {
        String base = endpoint.toString();
        return (base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + path;
    }

    @Override
    public String toString() {
        return "OtlpSettings[endpoint=" + endpoint + ", headers=" + headers.keySet() + " (values not shown), serviceName="
                + serviceName + ", traces=" + traces + ", metrics=" + metrics + ", logs=" + logs + ", timeout=" + timeout + ", maxQueue=" + maxQueue + "]";
    }
}
