package dev.postern.executor.sql;

import java.net.ConnectException;

/**
 * The address the driver was about to dial is one the database may not reach: thrown from the socket's
 * {@code connect}, before any packet is sent, and found again in the driver's {@code SQLException}'s
 * causes, which makes the call's failure {@code ADDRESS_REFUSED}.
 */
final class DialRefusedException extends ConnectException {
    private static final long serialVersionUID = 1L;

    DialRefusedException(String message) {
        super(message);
    }
}
