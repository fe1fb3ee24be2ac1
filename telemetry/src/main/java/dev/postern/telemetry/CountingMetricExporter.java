package dev.postern.telemetry;

import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.metrics.InstrumentType;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.export.MetricExporter;
import java.util.Collection;

/** A metric exporter that counts the metrics of every export that failed as dropped. Thread-safe. */
final class CountingMetricExporter implements MetricExporter {
    private final MetricExporter delegate;
    private final Drops drops;

    CountingMetricExporter(MetricExporter delegate, Drops drops) {
        this.delegate = delegate;
        this.drops = drops;
    }

    @Override
    public CompletableResultCode export(Collection<MetricData> metrics) {
        int n = metrics.size();
        CompletableResultCode result;
        try {
            result = delegate.export(metrics);
        } catch (RuntimeException e) {
            drops.add("metrics", n, "the exporter failed: " + e.getClass().getSimpleName());
            return CompletableResultCode.ofFailure();
        }
        result.whenComplete(() -> {
            if (!result.isSuccess()) {
                drops.add("metrics", n, "the collector refused, could not be reached or did not answer in time");
            }
        });
        return result;
    }

    @Override
    public CompletableResultCode flush() {
        return delegate.flush();
    }

    @Override
    public CompletableResultCode shutdown() {
        return delegate.shutdown();
    }

    @Override
    public AggregationTemporality getAggregationTemporality(InstrumentType instrumentType) {
        return delegate.getAggregationTemporality(instrumentType);
    }
}
