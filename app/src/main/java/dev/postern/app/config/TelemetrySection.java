package dev.postern.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.postern.policy.model.CredentialRef;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads the optional {@code telemetry} section (DESIGN §4 "Telemetry") into {@link TelemetrySettings}:
 * the schema has checked the shapes; this parses the endpoint, checks that every header names a
 * configured credential and applies {@link ConfigDefaults}. No section: empty, telemetry off.
 * Connects to nothing.
 */
final class TelemetrySection {
    static final String POINTER = "/telemetry";

    private TelemetrySection() {
    }

    static Optional<TelemetrySettings> read(Path file, JsonNode root, Map<CredentialRef, CredentialSource> credentials)
            throws ConfigException {
        JsonNode t = root.get("telemetry");
        if (t == null) {
            return Optional.empty();
        }
        URI endpoint;
        try {
            endpoint = new URI(t.get("endpoint").textValue());
        } catch (URISyntaxException e) {
            throw new ConfigException(file, POINTER + "/endpoint", "an http or https URL such as http://127.0.0.1:4318 (" + e.getReason() + ")");
        }
        Map<String, CredentialRef> headers = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> hs = t.path("headers").fields();
        while (hs.hasNext()) {
            Map.Entry<String, JsonNode> h = hs.next();
            headers.put(h.getKey(), ConfigLoader.credential(file, POINTER + "/headers/" + h.getKey() + "/credential",
                    h.getValue().get("credential"), credentials));
        }
        Map<String, String> resource = new LinkedHashMap<>();
        t.path("resourceAttributes").fields().forEachRemaining(e -> resource.put(e.getKey(), e.getValue().textValue()));
        Set<TelemetrySettings.Signal> signals = EnumSet.noneOf(TelemetrySettings.Signal.class);
        List<String> named = new java.util.ArrayList<>();
        t.path("signals").forEach(s -> named.add(s.textValue()));
        (t.has("signals") ? named : ConfigDefaults.TELEMETRY_SIGNALS)
                .forEach(s -> signals.add(TelemetrySettings.Signal.valueOf(s.toUpperCase(Locale.ROOT))));
        try {
            return Optional.of(new TelemetrySettings(endpoint, headers,
                    t.path("serviceName").asText(ConfigDefaults.TELEMETRY_SERVICE_NAME), resource, signals,
                    Duration.ofMillis(t.path("timeoutMs").asLong(ConfigDefaults.TELEMETRY_TIMEOUT_MS)),
                    t.path("maxQueue").asInt(ConfigDefaults.TELEMETRY_MAX_QUEUE)));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(file, POINTER, e.getMessage());
        }
    }
}
