package dev.postern.archfixtures.trust;

import org.apache.hc.client5.http.ssl.TrustSelfSignedStrategy;

/** Violation: trusts self-signed TLS certificates outside the test fixtures. Never run. */
public final class TrustsSelfSignedCertificates {
    private TrustsSelfSignedCertificates() {
    }

    static Object shortcut() {
        return TrustSelfSignedStrategy.INSTANCE;
    }
}
