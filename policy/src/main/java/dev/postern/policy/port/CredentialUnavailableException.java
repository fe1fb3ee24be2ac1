package dev.postern.policy.port;

/** A named credential could not be read; the message names the credential, never its value. */
public final class CredentialUnavailableException extends Exception {
    private static final long serialVersionUID = 1L;

    public CredentialUnavailableException(String message) {
        super(message);
    }
}
