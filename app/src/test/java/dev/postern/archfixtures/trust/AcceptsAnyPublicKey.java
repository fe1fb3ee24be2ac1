package dev.postern.archfixtures.trust;

import org.apache.sshd.server.auth.pubkey.AcceptAllPublickeyAuthenticator;

/** Violation: accepts every SSH public key login outside the test fixtures. Never run. */
public final class AcceptsAnyPublicKey {
    private AcceptsAnyPublicKey() {
    }

    static Object shortcut() {
        return AcceptAllPublickeyAuthenticator.INSTANCE;
    }
}
