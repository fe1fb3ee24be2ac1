package dev.postern.app.check;

import dev.postern.app.config.GatewayConfig;
import dev.postern.app.credentials.EnvironmentAndFileCredentialStore;
import dev.postern.executor.ssh.SshActionExecutor;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.SshHost;
import dev.postern.policy.model.TrustStore;
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
 * {@code check-config --deep --connect}: per HTTPS target a TLS handshake (the target's trust store
 * or the JDK's, host name verified), per plain HTTP target a TCP connection, per SSH host a read of
 * the host key it offers, compared with the pin. Sends no request, logs in nowhere, runs nothing;
 * uses no executor (executors run only behind the dispatcher). Targets whose address the gateway
 * would refuse are skipped: {@link DeepCheck} reports them.
 */
public final class ConnectCheck {
    private final GatewayConfig config;

    public ConnectCheck(GatewayConfig config) {
        this.config = config;
    }

    public List<Finding> all() {
        List<Finding> out = new ArrayList<>();
        out.addAll(httpTargets());
        out.addAll(sshHosts());
        return out;
    }

    List<Finding> httpTargets() {
        List<Finding> out = new ArrayList<>();
        List<HttpTarget> targets = config.policy().httpTargets();
        for (int i = 0; i < targets.size(); i++) {
            HttpTarget t = targets.get(i);
            String where = "/http/targets/" + i + "/baseUrl";
            String host = t.origin().host();
            try {
                InetAddress address = InetAddress.getByName(host);
                if (!t.allowPrivateAddresses() && !DeepCheck.isPublic(address)) {
                    continue;
                }
                int timeout = (int) Math.min(Integer.MAX_VALUE, t.timeout().toMillis());
                if (t.origin().scheme().equals("https")) {
                    handshake(t, host, address, timeout);
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

    private void handshake(HttpTarget t, String host, InetAddress address, int timeout)
            throws IOException, GeneralSecurityException, CredentialUnavailableException {
        SSLContext context = context(t.trustStore());
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

    private SSLContext context(Optional<TrustStore> store) throws IOException, GeneralSecurityException, CredentialUnavailableException {
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

    List<Finding> sshHosts() {
        SshProbeLogging.quiet();
        List<Finding> out = new ArrayList<>();
        List<SshHost> hosts = config.policy().sshHosts();
        for (int i = 0; i < hosts.size(); i++) {
            SshHost h = hosts.get(i);
            String where = "/ssh/hosts/" + i;
            SshActionExecutor.OfferedKey key;
            try {
                key = SshActionExecutor.probeHostKey(h.address(), h.port(), h.timeout());
            } catch (IOException e) {
                out.add(Finding.error("ssh-unreachable", where + "/address", "host " + h.name() + ": " + e.getMessage()));
                continue;
            }
            if (!pinned(h, key)) {
                out.add(Finding.error("host-key-not-pinned", where, "host " + h.name() + " offered " + key.fingerprint()
                        + ", which " + h.hostKeyFingerprint().map(f -> "is not the pinned " + f)
                        .orElseGet(() -> "the known_hosts file " + h.knownHosts().orElseThrow() + " does not list for it")
                        + "; the gateway would refuse it (postern trust-host shows the line; check it on the host)"));
            }
        }
        return out;
    }

    /** Whether the offered key is the pinned fingerprint, or listed for this host in its known_hosts file. */
    private static boolean pinned(SshHost h, SshActionExecutor.OfferedKey key) {
        if (h.hostKeyFingerprint().isPresent()) {
            return h.hostKeyFingerprint().get().replaceAll("=+$", "").equals(key.fingerprint());
        }
        String[] offered = key.knownHostsLine().split(" ", 2);
        return KnownHosts.lists(h.knownHosts().orElseThrow(), offered[0], offered[1]);
    }

    private static String describe(Exception e) {
        String m = e.getMessage();
        return e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }
}
