package dev.postern.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.app.Gateway;
import dev.postern.app.check.DeepCheck;
import dev.postern.app.check.Finding;
import dev.postern.app.config.GatewayConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code check-config} shows the telemetry section (its endpoint, signals and header credentials by
 * name, never a value), and {@code --deep --connect} dials the endpoint: a collector that listens gives
 * no finding, one that is down a warning, {@code telemetry-unreachable}, since the gateway would run.
 */
class TelemetryCheckTest {
    @TempDir
    Path dir;

    private GatewayConfig config(String endpoint) throws Exception {
        Path file = dir.resolve("postern.json");
        Files.writeString(file, """
                {
                  "journal": { "directory": "journal", "redactArguments": true },
                  "credentials": { "otel-token": { "env": "POSTERN_TEST_OTEL_TOKEN_UNSET" } },
                  "telemetry": { "endpoint": "%s", "headers": { "Authorization": { "credential": "otel-token" } },
                    "signals": ["traces", "logs"], "timeoutMs": 1000 }
                }
                """.formatted(endpoint), StandardCharsets.UTF_8);
        return Gateway.configLoader().load(file);
    }

    private static List<Finding> telemetryFindings(GatewayConfig config) {
        return new DeepCheck(config, List.of()).connections().stream().filter(f -> f.where().startsWith("/telemetry")).toList();
    }

    @Test
    void checkConfigShowsTheTelemetrySectionWithHeaderCredentialsByName() throws Exception {
        String described = CheckConfigCommand.describe(config("http://127.0.0.1:4318"));
        assertTrue(described.contains("telemetry: OTLP/HTTP to http://127.0.0.1:4318, signals [traces, logs], service.name postern,"
                + " header Authorization from credential otel-token, timeoutMs 1000, maxQueue 2048; logs carry the journal's rows as written"),
                described);
    }

    @Test
    void withoutTheSectionCheckConfigSaysTelemetryIsOff() throws Exception {
        Path file = dir.resolve("off.json");
        Files.writeString(file, "{ \"journal\": { \"directory\": \"journal\" } }", StandardCharsets.UTF_8);
        assertTrue(CheckConfigCommand.describe(Gateway.configLoader().load(file)).contains("\ntelemetry: off\n"));
    }

    @Test
    void connectFindsAListeningCollectorReachable() throws Exception {
        try (ServerSocket collector = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertEquals(List.of(), telemetryFindings(config("http://127.0.0.1:" + collector.getLocalPort())));
        }
    }

    @Test
    void connectWarnsOfACollectorThatIsDown() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        List<Finding> found = telemetryFindings(config("http://127.0.0.1:" + port));
        assertEquals(1, found.size(), found::toString);
        assertEquals(Finding.Severity.WARNING, found.get(0).severity());
        assertEquals("telemetry-unreachable", found.get(0).id());
        assertEquals("/telemetry/endpoint", found.get(0).where());
        assertFalse(found.get(0).message().contains("Exception"), found.get(0).message());
    }
}
