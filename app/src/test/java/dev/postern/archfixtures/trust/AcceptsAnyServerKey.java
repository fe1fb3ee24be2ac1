package dev.postern.archfixtures.trust;

import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;

/** Violation: accepts every SSH host key outside the test fixtures. Never run. */
public final class AcceptsAnyServerKey {
    private AcceptsAnyServerKey() {
    }

    static Object shortcut() {
        return AcceptAllServerKeyVerifier.INSTANCE;
    }
}
