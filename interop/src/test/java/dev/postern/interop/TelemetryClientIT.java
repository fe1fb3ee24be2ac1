package dev.postern.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.fixtures.otlp.OtlpReceiver;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.trace.v1.Span;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The TypeScript SDK's client ({@code interop/ts/telemetry-client.mjs}) drives the packaged launcher
 * with telemetry on, against the test-fixtures OTLP receiver, which decodes exactly what arrives: a
 * denied, an allowed, an approved and an upstream call become SERVER spans parented to the
 * {@code traceparent} the client sent in {@code _meta}, the HTTP and upstream calls CLIENT spans under
 * them whose context the service and the upstream server received; every journal row is a log record;
 * the metrics arrive; no argument value and no secret is anywhere in spans or metrics, and no secret
 * and no redacted value in the logs. A collector that is down, refuses, never answers or closes costs
 * the calls nothing, and the drops are counted (in the session's end row, and on stderr).
 */
class TelemetryClientIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String UPSTREAM_TOOL = PinnedUpstreams.EVERYTHING + "__echo";

    private record Run(JsonNode record, String context, Path dir, PackagedGateway gateway) {
        JsonNode step(String name) {
            return record.path("steps").path(name).path("result");
        }
    }

    private static Run run(Path dir, PackagedGateway gateway, String upstreamTool) throws Exception {
        String node = NodeTools.systemNode();
        Path record = dir.resolve("record.json");
        Path clientLog = dir.resolve("client.log");
        Process p = new ProcessBuilder(node, NodeTools.interopDir().resolve("ts").resolve("telemetry-client.mjs").toString(),
                gateway.serverCommand.toString(), gateway.allowedUrl(), gateway.deniedUrl(), upstreamTool, record.toString())
                .redirectErrorStream(true).redirectOutput(clientLog.toFile()).start();
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the TypeScript client did not finish in 180 s\n" + Files.readString(clientLog));
        }
        int gatewayExit = gateway.awaitExitStatus(Duration.ofSeconds(60));
        String recorded = Files.exists(record) ? Files.readString(record, StandardCharsets.UTF_8) : "{}";
        String context = "client record:\n" + recorded + "\nclient output:\n" + Files.readString(clientLog) + "\n" + gateway.stderrText();
        assertEquals(0, p.exitValue(), context);
        assertEquals(0, gatewayExit, context);
        return new Run(JSON.readTree(recorded), context, dir, gateway);
    }

    private static String attr(Span s, String key) {
        return OtlpReceiver.attribute(s, key).orElse(null);
    }

    private static String hex(com.google.protobuf.ByteString b) {
        return HexFormat.of().formatHex(b.toByteArray());
    }

    private static List<Span> inTrace(List<Span> spans, String trace) {
        return spans.stream().filter(s -> hex(s.getTraceId()).equals(trace)).toList();
    }

    private static Span one(List<Span> spans, Span.SpanKind kind, String context) {
        List<Span> of = spans.stream().filter(s -> s.getKind() == kind).toList();
        assertEquals(1, of.size(), () -> kind + " spans: " + of.stream().map(Span::getName).toList() + "\n" + context);
        return of.get(0);
    }

    private static JsonNode endRow(Path dir) throws Exception {
        JsonNode end = null;
        for (String line : Files.readAllLines(dir.resolve("journal").resolve("actions.jsonl"), StandardCharsets.UTF_8)) {
            JsonNode row = JSON.readTree(line);
            if ("session".equals(row.path("kind").asText()) && "end".equals(row.path("event").asText())) {
                end = row;
            }
        }
        assertTrue(end != null, "no session end row");
        return end;
    }

    @Test
    void deniedAllowedApprovedAndUpstreamCallsAreSpansLogRecordsAndMetricsParentedToTheClientsTraceparent() throws Exception {
        NodeTools.installed("@modelcontextprotocol/sdk/package.json");
        Path dir = Files.createTempDirectory("postern-interop-telemetry-");
        PinnedUpstreams upstreams = PinnedUpstreams.prepare(dir.resolve("upstreams"));
        try (OtlpReceiver receiver = OtlpReceiver.start(OtlpReceiver.Mode.ANSWER);
                PackagedGateway gateway = PackagedGateway.startWithTelemetry(dir, Optional.of(upstreams), receiver.endpoint())) {
            Run run = run(dir, gateway, UPSTREAM_TOOL);
            String context = run.context() + "\nspans: " + receiver.spans().stream().map(s -> s.getName() + "/" + s.getKind()).toList();
            List<Span> spans = receiver.spans();
            assertEquals(0, receiver.malformed(), context);

            // The denied call: a SERVER span under the client's span, the policy's denial on it, nothing called out.
            JsonNode deniedTrace = run.record().path("traces").path("denied");
            List<Span> denied = inTrace(spans, deniedTrace.path("trace").asText());
            Span deniedServer = one(denied, Span.SpanKind.SPAN_KIND_SERVER, context);
            assertEquals(1, denied.size(), context);
            assertEquals(deniedTrace.path("parent").asText(), hex(deniedServer.getParentSpanId()), context);
            assertEquals("tools/call http_request", deniedServer.getName(), context);
            assertEquals("deny", attr(deniedServer, "postern.decision"), context);
            assertEquals("tool_error", attr(deniedServer, "error.type"), context);
            assertTrue(run.step("denied").path("isError").asBoolean(false), context);

            // The allowed and the approved call: each an HTTP CLIENT span under its SERVER span, whose context the service got.
            for (String name : List.of("allowed", "approved")) {
                JsonNode t = run.record().path("traces").path(name);
                List<Span> trace = inTrace(spans, t.path("trace").asText());
                Span server = one(trace, Span.SpanKind.SPAN_KIND_SERVER, context);
                Span clientSpan = one(trace, Span.SpanKind.SPAN_KIND_CLIENT, context);
                assertEquals(t.path("parent").asText(), hex(server.getParentSpanId()), name + ": " + context);
                assertEquals("permit", attr(server, "postern.decision"), name + ": " + context);
                assertEquals(hex(server.getSpanId()), hex(clientSpan.getParentSpanId()), name + ": " + context);
                String method = name.equals("allowed") ? "GET" : "POST";
                assertEquals(method, clientSpan.getName(), context);
                assertEquals(method, attr(clientSpan, "http.request.method"), context);
                assertEquals(name.equals("allowed") ? "200" : "201", attr(clientSpan, "http.response.status_code"), context);
                assertEquals("127.0.0.1", attr(clientSpan, "server.address"), context);
                assertEquals("loopback", attr(clientSpan, "postern.target"), context);
                String path = name.equals("allowed") ? "/v1/hello" : "/v1/approve-me";
                var got = gateway.http.requests().stream().filter(r -> r.method().equals(method) && r.path().startsWith(path)).toList();
                assertEquals(1, got.size(), context);
                assertEquals(List.of("00-" + t.path("trace").asText() + "-" + hex(clientSpan.getSpanId()) + "-01"),
                        got.get(0).headers().get("traceparent"), "the service got the CLIENT span's context: " + context);
                assertFalse(run.step(name).path("isError").asBoolean(true), name + ": " + context);
            }
            Span approvedServer = one(inTrace(spans, run.record().path("traces").path("approved").path("trace").asText()),
                    Span.SpanKind.SPAN_KIND_SERVER, context);
            assertEquals("approved", attr(approvedServer, "postern.approval.outcome"), context);

            // The upstream call: an MCP CLIENT span under its SERVER span; the upstream got its context in _meta.
            JsonNode ut = run.record().path("traces").path("upstream");
            List<Span> upstream = inTrace(spans, ut.path("trace").asText());
            Span upstreamServer = one(upstream, Span.SpanKind.SPAN_KIND_SERVER, context);
            Span upstreamClient = one(upstream, Span.SpanKind.SPAN_KIND_CLIENT, context);
            assertEquals(ut.path("parent").asText(), hex(upstreamServer.getParentSpanId()), context);
            assertEquals(hex(upstreamServer.getSpanId()), hex(upstreamClient.getParentSpanId()), context);
            assertEquals("tools/call echo", upstreamClient.getName(), context);
            assertEquals("echo", attr(upstreamClient, "gen_ai.tool.name"), context);
            assertEquals(PinnedUpstreams.EVERYTHING, attr(upstreamClient, "postern.target"), context);
            List<JsonNode> sent = upstreams.received(PinnedUpstreams.EVERYTHING).stream()
                    .filter(m -> "tools/call".equals(m.path("method").asText())).toList();
            assertEquals(1, sent.size(), upstreams.receivedText());
            assertEquals("00-" + ut.path("trace").asText() + "-" + hex(upstreamClient.getSpanId()) + "-01",
                    sent.get(0).path("params").path("_meta").path("traceparent").asText(), upstreams.receivedText());
            assertEquals("interop=t4", sent.get(0).path("params").path("_meta").path("tracestate").asText(), upstreams.receivedText());

            // Every journal row of both files is one log record, the row as written.
            Set<String> rows = new java.util.HashSet<>();
            for (String journal : List.of("decisions", "actions")) {
                Files.readAllLines(dir.resolve("journal").resolve(journal + ".jsonl"), StandardCharsets.UTF_8).forEach(l -> rows.add(journal + " " + l));
            }
            List<LogRecord> records = receiver.logRecords();
            Set<String> logged = records.stream().map(r -> OtlpReceiver.attribute(r.getAttributesList(), "postern.journal.name").orElse("?")
                    + " " + r.getBody().getStringValue()).collect(Collectors.toSet());
            assertEquals(rows, logged, context);
            assertEquals(rows.size(), records.size(), context);
            assertEquals(0, endRow(dir).path("telemetryDropped").asLong(-1), "nothing dropped: " + context);

            Set<String> metrics = receiver.metrics().stream().map(m -> m.getName()).collect(Collectors.toSet());
            assertTrue(metrics.containsAll(Set.of("mcp.server.operation.duration", "postern.decisions", "postern.approvals",
                    "postern.executor.duration", "postern.journal.flush.duration")), metrics.toString());

            for (String value : List.of("allowed-VALUE-4411", "VALUE-5522", "approve-VALUE-6633", "echo-VALUE-7744", PackagedGateway.OTEL_SECRET)) {
                assertFalse(receiver.anywhere(value, Set.of("/v1/traces", "/v1/metrics")), value + " in spans or metrics");
            }
            // Logs are the redacted rows: a query's and a body's values are digests or lengths there; never the secret.
            for (String value : List.of("allowed-VALUE-4411", "approve-VALUE-6633", PackagedGateway.OTEL_SECRET)) {
                assertFalse(receiver.anywhere(value, Set.of("/v1/logs")), value + " in logs");
            }
            assertTrue(receiver.headers().stream().allMatch(h -> List.of("Bearer " + PackagedGateway.OTEL_SECRET).equals(h.get("Authorization"))));
        }
    }

    @ParameterizedTest
    @EnumSource(value = OtlpReceiver.Mode.class, names = {"FAIL_500", "NEVER_ANSWER", "CLOSE"})
    void aCollectorThatRefusesNeverAnswersOrClosesCostsTheCallsNothingAndItsDropsAreCounted(OtlpReceiver.Mode mode) throws Exception {
        try (OtlpReceiver receiver = OtlpReceiver.start(mode)) {
            // A collector that never answers fails each export only when it times out, after the end row: its drops
            // are in the total on stderr. The gateway still exits within the client's grace (the TypeScript SDK's 4 s).
            everyCallIsAnsweredAndTheEndRowCountsDrops(receiver.endpoint(), mode != OtlpReceiver.Mode.NEVER_ANSWER);
            assertTrue(receiver.requests() > 0, "the exporter tried");
        }
    }

    @Test
    void aCollectorThatIsDownCostsTheCallsNothingAndTheEndRowCountsTheDrops() throws Exception {
        everyCallIsAnsweredAndTheEndRowCountsDrops(OtlpReceiver.downEndpoint(), true);
    }

    private static void everyCallIsAnsweredAndTheEndRowCountsDrops(URI endpoint, boolean dropsKnownByTheEnd) throws Exception {
        NodeTools.installed("@modelcontextprotocol/sdk/package.json");
        Path dir = Files.createTempDirectory("postern-interop-telemetry-down-");
        try (PackagedGateway gateway = PackagedGateway.startWithTelemetry(dir, Optional.empty(), endpoint)) {
            Run run = run(dir, gateway, "-");
            assertFalse(run.step("allowed").path("isError").asBoolean(true), run.context());
            assertTrue(run.step("denied").path("isError").asBoolean(false), run.context());
            assertFalse(run.step("approved").path("isError").asBoolean(true), run.context());
            assertEquals(2, gateway.http.requestCount(), run.context());
            if (dropsKnownByTheEnd) {
                assertTrue(endRow(dir).path("telemetryDropped").asLong(0) > 0, "the end row counts what was dropped: " + run.context());
            } else {
                assertTrue(endRow(dir).path("telemetryDropped").isIntegralNumber(), run.context());
            }
            String stderr = gateway.stderrText();
            assertTrue(stderr.lines().anyMatch(l -> l.matches("postern: telemetry: [1-9][0-9]* records dropped in all \\(never sent\\)")), stderr);
            assertEquals(1, stderr.lines().filter(l -> l.contains("(said once)")).count(), stderr);
            assertFalse(stderr.contains(PackagedGateway.OTEL_SECRET), stderr);
        }
    }
}
