package dev.postern.app;

import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.ApprovalRecord;
import dev.postern.policy.port.AuditJournal;
import dev.postern.policy.port.Rejection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An audit journal in memory: every row the gateway asks for, kept as values (intent rows with
 * their permit and frame fingerprint, outcomes by intent, rejections, approvals), nothing on disk.
 * For tests that run many sessions and read back what was decided. Thread-safe.
 */
final class RecordingAuditJournal implements AuditJournal {
    /** One intent row: its sequence number, the permit about to run and the frame it came in. */
    record Intent(long seq, AuthorizedAction permit, String frameSha256) {
    }

    final List<Rejection> rejections = new CopyOnWriteArrayList<>();
    final List<ApprovalRecord> approvals = new CopyOnWriteArrayList<>();
    final List<Intent> intents = new CopyOnWriteArrayList<>();
    /** Every outcome row, by its intent's sequence number; a second row for one intent is kept too. */
    final Map<Long, List<Outcome>> outcomes = new ConcurrentHashMap<>();
    private final AtomicLong seq = new AtomicLong();

    /** Each dropped upstream line: server, reason, SHA-256, bytes. */
    final java.util.List<java.util.List<String>> dropped = new java.util.concurrent.CopyOnWriteArrayList<>();

    @Override
    public void dropped(String server, String reason, String sha256, long bytes) {
        dropped.add(java.util.List.of(server, reason, sha256, Long.toString(bytes)));
    }

    @Override
    public void rejected(Rejection rejection) {
        rejections.add(rejection);
    }

    @Override
    public void approval(ApprovalRecord record) {
        approvals.add(record);
    }

    @Override
    public long intent(AuthorizedAction permit, String frameSha256, java.util.Optional<String> tool) {
        long n = seq.incrementAndGet();
        intents.add(new Intent(n, permit, frameSha256));
        return n;
    }

    @Override
    public void outcome(long intentSeq, Outcome outcome) {
        outcomes.computeIfAbsent(intentSeq, k -> new CopyOnWriteArrayList<>()).add(outcome);
    }

    @Override
    public void close() {
        // Nothing to flush.
    }
}
