package dev.postern.telemetry;

import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.time.Duration;

/** Ends sampled spans into a {@link BoundedExport}: ending a span never blocks. Thread-safe. */
final class BoundedSpanExport implements SpanProcessor {
    private final BoundedExport<SpanData> export;

    BoundedSpanExport(SpanExporter exporter, int maxQueue, Duration timeout, Drops drops) {
        this.export = new BoundedExport<>("spans", exporter::export, exporter::shutdown, maxQueue, timeout, drops);
    }

    @Override
    public void onStart(Context parentContext, ReadWriteSpan span) {
    }

    @Override
    public boolean isStartRequired() {
        return false;
    }

    @Override
    public void onEnd(ReadableSpan span) {
        if (span.getSpanContext().isSampled()) {
            export.offer(span.toSpanData());
        }
    }

    @Override
    public boolean isEndRequired() {
        return true;
    }

    @Override
    public CompletableResultCode shutdown() {
        return export.shutdown();
    }

    @Override
    public CompletableResultCode forceFlush() {
        return CompletableResultCode.ofSuccess();
    }
}
