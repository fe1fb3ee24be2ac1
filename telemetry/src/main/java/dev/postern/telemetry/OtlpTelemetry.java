package dev.postern.telemetry;

import dev.postern.policy.port.Telemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import dev.postern.policy.port.JournalObserver;
import io.opentelemetry.api.logs.LoggerProvider;
import io.opentelemetry.exporter.otlp.http.logs.OtlpHttpLogRecordExporter;
import io.opentelemetry.exporter.otlp.http.metrics.OtlpHttpMetricExporter;
import io.opentelemetry.sdk.logs.SdkLoggerProvider;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.export.PeriodicMetricReader;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import java.io.PrintStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The {@link Telemetry} port on the OpenTelemetry SDK: each agent request becomes an MCP SERVER span,
 * parented to the W3C trace context in its {@code params._meta} (SEP-414), metrics in the MCP
 * conventions and, with the {@code logs} signal, each journal row a log record, all exported over OTLP/HTTP protobuf with the JDK's HTTP client. Export runs on its own
 * daemon threads behind bounded queues; nothing here blocks a caller, and every record that cannot be
 * sent is counted ({@link #dropped}). Thread-safe.
 */
public final class OtlpTelemetry implements Telemetry {
    static final String SCOPE = "dev.postern.gateway";
    static final Duration METRIC_INTERVAL = Duration.ofSeconds(10);

    /**
     * The SDK logs failed exports through java.util.logging, which writes to stderr; {@link Drops} says
     * it once instead. Held here so the level is not collected with the logger.
     */
    private static final Logger SDK_LOGS = Logger.getLogger("io.opentelemetry");

    private static final TextMapGetter<Map<String, String>> META = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    private final SdkTracerProvider tracerProvider;
    private final SdkMeterProvider meterProvider;
    private final SdkLoggerProvider loggerProvider;
    private final JournalObserver journal;
    private final Tracer tracer;
    private final Instruments instruments;
    private final Drops drops;
    private final PrintStream diagnostics;

    private OtlpTelemetry(SdkTracerProvider tracerProvider, SdkMeterProvider meterProvider, SdkLoggerProvider loggerProvider,
                          JournalObserver journal, Tracer tracer, Instruments instruments, Drops drops, PrintStream diagnostics) {
        this.tracerProvider = tracerProvider;
        this.meterProvider = meterProvider;
        this.loggerProvider = loggerProvider;
        this.journal = journal;
        this.tracer = tracer;
        this.instruments = instruments;
        this.drops = drops;
        this.diagnostics = diagnostics;
    }

    /** Starts export as {@code settings} say; connects to nothing until there is something to send. */
    public static OtlpTelemetry start(OtlpSettings settings, PrintStream diagnostics) {
        SDK_LOGS.setLevel(Level.OFF);
        Drops drops = new Drops(diagnostics, settings.endpoint().toString());
        AttributesBuilder resource = Attributes.builder()
                .put(AttributeKey.stringKey("service.name"), settings.serviceName())
                .put(AttributeKey.stringKey("service.version"), settings.serviceVersion());
        settings.resourceAttributes().forEach((k, v) -> resource.put(AttributeKey.stringKey(k), v));
        Resource res = Resource.getDefault().merge(Resource.create(resource.build()));

        SdkTracerProvider tracers = null;
        Tracer tracer = TracerProvider.noop().get(SCOPE);
        if (settings.traces()) {
            var spans = OtlpHttpSpanExporter.builder().setEndpoint(settings.url("/v1/traces")).setTimeout(settings.timeout())
                    .setConnectTimeout(settings.timeout()).setRetryPolicy(null).setMeterProvider(MeterProvider::noop);
            settings.headers().forEach(spans::addHeader);
            tracers = SdkTracerProvider.builder().setResource(res)
                    .addSpanProcessor(new BoundedSpanExport(spans.build(), settings.maxQueue(), settings.timeout(), drops)).build();
            tracer = tracers.get(SCOPE);
        }
        SdkMeterProvider meters = null;
        Instruments instruments = Instruments.on(MeterProvider.noop().get(SCOPE));
        if (settings.metrics()) {
            var metrics = OtlpHttpMetricExporter.builder().setEndpoint(settings.url("/v1/metrics")).setTimeout(settings.timeout())
                    .setConnectTimeout(settings.timeout()).setRetryPolicy(null).setMeterProvider(MeterProvider::noop);
            settings.headers().forEach(metrics::addHeader);
            meters = SdkMeterProvider.builder().setResource(res)
                    .registerMetricReader(PeriodicMetricReader.builder(new CountingMetricExporter(metrics.build(), drops))
                            .setInterval(METRIC_INTERVAL).build())
                    .build();
            instruments = Instruments.on(meters.get(SCOPE));
        }
        SdkLoggerProvider loggers = null;
        io.opentelemetry.api.logs.Logger logger = LoggerProvider.noop().get(SCOPE);
        if (settings.logs()) {
            var logs = OtlpHttpLogRecordExporter.builder().setEndpoint(settings.url("/v1/logs")).setTimeout(settings.timeout())
                    .setConnectTimeout(settings.timeout()).setRetryPolicy(null).setMeterProvider(MeterProvider::noop);
            settings.headers().forEach(logs::addHeader);
            loggers = SdkLoggerProvider.builder().setResource(res)
                    .addLogRecordProcessor(new BoundedLogExport(logs.build(), settings.maxQueue(), settings.timeout(), drops)).build();
            logger = loggers.get(SCOPE);
        }
        JournalObserver journal = settings.logs() || settings.metrics() ? new JournalRecords(logger, instruments) : JournalObserver.NONE;
        return new OtlpTelemetry(tracers, meters, loggers, journal, tracer, instruments, drops, diagnostics);
    }

    @Override
    public Telemetry.Span request(Telemetry.Request request) {
        String method = Conventions.method(request.method());
        Map<String, String> carrier = new HashMap<>(2);
        request.traceparent().ifPresent(v -> carrier.put("traceparent", v));
        request.tracestate().ifPresent(v -> carrier.put("tracestate", v));
        // An invalid traceparent is ignored by the propagator: the span starts a trace of its own.
        Context parent = carrier.isEmpty() ? Context.root()
                : W3CTraceContextPropagator.getInstance().extract(Context.root(), carrier, META);
        long start = System.nanoTime();
        var builder = tracer.spanBuilder(method).setSpanKind(SpanKind.SERVER).setParent(parent)
                .setAttribute(Conventions.MCP_METHOD_NAME, method)
                .setAttribute(Conventions.NETWORK_TRANSPORT, Conventions.PIPE);
        request.id().ifPresent(id -> builder.setAttribute(Conventions.JSONRPC_REQUEST_ID, id));
        io.opentelemetry.api.trace.Span span = builder.startSpan();
        return new McpServerSpan(span, instruments, method, start, tracer);
    }

    @Override
    public JournalObserver journal() {
        return journal;
    }

    @Override
    public void upstreamDropped(String server, String reason) {
        instruments.upstreamDropped().add(1, Attributes.of(Conventions.POSTERN_TARGET, server, Conventions.POSTERN_REASON, reason));
    }

    @Override
    public long dropped() {
        return drops.count();
    }

    /** Sends what is queued (each signal bounded by its export timeout), stops, and says on stderr what was dropped. */
    @Override
    public void close() {
        // The signals stop side by side, so a collector that never answers delays the gateway's exit by about one
        // export timeout, not one per signal (an MCP client may kill a server that takes seconds to exit).
        List<Thread> stopping = new java.util.ArrayList<>();
        for (Runnable stop : new Runnable[] {
                () -> shutdown(tracerProvider == null ? null : tracerProvider::shutdown),
                () -> shutdown(loggerProvider == null ? null : loggerProvider::shutdown),
                () -> shutdown(meterProvider == null ? null : meterProvider::shutdown)}) {
            Thread t = new Thread(stop, "postern-telemetry-stop");
            t.setDaemon(true);
            t.start();
            stopping.add(t);
        }
        for (Thread t : stopping) {
            try {
                t.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        long dropped = drops.count();
        if (dropped > 0) {
            diagnostics.println("postern: telemetry: " + dropped + " records dropped in all (never sent)");
        }
    }

    private static void shutdown(java.util.function.Supplier<io.opentelemetry.sdk.common.CompletableResultCode> provider) {
        if (provider != null) {
            provider.get().join(30, TimeUnit.SECONDS);
        }
    }

    /** The span and metric names this adapter records, for documentation checks. */
    static List<String> metricNames() {
        return List.of(Conventions.SERVER_DURATION, Conventions.DECISIONS, Conventions.APPROVALS, Conventions.EXECUTOR_DURATION,
                Conventions.JOURNAL_FLUSH_DURATION, Conventions.UPSTREAM_DROPPED);
    }
}
