package dev.postern.policy.port;

import java.util.Objects;

/**
 * A named credential could not be read. The message names the credential and says what is wrong in
 * words, fit for the agent; {@link #detail()} adds what only the operator may see (the file's path,
 * the variable's name, the exception). Neither ever holds the value.
 */
public final class CredentialUnavailableException extends Exception {
    private static final long serialVersionUID = 1L;

    /** The operator's fuller text; the message when there is no more to say. */
    private final String detail;

    public CredentialUnavailableException(String message) {
        this(message, message);
    }

    /** {@code message} for the agent, {@code detail} for the operator (diagnostics, the journal, check-config). */
    public CredentialUnavailableException(String message, String detail) {
        super(Objects.requireNonNull(message, "message"));
        this.detail = Objects.requireNonNull(detail, "detail");
    }

    /** What the operator is told: where the credential lives and why it could not be read. */
    public String detail() {
        return detail;
    }
}
