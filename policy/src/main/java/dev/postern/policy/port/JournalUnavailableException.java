package dev.postern.policy.port;

/** The journal could not durably record a row; an action whose intent this guards must not run. */
public final class JournalUnavailableException extends Exception {
    private static final long serialVersionUID = 1L;

    public JournalUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
