package dev.postern.app.journal;

import java.util.Objects;
import java.util.Optional;

/**
 * How a {@link FileAuditJournal} writes: the size at which files rotate, the checkpoint signer if
 * any, the facts of the session whose rows these are (without them, rows carry no session), and
 * whether intent rows keep only digests of arguments. Immutable.
 */
public record JournalSettings(long rotateBytes, Optional<CheckpointSigner> signer, Optional<SessionFacts> session,
                              boolean redactArguments) {
    public JournalSettings {
        if (rotateBytes < 1) {
            throw new IllegalArgumentException("rotateBytes must be positive");
        }
        Objects.requireNonNull(signer, "signer");
        Objects.requireNonNull(session, "session");
    }

    /** Rotation at {@code rotateBytes}; no signing, no session, arguments rendered. */
    public static JournalSettings rotatingAt(long rotateBytes) {
        return new JournalSettings(rotateBytes, Optional.empty(), Optional.empty(), false);
    }

    public JournalSettings withSigner(Optional<CheckpointSigner> s) {
        return new JournalSettings(rotateBytes, s, session, redactArguments);
    }

    public JournalSettings withSession(SessionFacts facts) {
        return new JournalSettings(rotateBytes, signer, Optional.of(facts), redactArguments);
    }

    public JournalSettings redactingArguments(boolean redact) {
        return new JournalSettings(rotateBytes, signer, session, redact);
    }
}
