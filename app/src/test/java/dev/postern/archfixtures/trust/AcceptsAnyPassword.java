package dev.postern.archfixtures.trust;

import org.apache.sshd.server.auth.password.AcceptAllPasswordAuthenticator;

/** Violation: accepts every SSH password outside the test fixtures. Never run. */
public final class AcceptsAnyPassword {
    private AcceptsAnyPassword() {
    }

    static Object shortcut() {
        return AcceptAllPasswordAuthenticator.INSTANCE;
    }
}
