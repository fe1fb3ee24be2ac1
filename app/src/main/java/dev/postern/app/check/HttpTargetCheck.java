package dev.postern.app.check;

import dev.postern.app.config.GatewayConfig;
import dev.postern.app.credentials.EnvironmentAndFileCredentialStore;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.TrustStore;
import dev.postern.policy.net.AddressRanges;
import dev.postern.policy.port.CredentialUnavailableException;
import dev.postern.policy.port.Secret;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * The deep checks of {@code http_request} targets: each base URL's host judged as the executor judges
 * it (loopback, private, link-local or cloud metadata); with {@code --connect}, a TLS handshake per
 * https target (its trust store or the JDK's, host name verified) and a TCP connection per http one.
 * Sends no request; targets whose address the gateway would refuse are not dialed ({@link #addresses}
 * reports them). Stateless.
 */
public final class HttpTargetCheck implements KindCheck {

    @Override
    public Class<? extends Allowance> allowanceType() {
        return HttpTarget.class;
    }

    @Override
    public List<Finding> local(GatewayConfig config) {
        return List.of();
    }

    @Override
    public List<Finding> addresses(GatewayConfig config, HostNames names) {
        List<Finding> out = new ArrayList<>();
        List<HttpTarget> targets = config.policy().httpTargets();
        for (int i = 0; i < targets.size(); i++) {
            HttpTarget t = targets.get(i);
            out.addAll(AddressFindings.judged(t.origin().host(), t.allowPrivateAddresses(), names, "/http/targets/" + i + "/baseUrl",
                    "target", t.name()));
        }
        return out;
    }

    @Override
    public List<Finding> connect(GatewayConfig config) {
        List<Finding> out = new ArrayList<>();
        List<HttpTarget> targets = config.policy().httpTargets();
        for (int i = 0; i < targets.size(); i++) {
            HttpTarget t = targets.get(i);
            String where = "/http/targets/" + i + "/baseUrl";
            String host = t.origin().host();
            try {
                InetAddress address = InetAddress.getByName(host);
                if (AddressRanges.refusal(address, t.allowPrivateAddresses()).isPresent()) {
                    continue;
                }
                int timeout = (int) Math.min(Integer.MAX_VALUE, t.timeout().toMillis());
                if (t.origin().scheme().equals("https")) {
                    handshake(config, t, host, address, timeout);
                } else {
                    try (Socket s = new Socket()) {
                        s.connect(new InetSocketAddress(address, t.origin().port()), timeout);
                    }
                }
            } catch (IOException | GeneralSecurityException | CredentialUnavailableException e) {
                boolean tls = t.origin().scheme().equals("https");
                out.add(Finding.error(tls ? "tls-handshake-failed" : "connect-failed", where, "target " + t.name() + ": "
                        + (tls ? "TLS handshake with " : "connecting to ") + t.origin().toUrl() + " failed: " + describe(e)));
            }
        }
        return out;
    }

    private static void handshake(GatewayConfig config, HttpTarget t, String host, InetAddress address, int timeout)
            throws IOException, GeneralSecurityException, CredentialUnavailableException {
        SSLContext context = context(config, t.trustStore());
        try (Socket raw = new Socket()) {
            raw.connect(new InetSocketAddress(address, t.origin().port()), timeout);
            raw.setSoTimeout(timeout);
            try (SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(raw, host, t.origin().port(), false)) {
                SSLParameters params = tls.getSSLParameters();
                params.setEndpointIdentificationAlgorithm("HTTPS");
                if (!Character.isDigit(host.charAt(0)) && !host.contains(":")) {
                    params.setServerNames(List.of(new SNIHostName(host)));
                }
                tls.setSSLParameters(params);
                tls.startHandshake();
            }
        }
    }

    private static SSLContext context(GatewayConfig config, Optional<TrustStore> store)
            throws IOException, GeneralSecurityException, CredentialUnavailableException {
        if (store.isEmpty()) {
            return SSLContext.getDefault();
        }
        TrustStore s = store.get();
        char[] password = null;
        if (s.password().isPresent()) {
            Secret secret = new EnvironmentAndFileCredentialStore(config.credentials()).resolve(s.password().get());
            password = secret.revealAsString().toCharArray();
        }
        KeyStore keys = KeyStore.getInstance(s.type().name());
        try (InputStream in = Files.newInputStream(s.file())) {
            keys.load(in, password);
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(keys);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }

    private static String describe(Exception e) {
        String m = e.getMessage();
        return e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }
}
