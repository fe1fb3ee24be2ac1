package dev.postern.telemetry;

import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.logs.LogRecordProcessor;
import io.opentelemetry.sdk.logs.ReadWriteLogRecord;
import io.opentelemetry.sdk.logs.data.LogRecordData;
import io.opentelemetry.sdk.logs.export.LogRecordExporter;
import java.time.Duration;

/** Emits log records into a {@link BoundedExport}: emitting never blocks. Thread-safe. */
final class BoundedLogExport implements LogRecordProcessor {
    private final BoundedExport<LogRecordData> export;

    BoundedLogExport(LogRecordExporter exporter, int maxQueue, Duration timeout, Drops drops) {
        this.export = new BoundedExport<>("logs", exporter::export, exporter::shutdown, maxQueue, timeout, drops);
    }

    @Override
    public void onEmit(Context context, ReadWriteLogRecord logRecord) {
        export.offer(logRecord.toLogRecordData());
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
