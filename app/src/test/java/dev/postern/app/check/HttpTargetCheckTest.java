package dev.postern.app.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.postern.app.Gateway;
import dev.postern.app.config.ConfigLoader;
import dev.postern.app.config.GatewayConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code http_request} deep checks against real loopback servers: the JDK's {@link HttpsServer}
 * with a certificate the config does not trust or one for another name, a closed port, servers that
 * close the connection, stay silent or answer with a TLS alert; and trust stores that cannot be opened.
 * Each finding says what failed in words, never an exception's class name; no request is sent.
 */
class HttpTargetCheckTest {
    private static final String SERVER_PASS = "serverpass";
    private static final String TRUST_PASS = "trustpass-5e1c";

    @TempDir
    static Path keys;

    @TempDir
    Path dir;

    private final List<AutoCloseable> servers = new ArrayList<>();
    private final AtomicInteger requests = new AtomicInteger();

    /**
     * self.p12: a certificate for 127.0.0.1; other.p12: one for other.example; expired.p12: one for
     * 127.0.0.1 issued by ca.p12 that expired (an anchor's own dates are not checked, so it needs a CA);
     * trust-*.p12 trust each (trust-ca.p12 the CA).
     */
    @BeforeAll
    static void makeCertificates() throws Exception {
        for (String[] s : new String[][] {{"self", "CN=127.0.0.1", "SAN=ip:127.0.0.1", "-1d", "3"},
                {"other", "CN=other.example", "SAN=dns:other.example", "-1d", "3"}, {"ca", "CN=test CA", "BC:c=ca:true", "-20d", "30"}}) {
            Path store = keys.resolve(s[0] + ".p12");
            keytool("-genkeypair", "-alias", "server", "-keyalg", "EC", "-dname", s[1], "-ext", s[2], "-keystore", store.toString(),
                    "-storetype", "PKCS12", "-storepass", SERVER_PASS, "-startdate", s[3], "-validity", s[4]);
            keytool("-exportcert", "-rfc", "-alias", "server", "-keystore", store.toString(), "-storepass", SERVER_PASS,
                    "-file", keys.resolve(s[0] + ".pem").toString());
            keytool("-importcert", "-noprompt", "-alias", "server", "-file", keys.resolve(s[0] + ".pem").toString(),
                    "-keystore", keys.resolve("trust-" + s[0] + ".p12").toString(), "-storetype", "PKCS12", "-storepass", TRUST_PASS);
        }
        String expired = keys.resolve("expired.p12").toString();
        String ca = keys.resolve("ca.p12").toString();
        keytool("-genkeypair", "-alias", "server", "-keyalg", "EC", "-dname", "CN=127.0.0.1", "-keystore", expired,
                "-storetype", "PKCS12", "-storepass", SERVER_PASS);
        keytool("-certreq", "-alias", "server", "-keystore", expired, "-storepass", SERVER_PASS, "-file", keys.resolve("expired.csr").toString());
        keytool("-gencert", "-alias", "server", "-keystore", ca, "-storepass", SERVER_PASS, "-infile", keys.resolve("expired.csr").toString(),
                "-outfile", keys.resolve("expired.crt").toString(), "-ext", "SAN=ip:127.0.0.1", "-startdate", "-10d", "-validity", "2");
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", keys.resolve("ca.pem").toString(), "-keystore", expired,
                "-storepass", SERVER_PASS);
        keytool("-importcert", "-alias", "server", "-file", keys.resolve("expired.crt").toString(), "-keystore", expired,
                "-storepass", SERVER_PASS);
    }

    @AfterEach
    void stopServers() throws Exception {
        for (AutoCloseable s : servers) {
            s.close();
        }
    }

    /** An HTTPS server on 127.0.0.1 presenting the certificate in {@code keyStore}; counts requests that got past TLS. */
    private int https(String keyStore) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keys.resolve(keyStore))) {
            ks.load(in, SERVER_PASS.toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, SERVER_PASS.toCharArray());
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf.getKeyManagers(), null, null);
        HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(context));
        server.createContext("/", exchange -> {
            requests.incrementAndGet();
            exchange.sendResponseHeaders(500, -1);
            exchange.close();
        });
        server.start();
        servers.add(() -> server.stop(0));
        return server.getAddress().getPort();
    }

    /** A TCP server on 127.0.0.1 that hands each accepted connection to {@code session} and then closes it. */
    private int raw(Consumer<Socket> session) throws Exception {
        ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accepting = new Thread(() -> {
            while (true) {
                try (Socket s = listener.accept()) {
                    session.accept(s);
                } catch (IOException e) {
                    return;
                }
            }
        });
        accepting.setDaemon(true);
        accepting.start();
        servers.add(listener);
        return listener.getLocalPort();
    }

    /** Reads the client's first bytes (its ClientHello) and answers with the fatal TLS alert {@code code}. */
    private static Consumer<Socket> alert(int code) {
        return s -> {
            try {
                s.getInputStream().read(new byte[512]);
                s.getOutputStream().write(new byte[] {0x15, 0x03, 0x03, 0x00, 0x02, 0x02, (byte) code});
                s.getOutputStream().flush();
                s.getInputStream().read(new byte[512]);
            } catch (IOException e) {
                // the client hung up
            }
        };
    }

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private GatewayConfig config(List<String> targets) throws Exception {
        for (String f : List.of("self.p12", "trust-self.p12", "trust-other.p12", "trust-ca.p12", "self.pem")) {
            Files.copy(keys.resolve(f), dir.resolve(f));
        }
        Path pw = Files.writeString(dir.resolve("trust.pw"), TRUST_PASS);
        Files.setPosixFilePermissions(pw, PosixFilePermissions.fromString("rw-------"));
        Path wrong = Files.writeString(dir.resolve("wrong.pw"), "not-the-password-77aa");
        Files.setPosixFilePermissions(wrong, PosixFilePermissions.fromString("rw-------"));
        Path server = Files.writeString(dir.resolve("server.pw"), SERVER_PASS);
        Files.setPosixFilePermissions(server, PosixFilePermissions.fromString("rw-------"));
        Path file = Files.writeString(dir.resolve("postern.json"), """
                { "journal": { "directory": "journal" },
                  "credentials": { "trust": { "file": "./trust.pw" }, "wrong": { "file": "./wrong.pw" },
                    "server": { "file": "./server.pw" },
                    "unset": { "env": "POSTERN_TEST_UNSET_TRUST_PASSWORD" } },
                  "http": { "targets": [ %s ] } }
                """.formatted(String.join(",\n", targets)));
        return Gateway.configLoader().load(file);
    }

    private static String target(String name, String baseUrl, String more) {
        return "{ \"name\": \"" + name + "\", \"baseUrl\": \"" + baseUrl + "\", \"allowPrivateAddresses\": true,"
                + " \"methods\": [\"GET\"], \"pathPrefixes\": [\"/\"], \"timeoutMs\": 3000 " + more + " }";
    }

    private static String store(String file, String password) {
        return ", \"trustStore\": { \"file\": \"./" + file + "\"" + (password == null ? "" : ", \"password\": \"" + password + "\"") + " }";
    }

    private static void assertNoClassNameNorSecret(List<Finding> findings) {
        for (Finding f : findings) {
            assertFalse(f.line().matches("(?s).*(Exception|Error|java\\.|javax\\.|sun\\.|\\tat ).*"), "an exception named: " + f.line());
            assertFalse(f.line().contains(TRUST_PASS) || f.line().contains("not-the-password"), "a password shown: " + f.line());
        }
    }

    /**
     * Each way a handshake fails says so in words: a certificate not trusted (by the JDK's CAs, by
     * the target's store), a certificate for another name, a refused connection, a server that
     * closes the connection, one that never answers, one with no TLS version in common, one that
     * refuses the handshake, one that answers in plain http, an expired certificate; a trusted certificate for the right name gives no finding.
     */
    @Test
    void eachHandshakeFailureSaysWhatFailedInWords() throws Exception {
        int self = https("self.p12");
        int other = https("other.p12");
        int closed = closedPort();
        int hangsUp = raw(s -> { });
        int silent = raw(s -> {
            try {
                s.getInputStream().readAllBytes();
            } catch (IOException e) {
                // the client gave up
            }
        });
        int oldVersions = raw(alert(70));
        int refuses = raw(alert(40));
        int plain = raw(s -> {
            try {
                s.getInputStream().read(new byte[512]);
                s.getOutputStream().write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
            } catch (IOException e) {
                // the client hung up
            }
        });
        int expired = https("expired.p12");
        GatewayConfig config = config(List.of(
                target("untrusted", "https://127.0.0.1:" + self, ""),
                target("other-store", "https://127.0.0.1:" + self, store("trust-other.p12", "trust")),
                target("other-name", "https://127.0.0.1:" + other, store("trust-other.p12", "trust")),
                target("closed", "https://127.0.0.1:" + closed, ""),
                target("hangs-up", "https://127.0.0.1:" + hangsUp, ""),
                target("silent", "https://127.0.0.1:" + silent, "").replace("3000", "700"),
                target("old", "https://127.0.0.1:" + oldVersions, ""),
                target("refuses", "https://127.0.0.1:" + refuses, ""),
                target("plain", "https://127.0.0.1:" + plain, ""),
                target("expired", "https://127.0.0.1:" + expired, store("trust-ca.p12", "trust")),
                target("good", "https://127.0.0.1:" + self, store("trust-self.p12", "trust"))));

        List<Finding> findings = new HttpTargetCheck().connect(config);

        String at = "error [tls-handshake-failed] /http/targets/";
        assertEquals(List.of(
                at + "0/baseUrl: target untrusted: TLS handshake with https://127.0.0.1:" + self + " failed: the server's certificate is"
                        + " not trusted: it does not chain to a certificate in the JDK's default certificate authorities",
                at + "1/baseUrl: target other-store: TLS handshake with https://127.0.0.1:" + self + " failed: the server's certificate is"
                        + " not trusted: it does not chain to a certificate in trust store " + dir.resolve("trust-other.p12"),
                at + "2/baseUrl: target other-name: TLS handshake with https://127.0.0.1:" + other + " failed: the server's certificate is"
                        + " not for 127.0.0.1 (host name verification)",
                at + "3/baseUrl: target closed: TLS handshake with https://127.0.0.1:" + closed + " failed: the connection was refused"
                        + " (nothing listens on that port, or a firewall rejects it)",
                at + "4/baseUrl: target hangs-up: TLS handshake with https://127.0.0.1:" + hangsUp + " failed: the server closed the"
                        + " connection during the handshake",
                at + "5/baseUrl: target silent: TLS handshake with https://127.0.0.1:" + silent + " failed: the server did not answer the"
                        + " TLS handshake within 700 ms (timed out; is it a plain http port?)",
                at + "6/baseUrl: target old: TLS handshake with https://127.0.0.1:" + oldVersions + " failed: the server and the gateway"
                        + " have no TLS protocol version in common",
                at + "7/baseUrl: target refuses: TLS handshake with https://127.0.0.1:" + refuses + " failed: the server refused the"
                        + " handshake (TLS alert handshake_failure)",
                at + "8/baseUrl: target plain: TLS handshake with https://127.0.0.1:" + plain + " failed: the server did not answer in"
                        + " TLS (is it a plain http port?)",
                at + "9/baseUrl: target expired: TLS handshake with https://127.0.0.1:" + expired + " failed: the server's certificate"
                        + " has expired"),
                findings.stream().map(Finding::line).toList());
        assertNoClassNameNorSecret(findings);
        assertEquals(0, requests.get(), "no request is sent");
    }

    /** A plain http target: a refused connection and a name that does not resolve say so; a listening port gives no finding. */
    @Test
    void aPlainConnectionFailureSaysWhatFailedInWords() throws Exception {
        int closed = closedPort();
        int open = raw(s -> { });
        GatewayConfig config = config(List.of(
                target("closed", "http://127.0.0.1:" + closed, ""),
                target("nowhere", "http://no-such-host.invalid", ""),
                target("open", "http://127.0.0.1:" + open, "")));

        List<Finding> findings = new HttpTargetCheck().connect(config);

        assertEquals(List.of(
                "error [connect-failed] /http/targets/0/baseUrl: target closed: connecting to http://127.0.0.1:" + closed + " failed:"
                        + " the connection was refused (nothing listens on that port, or a firewall rejects it)",
                "error [connect-failed] /http/targets/1/baseUrl: target nowhere: connecting to http://no-such-host.invalid:80 failed:"
                        + " the host name no-such-host.invalid does not resolve here"),
                findings.stream().map(Finding::line).toList());
        assertNoClassNameNorSecret(findings);
    }

    /**
     * A trust store that cannot be opened is found without a connection, with what is wrong in words:
     * a wrong password, a PEM file, not a key store, a PKCS12 store without its password, a store of
     * key entries only, an unreadable password credential; {@code --connect} then does not dial it.
     */
    @Test
    void aTrustStoreThatCannotBeOpenedIsALocalFindingInWords() throws Exception {
        int self = https("self.p12");
        Files.writeString(dir.resolve("notes.txt"), "not a key store\n");
        String url = "https://127.0.0.1:" + self;
        GatewayConfig config = config(List.of(
                target("wrong-password", url, store("trust-self.p12", "wrong")),
                target("pem", url, store("self.pem", null)),
                target("text", url, store("notes.txt", null)),
                target("no-password", url, store("trust-self.p12", null)),
                target("keys-only", url, store("self.p12", "server")),
                target("unset", url, store("trust-self.p12", "unset")),
                target("good", url, store("trust-self.p12", "trust"))));

        List<Finding> findings = new HttpTargetCheck().local(config);

        String at = "error [trust-store-invalid] /http/targets/";
        String then = ", so every call would fail";
        assertEquals(List.of(
                at + "0/trustStore/password: target wrong-password: trust store " + dir.resolve("trust-self.p12") + " cannot be opened with"
                        + " the password in credential wrong: the password is wrong or the file is damaged" + then,
                at + "1/trustStore/file: target pem: trust store " + dir.resolve("self.pem") + " is a PEM file, not a PKCS12 key store"
                        + " (import its certificates with keytool -importcert)" + then,
                at + "2/trustStore/file: target text: trust store " + dir.resolve("notes.txt") + " is not a PKCS12 key store"
                        + " (nor a JKS or PKCS12 one)" + then,
                at + "3/trustStore/password: target no-password: trust store " + dir.resolve("trust-self.p12") + " shows no certificate"
                        + " without a password (a PKCS12 store made by keytool encrypts its certificates: name the credential that"
                        + " opens it in \"password\")" + then,
                at + "4/trustStore/file: target keys-only: trust store " + dir.resolve("self.p12") + " holds no trusted-certificate"
                        + " entry (key entries are not trusted)" + then,
                at + "5/trustStore/password: target unset: trust store " + dir.resolve("trust-self.p12") + " cannot be opened: its"
                        + " password credential unset cannot be read (see /credentials/unset)" + then),
                findings.stream().map(Finding::line).toList());
        assertNoClassNameNorSecret(findings);
        assertEquals(List.of(), new HttpTargetCheck().connect(config), "a store that cannot be opened is not dialed; the good one shakes hands");
        assertEquals(0, requests.get(), "no request is sent");
    }

    private static void keytool(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), "keytool " + String.join(" ", args) + ":\n" + output);
    }
}
