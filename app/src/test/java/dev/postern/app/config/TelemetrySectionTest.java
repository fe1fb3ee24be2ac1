package dev.postern.app.config;

import dev.postern.app.Gateway;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.model.CredentialRef;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code telemetry} section (DESIGN §4): off when absent, defaults from ConfigDefaults, header values only credential names. */
class TelemetrySectionTest {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    @TempDir
    Path dir;

    private static ObjectNode minimal() {
        ObjectNode root = JSON.objectNode();
        root.putObject("journal").put("directory", "./journal");
        root.putObject("credentials").putObject("otel-token").put("env", "POSTERN_TEST_OTEL_TOKEN");
        return root;
    }

    private Path write(ObjectNode config) throws IOException {
        Path file = dir.resolve("postern.json");
        Files.writeString(file, config.toPrettyString(), StandardCharsets.UTF_8);
        return file;
    }

    @Test
    void aConfigWithoutTheSectionHasTelemetryOff() throws Exception {
        assertTrue(Gateway.configLoader().load(write(minimal())).telemetry().isEmpty());
    }

    @Test
    void aSectionWithOnlyAnEndpointTakesTheDefaults() throws Exception {
        ObjectNode root = minimal();
        root.putObject("telemetry").put("endpoint", "http://127.0.0.1:4318");
        TelemetrySettings t = Gateway.configLoader().load(write(root)).telemetry().orElseThrow();
        assertEquals(URI.create("http://127.0.0.1:4318"), t.endpoint());
        assertEquals(ConfigDefaults.TELEMETRY_SERVICE_NAME, t.serviceName());
        assertEquals(Set.of(TelemetrySettings.Signal.TRACES, TelemetrySettings.Signal.METRICS), t.signals());
        assertEquals(Duration.ofMillis(ConfigDefaults.TELEMETRY_TIMEOUT_MS), t.timeout());
        assertEquals(ConfigDefaults.TELEMETRY_MAX_QUEUE, t.maxQueue());
        assertEquals(Map.of(), t.headers());
        assertEquals(Map.of(), t.resourceAttributes());
    }

    @Test
    void everyMemberIsRead() throws Exception {
        ObjectNode root = minimal();
        ObjectNode t = root.putObject("telemetry").put("endpoint", "https://otel.example.com/base")
                .put("serviceName", "postern-ci").put("timeoutMs", 250).put("maxQueue", 64);
        t.putObject("headers").putObject("Authorization").put("credential", "otel-token");
        t.putObject("resourceAttributes").put("deployment.environment.name", "ci");
        t.putArray("signals").add("traces");
        TelemetrySettings s = Gateway.configLoader().load(write(root)).telemetry().orElseThrow();
        assertEquals(URI.create("https://otel.example.com/base"), s.endpoint());
        assertEquals(Map.of("Authorization", new CredentialRef("otel-token")), s.headers());
        assertEquals(Map.of("deployment.environment.name", "ci"), s.resourceAttributes());
        assertEquals(Set.of(TelemetrySettings.Signal.TRACES), s.signals());
        assertFalse(s.exports(TelemetrySettings.Signal.METRICS));
        assertEquals("postern-ci", s.serviceName());
        assertEquals(Duration.ofMillis(250), s.timeout());
        assertEquals(64, s.maxQueue());
    }

    @Test
    void aHeaderNamingNoCredentialIsRefusedAtItsPointerWithoutEchoingIt() throws Exception {
        ObjectNode root = minimal();
        root.putObject("telemetry").put("endpoint", "http://127.0.0.1:4318")
                .putObject("headers").putObject("Authorization").put("credential", "Bearer-s3cr3t-value");
        Path file = write(root);
        ConfigException e = assertThrows(ConfigException.class, () -> Gateway.configLoader().load(file));
        assertEquals("/telemetry/headers/Authorization/credential", e.pointer(), e.getMessage());
        assertFalse(e.getMessage().contains("s3cr3t"), e.getMessage());
    }

    @Test
    void aLiteralHeaderValueIsRefusedByTheSchema() throws Exception {
        ObjectNode root = minimal();
        root.putObject("telemetry").put("endpoint", "http://127.0.0.1:4318")
                .putObject("headers").put("Authorization", "Bearer s3cr3t");
        Path file = write(root);
        ConfigException e = assertThrows(ConfigException.class, () -> Gateway.configLoader().load(file));
        assertEquals("/telemetry/headers/Authorization", e.pointer(), e.getMessage());
    }

    @Test
    void anEndpointThatIsNotAnHttpUrlOrCarriesUserInfoIsRefused() throws Exception {
        for (String endpoint : new String[] {"grpc://127.0.0.1:4317", "http://user:pw@127.0.0.1:4318", "127.0.0.1:4318",
                "http://127.0.0.1:4318/?q=1"}) {
            ObjectNode root = minimal();
            root.putObject("telemetry").put("endpoint", endpoint);
            Path file = write(root);
            ConfigException e = assertThrows(ConfigException.class, () -> Gateway.configLoader().load(file), endpoint);
            assertEquals("/telemetry/endpoint", e.pointer(), endpoint + ": " + e.getMessage());
        }
    }

    @Test
    void anUnknownSignalOrMemberIsRefusedByTheSchema() throws Exception {
        ObjectNode root = minimal();
        root.putObject("telemetry").put("endpoint", "http://127.0.0.1:4318").putArray("signals").add("profiles");
        Path file = write(root);
        assertEquals("/telemetry/signals/0", assertThrows(ConfigException.class, () -> Gateway.configLoader().load(file)).pointer());
        ObjectNode other = minimal();
        other.putObject("telemetry").put("endpoint", "http://127.0.0.1:4318").put("protocol", "grpc");
        Path second = write(other);
        assertTrue(assertThrows(ConfigException.class, () -> Gateway.configLoader().load(second)).pointer().startsWith("/telemetry"));
    }
}
