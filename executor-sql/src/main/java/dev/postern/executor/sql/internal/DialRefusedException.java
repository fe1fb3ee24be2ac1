package dev.postern.executor.sql.internal;

import java.net.ConnectException;

/**
 * The address the driver was about to dial is one the database may not reach: thrown from the socket's
 * {@code connect}, before any packet is sent, and found again in the driver's {@code SQLException}'s
 * causes, which makes the call's failure {@code ADDRESS_REFUSED}. Public only for the module's own
 * root package ({@code Failures}); nothing outside this module may use it.
 */
public final class DialRefusedException extends ConnectException {
    private static final long serialVersionUID = 1L;

    public DialRefusedException(String message) {
        super(message);
    }
}
