package dev.postern.telemetry;

import static dev.postern.telemetry.Conventions.*;

import dev.postern.policy.port.JournalObserver;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.logs.Logger;
import io.opentelemetry.api.logs.Severity;

/**
 * The journal's rows as OpenTelemetry log records (the row's JSON text as the body; its journal's
 * name, {@code seq} and chain hash as attributes) and each write's duration as a metric. Emitting
 * only queues ({@link BoundedLogExport}); nothing here blocks the journal. Thread-safe.
 */
final class JournalRecords implements JournalObserver {
    private final Logger logger;
    private final Instruments instruments;

    JournalRecords(Logger logger, Instruments instruments) {
        this.logger = logger;
        this.instruments = instruments;
    }

    @Override
    public void written(JournalRow row) {
        logger.logRecordBuilder()
                .setSeverity(Severity.INFO)
                .setBody(row.json())
                .setAttribute(POSTERN_JOURNAL_NAME, row.journal())
                .setAttribute(POSTERN_JOURNAL_SEQ, row.seq())
                .setAttribute(POSTERN_JOURNAL_HASH, row.sha256())
                .emit();
    }

    @Override
    public void flushed(String journal, boolean forced, long nanos) {
        instruments.journalFlushDuration().record(nanos / 1e9, Attributes.of(POSTERN_JOURNAL_NAME, journal, POSTERN_JOURNAL_FORCED, forced));
    }
}
