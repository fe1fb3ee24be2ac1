package dev.postern.journal;

import dev.postern.policy.port.JournalObserver;
import dev.postern.policy.port.SecretMask;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * How a {@link FileAuditJournal} writes: the size at which files rotate, the checkpoint signer if
 * any, the facts of the session whose rows these are (without them, rows carry no session), whether
 * intent rows keep only digests of arguments, the credentials to mask in every row (asked for
 * each row, since a credential file may change), and who hears each row once written (telemetry's
 * log records; {@link JournalObserver#NONE} by default). Immutable.
 */
public record JournalSettings(long rotateBytes, Optional<CheckpointSigner> signer, Optional<SessionFacts> session,
                              boolean redactArguments, Supplier<SecretMask> secrets, JournalObserver observer) {
    private static final SecretMask EMPTY = new SecretMask(List.of());
    private static final Supplier<SecretMask> NO_SECRETS = () -> EMPTY;

    public JournalSettings {
        if (rotateBytes < 1) {
            throw new IllegalArgumentException("rotateBytes must be positive");
        }
        Objects.requireNonNull(signer, "signer");
        Objects.requireNonNull(session, "session");
        Objects.requireNonNull(secrets, "secrets");
        Objects.requireNonNull(observer, "observer");
    }

    /** Rotation at {@code rotateBytes}; no signing, no session, arguments rendered. */
    public static JournalSettings rotatingAt(long rotateBytes) {
        return new JournalSettings(rotateBytes, Optional.empty(), Optional.empty(), false, NO_SECRETS, JournalObserver.NONE);
    }

    public JournalSettings withSigner(Optional<CheckpointSigner> s) {
        return new JournalSettings(rotateBytes, s, session, redactArguments, secrets, observer);
    }

    public JournalSettings withSession(SessionFacts facts) {
        return new JournalSettings(rotateBytes, signer, Optional.of(facts), redactArguments, secrets, observer);
    }

    /** Each row, once written, is told to {@code o} (see {@link JournalObserver}). */
    public JournalSettings observedBy(JournalObserver o) {
        return new JournalSettings(rotateBytes, signer, session, redactArguments, secrets, o);
    }

    public JournalSettings redactingArguments(boolean redact) {
        return new JournalSettings(rotateBytes, signer, session, redact, secrets, observer);
    }

    /** Every string in every row is masked with what {@code mask} gives at the time (credentials never reach a row). */
    public JournalSettings masking(Supplier<SecretMask> mask) {
        return new JournalSettings(rotateBytes, signer, session, redactArguments, mask, observer);
    }
}
