package dev.postern.telemetry;

import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Ends spans into a bounded queue that one daemon thread drains to the exporter in batches: ending a
 * span never blocks (a full queue drops it, counted), and a collector that is down, slow or refusing
 * costs only that thread's time and counted drops. Unlike the SDK's batch processor, every drop is
 * counted where {@link Drops} can see it. Thread-safe.
 */
final class BoundedSpanExport implements SpanProcessor {
    static final int MAX_BATCH = 512;

    private final BlockingQueue<SpanData> queue;
    private final SpanExporter exporter;
    private final Duration timeout;
    private final Drops drops;
    private final Thread worker;
    private volatile boolean stopping;

    BoundedSpanExport(SpanExporter exporter, int maxQueue, Duration timeout, Drops drops) {
        this.queue = new ArrayBlockingQueue<>(maxQueue);
        this.exporter = exporter;
        this.timeout = timeout;
        this.drops = drops;
        this.worker = new Thread(this::drain, "postern-telemetry-spans");
        worker.setDaemon(true);
        worker.start();
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
        if (!span.getSpanContext().isSampled()) {
            return;
        }
        if (stopping || !queue.offer(span.toSpanData())) {
            drops.add("spans", 1, stopping ? "the gateway was stopping" : "the export queue was full");
        }
    }

    @Override
    public boolean isEndRequired() {
        return true;
    }

    private void drain() {
        List<SpanData> batch = new ArrayList<>(MAX_BATCH);
        while (!stopping || !queue.isEmpty()) {
            try {
                SpanData first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, MAX_BATCH - 1);
                export(batch);
            } catch (InterruptedException e) {
                break;
            } finally {
                batch.clear();
            }
        }
    }

    private void export(List<SpanData> batch) {
        try {
            CompletableResultCode result = exporter.export(List.copyOf(batch));
            result.join(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
            if (!result.isSuccess()) {
                drops.add("spans", batch.size(), result.isDone() ? "the collector refused or could not be reached" : "the collector did not answer in time");
            }
        } catch (RuntimeException e) {
            drops.add("spans", batch.size(), "the exporter failed: " + e.getClass().getSimpleName());
        }
    }

    @Override
    public CompletableResultCode shutdown() {
        stopping = true;
        try {
            worker.join(timeout.toMillis() + 2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // Whatever is still queued once the worker stopped waiting is not sent.
        drops.add("spans", queue.size(), "the gateway stopped before it could be sent");
        queue.clear();
        return exporter.shutdown();
    }

    @Override
    public CompletableResultCode forceFlush() {
        return CompletableResultCode.ofSuccess();
    }
}
