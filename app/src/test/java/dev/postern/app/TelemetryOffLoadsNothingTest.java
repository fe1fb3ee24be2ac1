package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.fixtures.otlp.OtlpReceiver;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gateway process ({@code Main mcp-stdio}, a child JVM on this module's class path) with the JVM's
 * class-loading log on: without a {@code telemetry} section no OpenTelemetry class, no class of the
 * telemetry adapter and not even app's {@code TelemetryExport} is loaded, through an initialize, a
 * denied call and a tools/list; with one (the control, so the check can fail) the SDK is loaded and
 * the spans arrive.
 */
class TelemetryOffLoadsNothingTest {
    private static final String INPUT = SessionHarness.INIT + SessionHarness.INITIALIZED
            + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
            + "\"arguments\":{\"method\":\"GET\",\"url\":\"http://127.0.0.1:9/private/x\"}}}\n"
            + "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}\n";

    @TempDir
    Path dir;

    private Path config(String telemetry) throws IOException {
        Path file = dir.resolve("postern.json");
        Files.writeString(file, "{\"journal\":{\"directory\":\"./journal\"}," + telemetry
                + "\"http\":{\"targets\":[{\"name\":\"api\",\"baseUrl\":\"http://127.0.0.1:9\",\"methods\":[\"GET\"],"
                + "\"pathPrefixes\":[\"/v1\"],\"allowPrivateAddresses\":true}]}}", StandardCharsets.UTF_8);
        return file;
    }

    /** Runs the gateway over {@link #INPUT}; returns the classes the JVM loaded, one name a line. */
    private List<String> loadedClasses(Path config, List<String> stdoutLines) throws Exception {
        Path log = dir.resolve("classes.log");
        Files.deleteIfExists(log);
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xlog:class+load=info:file=" + log, "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "mcp-stdio", "--config", config.toString()));
        Process p = new ProcessBuilder(command).redirectError(dir.resolve("stderr.txt").toFile()).start();
        try (OutputStream in = p.getOutputStream()) {
            in.write(INPUT.getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the gateway did not end");
        stdoutLines.addAll(out.lines().toList());
        assertEquals(0, p.exitValue(), () -> {
            try {
                return Files.readString(dir.resolve("stderr.txt"));
            } catch (IOException e) {
                return e.toString();
            }
        });
        return Files.readAllLines(log).stream().filter(l -> l.contains("[class,load]"))
                .map(l -> l.replaceAll(".*\\[class,load\\]\\s+(\\S+).*", "$1")).toList();
    }

    @Test
    void withoutATelemetrySectionNoOpenTelemetryOrAdapterClassIsLoaded() throws Exception {
        List<String> out = new ArrayList<>();
        List<String> loaded = loadedClasses(config(""), out);
        assertEquals(3, out.size(), out::toString);
        assertTrue(loaded.contains(Gateway.class.getName()), "the log holds the gateway's own classes");
        assertEquals(List.of(), loaded.stream().filter(c -> c.startsWith("io.opentelemetry.") || c.startsWith("dev.postern.telemetry.")
                || c.equals(TelemetryExport.class.getName())).toList());
    }

    @Test
    void withATelemetrySectionTheSdkIsLoadedAndSpansArrive() throws Exception {
        try (OtlpReceiver receiver = OtlpReceiver.start(OtlpReceiver.Mode.ANSWER)) {
            URI endpoint = receiver.endpoint();
            List<String> out = new ArrayList<>();
            List<String> loaded = loadedClasses(config("\"telemetry\":{\"endpoint\":\"" + endpoint + "\"},"), out);
            assertEquals(3, out.size(), out::toString);
            assertTrue(loaded.contains(TelemetryExport.class.getName()));
            assertTrue(loaded.stream().anyMatch(c -> c.startsWith("io.opentelemetry.sdk.")));
            assertEquals(3, receiver.spans().size());
        }
    }
}
