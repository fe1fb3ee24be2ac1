package dev.postern.policy.port;

import java.util.Objects;

/**
 * Hears each journal row once it is in its file, for export past this machine (the telemetry adapter
 * sends each as a log record), and how long each write took. The journal calls it on its writing
 * thread, after the batch holding the row was written (and, for a row the journal forces, such as an
 * intent, after the force), never before, and in the file's order. Implementations must never block
 * or throw (a bounded queue that counts what it drops): the journal's own write is never delayed or
 * refused for an observer. {@link #NONE} hears nothing. Thread-safe.
 */
public interface JournalObserver {

    /** An observer that does nothing. */
    JournalObserver NONE = new JournalObserver() {
    };

    /** {@code row} is in its file. */
    default void written(JournalRow row) {
    }

    /**
     * One batch of rows was written to journal {@code journal} in {@code nanos} nanoseconds, with
     * {@code forced} telling whether the write was forced to disk.
     */
    default void flushed(String journal, boolean forced, long nanos) {
    }

    /**
     * One row as written: its journal's name ({@code actions}, {@code decisions}), its {@code seq}, the
     * SHA-256 of its bytes (the chain hash the next row's {@code prev} holds, lowercase hex) and the row
     * itself, its JSON text exactly as in the file without the line feed. Rows hold no secret; they hold
     * argument values only where the journal renders them (see the journal's redaction).
     */
    record JournalRow(String journal, long seq, String sha256, String json) {
        public JournalRow {
            Objects.requireNonNull(journal, "journal");
            if (journal.isBlank()) {
                throw new IllegalArgumentException("journal must not be blank");
            }
            if (seq < 1) {
                throw new IllegalArgumentException("seq must be positive");
            }
            Objects.requireNonNull(sha256, "sha256");
            if (!sha256.matches("[0-9a-f]{64}")) {
                throw new IllegalArgumentException("sha256 must be 64 lowercase hex digits");
            }
            Objects.requireNonNull(json, "json");
        }
    }
}
