package dev.postern.archfixtures.trust;

import org.apache.hc.client5.http.ssl.TrustAllStrategy;

/** Violation: trusts every TLS certificate outside the test fixtures. Never run. */
public final class TrustsAnyCertificate {
    private TrustsAnyCertificate() {
    }

    static Object shortcut() {
        return TrustAllStrategy.INSTANCE;
    }
}
