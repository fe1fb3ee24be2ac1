package dev.postern.archfixtures.trust;

import org.apache.hc.client5.http.ssl.TrustSelfSignedStrategy;

/** Violation: trusts self-signed TLS certificates outside the test fixtures. Never run. */
public final class TrustsSelfSignedCertificates {
    private TrustsSelfSignedCertificates() {
    }

    @SuppressWarnings("deprecation") // the deprecated shortcut is the violation under test
    static Object shortcut() {
        return TrustSelfSignedStrategy.INSTANCE;
    }
}
