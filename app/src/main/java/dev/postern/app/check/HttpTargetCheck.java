package dev.postern.app.check;

import dev.postern.app.config.GatewayConfig;
import dev.postern.app.credentials.EnvironmentAndFileCredentialStore;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.TrustStore;
import dev.postern.policy.net.AddressRanges;
import dev.postern.policy.port.CredentialStore;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * The deep checks of {@code http_request} targets: each trust store opened as the executor opens it
 * ({@link TrustStoreFiles}); each base URL's host judged as the executor judges it (loopback,
 * private, link-local or cloud metadata); with {@code --connect}, a TLS handshake per https target
 * (its trust store or the JDK's, host name verified) and a TCP connection per http one. Sends no
 * request; targets whose address the gateway would refuse are not dialed ({@link #addresses} reports
 * them), nor those whose trust store cannot be opened ({@link #local} reports them). A failure says
 * in words what failed ({@link ConnectFailures}), never an exception's class. Stateless.
 */
public final class HttpTargetCheck implements KindCheck {

    @Override
    public Class<? extends Allowance> allowanceType() {
        return HttpTarget.class;
    }

    /**
     * Each {@code trustStore} opens with its password and trusts at least one certificate, as the
     * executor requires (the loader has already refused a file that is missing or unreadable); a
     * {@code trust-store-invalid} finding says what is wrong in words, at the password when it is to blame.
     */
    @Override
    public List<Finding> local(GatewayConfig config) {
        List<Finding> out = new ArrayList<>();
        List<HttpTarget> targets = config.policy().allowances(HttpTarget.class);
        CredentialStore credentials = new EnvironmentAndFileCredentialStore(config.credentials());
        for (int i = 0; i < targets.size(); i++) {
            HttpTarget t = targets.get(i);
            if (t.trustStore().isEmpty()) {
                continue;
            }
            TrustStore store = t.trustStore().get();
            TrustStoreFiles.Opened opened = TrustStoreFiles.open(store, credentials);
            if (!opened.ok()) {
                out.add(Finding.error("trust-store-invalid", "/http/targets/" + i + "/trustStore/" + (opened.atPassword() ? "password" : "file"),
                        "target " + t.name() + ": trust store " + store.file() + " " + opened.problem() + ", so every call would fail"));
            }
        }
        return out;
    }

    @Override
    public List<Finding> addresses(GatewayConfig config, HostNames names) {
        List<Finding> out = new ArrayList<>();
        List<HttpTarget> targets = config.policy().allowances(HttpTarget.class);
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
        List<HttpTarget> targets = config.policy().allowances(HttpTarget.class);
        CredentialStore credentials = new EnvironmentAndFileCredentialStore(config.credentials());
        for (int i = 0; i < targets.size(); i++) {
            HttpTarget t = targets.get(i);
            String where = "/http/targets/" + i + "/baseUrl";
            boolean tls = t.origin().scheme().equals("https");
            String host = t.origin().host();
            int timeout = (int) Math.min(Integer.MAX_VALUE, t.timeout().toMillis());
            String trust = t.trustStore().map(s -> "trust store " + s.file()).orElse("the JDK's default certificate authorities");
            ConnectFailures.Step step = ConnectFailures.Step.CONNECT;
            try {
                SSLContext context = null;
                if (tls) {
                    context = context(t.trustStore(), credentials).orElse(null);
                    if (context == null) {
                        continue; // local() reports the trust store
                    }
                }
                InetAddress address = InetAddress.getByName(host);
                if (AddressRanges.refusal(address, t.allowPrivateAddresses()).isPresent()) {
                    continue;
                }
                try (Socket raw = new Socket()) {
                    raw.connect(new InetSocketAddress(address, t.origin().port()), timeout);
                    if (tls) {
                        step = ConnectFailures.Step.HANDSHAKE;
                        handshake(context, raw, host, t.origin().port(), timeout);
                    }
                }
            } catch (IOException | GeneralSecurityException e) {
                String why = ConnectFailures.reason(e, step, host, timeout, trust).map(r -> ": " + r).orElse("");
                out.add(Finding.error(tls ? "tls-handshake-failed" : "connect-failed", where, "target " + t.name() + ": "
                        + (tls ? "TLS handshake with " : "connecting to ") + t.origin().toUrl() + " failed" + why));
            }
        }
        return out;
    }

    private static void handshake(SSLContext context, Socket raw, String host, int port, int timeout) throws IOException {
        raw.setSoTimeout(timeout);
        try (SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(raw, host, port, false)) {
            SSLParameters params = tls.getSSLParameters();
            params.setEndpointIdentificationAlgorithm("HTTPS");
            if (!Character.isDigit(host.charAt(0)) && !host.contains(":")) {
                params.setServerNames(List.of(new SNIHostName(host)));
            }
            tls.setSSLParameters(params);
            tls.startHandshake();
        }
    }

    /** The JDK's default context, or one trusting exactly the store's certificates; empty when the store cannot be opened. */
    private static Optional<SSLContext> context(Optional<TrustStore> store, CredentialStore credentials) throws GeneralSecurityException {
        if (store.isEmpty()) {
            return Optional.of(SSLContext.getDefault());
        }
        TrustStoreFiles.Opened opened = TrustStoreFiles.open(store.get(), credentials);
        if (!opened.ok()) {
            return Optional.empty();
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(opened.anchors());
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return Optional.of(context);
    }
}
