package dev.postern.archfixtures.trust;

import org.apache.hc.client5.http.ssl.NoopHostnameVerifier;

/** Violation: skips the TLS hostname check outside the test fixtures. Never run. */
public final class SkipsHostnameCheck {
    private SkipsHostnameCheck() {
    }

    static Object shortcut() {
        return NoopHostnameVerifier.INSTANCE;
    }
}
