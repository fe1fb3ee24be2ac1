package dev.postern.archfixtures.trust;

import org.apache.sshd.server.auth.hostbased.AcceptAllHostBasedAuthenticator;

/** Violation: accepts every SSH host-based login outside the test fixtures. Never run. */
public final class AcceptsAnyHostBasedLogin {
    private AcceptsAnyHostBasedLogin() {
    }

    static Object shortcut() {
        return AcceptAllHostBasedAuthenticator.INSTANCE;
    }
}
