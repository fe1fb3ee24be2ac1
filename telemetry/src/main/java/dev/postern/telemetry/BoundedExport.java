package dev.postern.telemetry;

import io.opentelemetry.sdk.common.CompletableResultCode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One signal's bounded queue, drained to its exporter in batches by one daemon thread: {@link #offer}
 * never blocks (a full queue drops the record, counted), and a collector that is down, slow or
 * refusing costs only that thread's time and counted drops. Unlike the SDK's batch processors, every
 * drop is counted where {@link Drops} can see it. Thread-safe.
 */
final class BoundedExport<T> {
    static final int MAX_BATCH = 512;

    private final String signal;
    private final BlockingQueue<T> queue;
    private final Function<Collection<T>, CompletableResultCode> export;
    private final Supplier<CompletableResultCode> shutdownExporter;
    private final Duration timeout;
    private final Drops drops;
    private final Thread worker;
    private volatile boolean stopping;

    BoundedExport(String signal, Function<Collection<T>, CompletableResultCode> export, Supplier<CompletableResultCode> shutdownExporter,
            int maxQueue, Duration timeout, Drops drops) {
        this.signal = signal;
        this.queue = new ArrayBlockingQueue<>(maxQueue);
        this.export = export;
        this.shutdownExporter = shutdownExporter;
        this.timeout = timeout;
        this.drops = drops;
        this.worker = new Thread(this::drain, "postern-telemetry-" + signal);
        worker.setDaemon(true);
        worker.start();
    }

    /** Queues {@code record} for export, or drops it (counted) when the queue is full or export stopping. */
    void offer(T record) {
        if (stopping || !queue.offer(record)) {
            drops.add(signal, 1, stopping ? "the gateway was stopping" : "the export queue was full");
        }
    }

    private void drain() {
        List<T> batch = new ArrayList<>(MAX_BATCH);
        while (!stopping || !queue.isEmpty()) {
            try {
                T first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, MAX_BATCH - 1);
                send(batch);
            } catch (InterruptedException e) {
                break;
            } finally {
                batch.clear();
            }
        }
    }

    private void send(List<T> batch) {
        try {
            CompletableResultCode result = export.apply(List.copyOf(batch));
            result.join(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
            if (!result.isSuccess()) {
                drops.add(signal, batch.size(), result.isDone() ? "the collector refused or could not be reached" : "the collector did not answer in time");
            }
        } catch (RuntimeException e) {
            drops.add(signal, batch.size(), "the exporter failed: " + e.getClass().getSimpleName());
        }
    }

    /** Sends what is queued (bounded by the export timeout), counts what is left as dropped, and shuts the exporter down. */
    CompletableResultCode shutdown() {
        stopping = true;
        try {
            // The batch in flight is bounded by the exporter's own timeout.
            worker.join(timeout.toMillis() + 500);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // Whatever is still queued once the worker stopped waiting is not sent.
        drops.add(signal, queue.size(), "the gateway stopped before it could be sent");
        queue.clear();
        return shutdownExporter.get();
    }
}
