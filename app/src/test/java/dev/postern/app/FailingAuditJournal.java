package dev.postern.app;

import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.ApprovalRecord;
import dev.postern.policy.port.AuditJournal;
import dev.postern.policy.port.JournalUnavailableException;
import dev.postern.policy.port.Rejection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An audit journal whose every intent fails, as a full or broken disk would make it; it counts the
 * attempts and records rejections and outcomes in memory. Thread-safe.
 */
final class FailingAuditJournal implements AuditJournal {
    final List<Rejection> rejections = new CopyOnWriteArrayList<>();
    final List<Outcome> outcomes = new CopyOnWriteArrayList<>();
    final List<AuthorizedAction> intents = new CopyOnWriteArrayList<>();
    final List<ApprovalRecord> approvals = new CopyOnWriteArrayList<>();

    @Override
    public void dropped(String server, String reason, String sha256, long bytes) {
        // Not under test here: a dropped upstream line is only reported.
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
    public long intent(AuthorizedAction permit, String frameSha256, java.util.Optional<String> tool) throws JournalUnavailableException {
        intents.add(permit);
        throw new JournalUnavailableException("injected: the disk is full", null);
    }

    @Override
    public void outcome(long intentSeq, Outcome outcome) {
        outcomes.add(outcome);
    }

    @Override
    public void close() {
        // Nothing to flush.
    }
}
