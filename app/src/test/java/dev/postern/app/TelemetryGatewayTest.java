package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.app.config.CredentialSource;
import dev.postern.app.config.GatewayConfig;
import dev.postern.app.config.TelemetrySettings;
import dev.postern.journal.FileAuditJournal;
import dev.postern.fixtures.RecordingExecutor;
import dev.postern.fixtures.otlp.OtlpReceiver;
import dev.postern.policy.AuthorizedHttpRequest;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.port.Telemetry;
import io.opentelemetry.proto.logs.v1.LogRecord;
import java.time.Clock;
import dev.postern.protocol.tools.ToolResults;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Telemetry through the gateway's own wiring ({@link Gateway#run}): each agent request becomes an MCP
 * SERVER span parented to the client's {@code _meta.traceparent}, with Postern's decision on it, as a
 * real OTLP/HTTP receiver on loopback decodes it; no argument value and no secret is in anything it
 * got; and a collector that is down, refuses, never answers or closes the connection costs every call
 * nothing but counted drops.
 */
class TelemetryGatewayTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ALLOWED_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String ALLOWED_PARENT = "00f067aa0ba902b7";
    private static final String DENIED_TRACE = "0af7651916cd43dd8448eb211c80319c";
    private static final String DENIED_PARENT = "b7ad6b7169203331";
    private static final String SECRET = "otel-S3CRET-7f3a9c";

    @TempDir
    Path dir;

    private final RecordingExecutor<AuthorizedHttpRequest> http = RecordingExecutor.http();
    private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();

    private GatewayConfig config(URI endpoint) throws IOException {
        return config(endpoint, Duration.ofMillis(300));
    }

    /** {@code timeout} per export: short where the collector fails on purpose, generous where every record must arrive. */
    private GatewayConfig config(URI endpoint, Duration timeout) throws IOException {
        Path token = dir.resolve("otel-token");
        Files.writeString(token, "Bearer " + SECRET + "\n", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
        CredentialRef ref = new CredentialRef("otel-token");
        TelemetrySettings telemetry = new TelemetrySettings(endpoint, Map.of("Authorization", ref), "postern-test",
                Map.of("deployment.environment.name", "test"),
                Set.of(TelemetrySettings.Signal.TRACES, TelemetrySettings.Signal.METRICS, TelemetrySettings.Signal.LOGS), timeout, 64);
        return new GatewayConfig(dir.resolve("postern.json"), SessionHarness.policy(), 1 << 20, 4, dir.resolve("journal"),
                GatewayConfig.DEFAULT_JOURNAL_ROTATE_BYTES, Map.of(ref, new CredentialSource.File(token)), Optional.empty(),
                // Log records are the journal's rows as written: with redaction they hold digests, not argument values.
                true,
                "0".repeat(64), Duration.ofSeconds(120), Optional.of(telemetry));
    }

    private List<JsonNode> run(GatewayConfig config, String input) throws IOException {
        PrintStream diagnostics = new PrintStream(stderr, true, StandardCharsets.UTF_8);
        // As mcp-stdio wires it: telemetry first, observing the journal, closed after it.
        try (Telemetry telemetry = Gateway.telemetry(config, diagnostics);
                FileAuditJournal journal = Gateway.journal(config, telemetry.journal(), diagnostics)) {
            Gateway.run(config, journal, List.of(http), ToolResults.DEFAULT_MAX_RESULT_BYTES, () -> Gateway.catalog(config),
                    Gateway.approvals(config, journal, Clock.systemUTC()), telemetry,
                    new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), stdout, diagnostics, session -> { }, Optional.empty());
        }
        String out = stdout.toString(StandardCharsets.UTF_8);
        return out.lines().map(l -> {
            try {
                return JSON.readTree(l);
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }).toList();
    }

    private static String call(int id, String url, String trace, String parent) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
                + "\"arguments\":{\"method\":\"GET\",\"url\":\"" + url + "\"},"
                + "\"_meta\":{\"traceparent\":\"00-" + trace + "-" + parent + "-01\",\"tracestate\":\"rojo=00f067aa0ba902b7\"}}}\n";
    }

    private static String attr(Span span, String key) {
        return OtlpReceiver.attribute(span, key).orElse(null);
    }

    private static Span byId(List<Span> spans, String id) {
        return spans.stream().filter(s -> id.equals(attr(s, "jsonrpc.request.id"))).findFirst()
                .orElseThrow(() -> new AssertionError("no span for request " + id + " among " + spans.stream().map(Span::getName).toList()));
    }

    @Test
    void aDeniedAndAnAllowedCallAreServerSpansParentedToTheClientsTraceparentWithThePolicysDecision() throws Exception {
        try (OtlpReceiver receiver = OtlpReceiver.start(OtlpReceiver.Mode.ANSWER)) {
            List<JsonNode> answers = run(config(receiver.endpoint(), Duration.ofSeconds(10)), SessionHarness.INIT + SessionHarness.INITIALIZED
                    + call(2, "http://127.0.0.1:9/v1/allowed-VALUE-4411?q=query-VALUE-8855", ALLOWED_TRACE, ALLOWED_PARENT)
                    + call(3, "http://127.0.0.1:9/private/denied-VALUE-5522", DENIED_TRACE, DENIED_PARENT)
                    + "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\",\"arguments\":{\"url\":\"schema-VALUE-6633\"}}}\n"
                    + "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"bogus/method-VALUE-7744\"}\n"
                    + "{\"jsonrpc\":\"2.0\",\"id\":\"six\",\"method\":\"tools/list\"}\n");
            assertEquals(6, answers.size(), answers::toString);
            assertEquals(1, http.count(), "only the allowed call ran");

            List<Span> spans = receiver.spans();
            assertEquals(0, receiver.malformed());
            assertEquals(6, spans.size(), () -> spans.stream().map(Span::getName).toList().toString());
            assertTrue(spans.stream().allMatch(s -> s.getKind() == Span.SpanKind.SPAN_KIND_SERVER));
            assertTrue(spans.stream().allMatch(s -> "pipe".equals(attr(s, "network.transport"))));

            Span allowed = byId(spans, "2");
            assertEquals("tools/call http_request", allowed.getName());
            assertEquals(ALLOWED_TRACE, HexFormat.of().formatHex(allowed.getTraceId().toByteArray()));
            assertEquals(ALLOWED_PARENT, HexFormat.of().formatHex(allowed.getParentSpanId().toByteArray()));
            assertEquals("rojo=00f067aa0ba902b7", allowed.getTraceState());
            assertEquals("tools/call", attr(allowed, "mcp.method.name"));
            assertEquals("http_request", attr(allowed, "gen_ai.tool.name"));
            assertEquals("execute_tool", attr(allowed, "gen_ai.operation.name"));
            assertEquals("2025-06-18", attr(allowed, "mcp.protocol.version"));
            assertEquals("permit", attr(allowed, "postern.decision"));
            assertEquals("http_request", attr(allowed, "postern.kind"));
            assertEquals("api", attr(allowed, "postern.target"));
            assertEquals("ok", attr(allowed, "postern.outcome"));
            assertTrue(attr(allowed, "postern.rule").startsWith("http."), attr(allowed, "postern.rule"));
            assertTrue(Long.parseLong(attr(allowed, "postern.intent.seq")) >= 0);
            assertEquals(null, attr(allowed, "error.type"));
            assertEquals(Status.StatusCode.STATUS_CODE_UNSET, allowed.getStatus().getCode());

            Span denied = byId(spans, "3");
            assertEquals("tools/call http_request", denied.getName());
            assertEquals(DENIED_TRACE, HexFormat.of().formatHex(denied.getTraceId().toByteArray()));
            assertEquals(DENIED_PARENT, HexFormat.of().formatHex(denied.getParentSpanId().toByteArray()));
            assertEquals("deny", attr(denied, "postern.decision"));
            assertEquals("policy", attr(denied, "postern.stage"));
            assertEquals("POLICY_DENIED", attr(denied, "postern.reason"));
            assertTrue(attr(denied, "postern.rule").startsWith("http."), attr(denied, "postern.rule"));
            assertEquals("tool_error", attr(denied, "error.type"));
            assertEquals(Status.StatusCode.STATUS_CODE_ERROR, denied.getStatus().getCode());
            assertEquals(null, attr(denied, "postern.intent.seq"));

            Span schema = byId(spans, "4");
            assertEquals("reject", attr(schema, "postern.decision"));
            assertEquals("schema", attr(schema, "postern.stage"));
            assertEquals("tool_error", attr(schema, "error.type"));

            Span unknown = byId(spans, "5");
            assertEquals("_OTHER", unknown.getName());
            assertEquals("_OTHER", attr(unknown, "mcp.method.name"));
            assertEquals("-32601", attr(unknown, "rpc.response.status_code"));
            assertEquals("-32601", attr(unknown, "error.type"));

            Span list = byId(spans, "six");
            assertEquals("tools/list", list.getName());
            assertEquals(null, attr(list, "gen_ai.operation.name"));

            Span init = byId(spans, "1");
            assertEquals("initialize", init.getName());
            assertEquals("2025-06-18", attr(init, "mcp.protocol.version"));
            assertTrue(init.getParentSpanId().isEmpty(), "a request without traceparent starts its own trace");

            Map<String, String> resource = receiver.traceResource();
            assertEquals("postern-test", resource.get("service.name"));
            assertEquals("test", resource.get("deployment.environment.name"));

            Set<String> metrics = receiver.metrics().stream().map(m -> m.getName()).collect(Collectors.toSet());
            assertTrue(metrics.containsAll(Set.of("mcp.server.operation.duration", "postern.decisions", "postern.executor.duration")),
                    metrics::toString);
            var duration = receiver.metrics().stream().filter(m -> m.getName().equals("mcp.server.operation.duration")).findFirst().orElseThrow();
            assertEquals("s", duration.getUnit());
            assertEquals(6, duration.getHistogram().getDataPointsList().stream().mapToLong(p -> p.getCount()).sum());
            var decisions = receiver.metrics().stream().filter(m -> m.getName().equals("postern.decisions")).findFirst().orElseThrow();
            Set<String> byDecision = decisions.getSum().getDataPointsList().stream()
                    .map(p -> OtlpReceiver.attribute(p.getAttributesList(), "postern.decision").orElseThrow() + "/"
                            + OtlpReceiver.attribute(p.getAttributesList(), "postern.stage").orElseThrow())
                    .collect(Collectors.toSet());
            assertEquals(Set.of("permit/policy", "deny/policy", "reject/schema", "reject/mcp"), byDecision);

            // Every journal row, exactly as in its file, is one log record: body the row, attributes its journal, seq and chain hash.
            List<String> rows = new java.util.ArrayList<>();
            for (String name : List.of("decisions", "actions")) {
                Path file = dir.resolve("journal").resolve(name + ".jsonl");
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    rows.add(name + " " + JSON.readTree(line).get("seq").asLong() + " "
                            + dev.postern.journal.HashChain.sha256(line) + " " + line);
                }
            }
            List<LogRecord> records = receiver.logRecords();
            List<String> logged = records.stream().map(r -> OtlpReceiver.attribute(r.getAttributesList(), "postern.journal.name").orElseThrow()
                    + " " + OtlpReceiver.attribute(r.getAttributesList(), "postern.journal.seq").orElseThrow()
                    + " " + OtlpReceiver.attribute(r.getAttributesList(), "postern.journal.hash").orElseThrow()
                    + " " + r.getBody().getStringValue()).toList();
            assertEquals(Set.copyOf(rows), Set.copyOf(logged));
            assertEquals(rows.size(), logged.size(), "each row once");
            assertTrue(rows.size() >= 4, rows::toString);
            assertTrue(records.stream().allMatch(r -> r.getSeverityNumber() == io.opentelemetry.proto.logs.v1.SeverityNumber.SEVERITY_NUMBER_INFO));
            var flush = receiver.metrics().stream().filter(m -> m.getName().equals("postern.journal.flush.duration")).toList();
            assertFalse(flush.isEmpty(), "the journal's writes are timed");
            assertTrue(flush.stream().flatMap(m -> m.getHistogram().getDataPointsList().stream())
                    .anyMatch(p -> "true".equals(OtlpReceiver.attribute(p.getAttributesList(), "postern.journal.forced").orElse(null))
                            && "actions".equals(OtlpReceiver.attribute(p.getAttributesList(), "postern.journal.name").orElse(null))),
                    "the intent row's forced write");

            for (String value : List.of("allowed-VALUE-4411", "query-VALUE-8855", "denied-VALUE-5522", "schema-VALUE-6633", "method-VALUE-7744", "127.0.0.1:9",
                    SECRET, "recorded")) {
                assertFalse(receiver.anywhere(value, Set.of("/v1/traces", "/v1/metrics")), "the receiver got " + value + " in spans or metrics");
            }
            // Logs are the rows as written (above), so they hold what the journal holds and no more: with redaction the
            // query's value is a digest and a denial's URL only its origin; never a secret, never an output.
            for (String value : List.of("query-VALUE-8855", "denied-VALUE-5522", "schema-VALUE-6633", "method-VALUE-7744", SECRET, "recorded")) {
                assertFalse(receiver.anywhere(value, Set.of("/v1/logs")), "the receiver got " + value + " in logs");
            }
            // The collector's own header is the one place the credential goes, as configured.
            assertTrue(receiver.headers().stream().allMatch(h -> List.of("Bearer " + SECRET).equals(h.get("Authorization"))));
            assertEquals("", stderr.toString(StandardCharsets.UTF_8), "nothing dropped, nothing said");
        }
    }

    @ParameterizedTest
    @EnumSource(value = OtlpReceiver.Mode.class, names = {"FAIL_500", "NEVER_ANSWER", "CLOSE"})
    void aCollectorThatRefusesNeverAnswersOrClosesCostsEveryCallNothingButCountedDrops(OtlpReceiver.Mode mode) throws Exception {
        try (OtlpReceiver receiver = OtlpReceiver.start(mode)) {
            everyCallIsAnsweredAndTheDropsAreCounted(config(receiver.endpoint()));
            assertTrue(receiver.requests() > 0, "the exporter tried");
        }
    }

    @Test
    void aCollectorThatIsDownCostsEveryCallNothingButCountedDrops() throws Exception {
        everyCallIsAnsweredAndTheDropsAreCounted(config(OtlpReceiver.downEndpoint()));
    }

    private void everyCallIsAnsweredAndTheDropsAreCounted(GatewayConfig config) throws IOException {
        StringBuilder input = new StringBuilder(SessionHarness.INIT + SessionHarness.INITIALIZED);
        int calls = 40;
        for (int i = 0; i < calls; i++) {
            input.append(call(10 + i, "http://127.0.0.1:9/v1/n" + i, ALLOWED_TRACE, ALLOWED_PARENT));
        }
        List<JsonNode> answers = run(config, input.toString());
        assertEquals(calls + 1, answers.size());
        assertTrue(answers.stream().skip(1).allMatch(a -> a.path("result").path("isError").isBoolean()
                && !a.path("result").path("isError").asBoolean()), answers::toString);
        assertEquals(calls, http.count());
        List<String> said = stderr.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(1, said.stream().filter(l -> l.contains("(said once)")).count(), said::toString);
        String total = said.stream().filter(l -> l.contains("records dropped in all")).findFirst()
                .orElseThrow(() -> new AssertionError("no drop count on stderr: " + said));
        long dropped = Long.parseLong(total.replaceAll("\\D*(\\d+) records dropped.*", "$1"));
        assertTrue(dropped >= calls + 1, total);
        assertFalse(stderr.toString(StandardCharsets.UTF_8).contains(SECRET));
    }
}
