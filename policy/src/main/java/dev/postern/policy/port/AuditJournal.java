package dev.postern.policy.port;

import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.outcome.Outcome;
import java.util.Optional;

/**
 * The two append-only journals of DESIGN §6. Rejections go to one, authorized actions to the
 * other; an action's intent is durable before its executor is called. Thread-safe.
 */
public interface AuditJournal extends UpstreamReports, AutoCloseable {

    /** Records a rejection or denial. A failure here is reported on stderr, never to stdout. */
    void rejected(Rejection rejection);

    /**
     * Records a human approval asked for, or its answer (decisions journal). A failure here is reported
     * on stderr; an approval answered while the journal cannot be written still needs the intent row
     * before anything runs.
     */
    void approval(ApprovalRecord record);

    /** As {@link #intent(AuthorizedAction, String, Optional)}, naming no tool beyond the permit's own kind. */
    default long intent(AuthorizedAction permit, String frameSha256) throws JournalUnavailableException {
        return intent(permit, frameSha256, Optional.empty());
    }

    /**
     * Durably records that {@code permit} is about to run and returns the row's sequence number;
     * {@code tool} is the name the client called it by (its row's {@code tool}), when the caller knows it:
     * a kind's generic tool, or a typed tool standing for one of its operations.
     * If this throws, the caller must not execute the permit.
     */
    long intent(AuthorizedAction permit, String frameSha256, Optional<String> tool) throws JournalUnavailableException;

    /** Records how the action with intent row {@code intentSeq} ended. */
    void outcome(long intentSeq, Outcome outcome);

    /** Flushes and closes both files. */
    @Override
    void close();
}
