package dev.postern.executor.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.TrustStore;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.HttpResponseOutcome;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.Cancellation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A target's own trust store for a private CA, against loopback HTTPS servers whose certificates a
 * private CA made with the JDK's keytool: only that store's certificates are trusted, host names are
 * still checked, and a store that cannot be used fails the call without falling back to other trust.
 */
class HttpActionExecutorTrustStoreTest {
    private static final String PASS = "changeit";
    private static final Cancellation NEVER = new Cancellation();

    @TempDir
    static Path dir;
    private static Path serverForLoopback;
    private static Path serverForOtherName;
    private static Path caTrustJks;
    private static Path caTrustP12;
    private static Path otherCaTrustJks;
    private static Path caKeyStore;

    private LoopbackHttpsServer server;
    private final List<HttpActionExecutor> executors = new ArrayList<>();

    @BeforeAll
    static void generateCertificates() throws Exception {
        caKeyStore = dir.resolve("ca.p12");
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-dname", "CN=postern-test-ca", "-ext", "bc:c",
                "-validity", "2", "-storetype", "PKCS12", "-keystore", caKeyStore.toString(), "-storepass", PASS);
        Path otherCa = dir.resolve("other-ca.p12");
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-dname", "CN=postern-other-ca", "-ext", "bc:c",
                "-validity", "2", "-storetype", "PKCS12", "-keystore", otherCa.toString(), "-storepass", PASS);
        Path caPem = dir.resolve("ca.pem");
        keytool("-exportcert", "-alias", "ca", "-keystore", caKeyStore.toString(), "-storepass", PASS, "-rfc",
                "-file", caPem.toString());
        Path otherCaPem = dir.resolve("other-ca.pem");
        keytool("-exportcert", "-alias", "ca", "-keystore", otherCa.toString(), "-storepass", PASS, "-rfc",
                "-file", otherCaPem.toString());

        serverForLoopback = signedServer("loopback", "ip:127.0.0.1", caPem);
        serverForOtherName = signedServer("elsewhere", "dns:elsewhere.test", caPem);

        caTrustJks = trustStore("ca-trust.jks", "JKS", caPem);
        caTrustP12 = trustStore("ca-trust.p12", "PKCS12", caPem);
        otherCaTrustJks = trustStore("other-ca-trust.jks", "JKS", otherCaPem);
    }

    /** A server key store whose certificate the test CA signed for {@code san}, with the CA in its chain. */
    private static Path signedServer(String name, String san, Path caPem) throws Exception {
        Path store = dir.resolve(name + ".p12");
        Path csr = dir.resolve(name + ".csr");
        Path cert = dir.resolve(name + ".pem");
        keytool("-genkeypair", "-alias", "server", "-keyalg", "EC", "-dname", "CN=" + name, "-validity", "2",
                "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", PASS);
        keytool("-certreq", "-alias", "server", "-keystore", store.toString(), "-storepass", PASS, "-file", csr.toString());
        keytool("-gencert", "-alias", "ca", "-keystore", caKeyStore.toString(), "-storepass", PASS, "-infile", csr.toString(),
                "-outfile", cert.toString(), "-ext", "san=" + san, "-validity", "2", "-rfc");
        keytool("-importcert", "-alias", "ca", "-keystore", store.toString(), "-storepass", PASS, "-file", caPem.toString(),
                "-noprompt");
        keytool("-importcert", "-alias", "server", "-keystore", store.toString(), "-storepass", PASS, "-file", cert.toString());
        return store;
    }

    private static Path trustStore(String file, String type, Path certificate) throws Exception {
        Path store = dir.resolve(file);
        keytool("-importcert", "-alias", "ca", "-storetype", type, "-keystore", store.toString(), "-storepass", PASS,
                "-file", certificate.toString(), "-noprompt");
        return store;
    }

    private static void keytool(String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError("keytool failed: " + command);
        }
    }

    private String start(Path keystore) throws Exception {
        server = LoopbackHttpsServer.start(keystore, PASS.toCharArray(), "private");
        return server.baseUrl();
    }

    @AfterEach
    void stop() {
        executors.forEach(HttpActionExecutor::close);
        if (server != null) {
            server.close();
        }
    }

    /** An executor with the JVM's default trust for targets without a store, and these credentials. */
    private HttpActionExecutor executor(Map<String, String> credentials) {
        HttpActionExecutor e = new HttpActionExecutor(new InMemoryCredentials(credentials));
        executors.add(e);
        return e;
    }

    private static TrustStore store(Path file, TrustStore.Type type, Optional<String> password) {
        return new TrustStore(file, type, password.map(CredentialRef::new));
    }

    private static Outcome call(HttpActionExecutor executor, String base, Optional<TrustStore> trust) {
        HttpTarget target = Permits.target(base, trust);
        return executor.execute(Permits.get(target, "/"), NEVER);
    }

    private static ExecutionFailure failure(Outcome outcome, FailureCode code) {
        ExecutionFailure f = assertInstanceOf(ExecutionFailure.class, outcome, () -> "expected a failure, got " + outcome);
        assertEquals(code, f.code(), f.message());
        return f;
    }

    private static void assertPrivateBody(Outcome outcome) {
        HttpResponseOutcome r = assertInstanceOf(HttpResponseOutcome.class, outcome, () -> "expected a response, got " + outcome);
        assertEquals(200, r.status());
        assertArrayEquals("private".getBytes(StandardCharsets.UTF_8), r.body());
    }

    @Test
    void withoutATrustStoreAPrivateCaCertificateFailsWithTlsFailed() throws Exception {
        String base = start(serverForLoopback);

        failure(call(executor(Map.of()), base, Optional.empty()), FailureCode.TLS_FAILED);

        assertEquals(0, server.requestCount());
    }

    @Test
    void theCasJksTrustStoreWithoutAPasswordLetsTheCallThrough() throws Exception {
        String base = start(serverForLoopback);

        assertPrivateBody(call(executor(Map.of()), base, Optional.of(store(caTrustJks, TrustStore.Type.JKS, Optional.empty()))));

        assertEquals(1, server.requestCount());
    }

    @Test
    void theCasPkcs12TrustStoreOpensWithItsPasswordCredential() throws Exception {
        String base = start(serverForLoopback);
        TrustStore trust = store(caTrustP12, TrustStore.Type.PKCS12, Optional.of("ca-pass"));

        assertPrivateBody(call(executor(Map.of("ca-pass", PASS)), base, Optional.of(trust)));

        assertEquals(1, server.requestCount());
    }

    @Test
    void aTrustStoreOfAnotherCaFailsWithTlsFailed() throws Exception {
        String base = start(serverForLoopback);

        failure(call(executor(Map.of()), base, Optional.of(store(otherCaTrustJks, TrustStore.Type.JKS, Optional.empty()))),
                FailureCode.TLS_FAILED);

        assertEquals(0, server.requestCount());
    }

    @Test
    void hostNamesAreStillVerifiedWithATrustStore() throws Exception {
        String base = start(serverForOtherName);

        failure(call(executor(Map.of()), base, Optional.of(store(caTrustJks, TrustStore.Type.JKS, Optional.empty()))),
                FailureCode.TLS_FAILED);

        assertEquals(0, server.requestCount());
    }

    @Test
    void twoTargetsOnOneOriginNeverShareAConnectionAcrossTrustStores() throws Exception {
        String base = start(serverForLoopback);
        HttpActionExecutor executor = executor(Map.of());

        assertPrivateBody(call(executor, base, Optional.of(store(caTrustJks, TrustStore.Type.JKS, Optional.empty()))));
        failure(call(executor, base, Optional.of(store(otherCaTrustJks, TrustStore.Type.JKS, Optional.empty()))),
                FailureCode.TLS_FAILED);

        assertEquals(1, server.requestCount());
    }

    @Test
    void aMissingTrustStoreFailsWithTlsFailedNamingTheFileAndNeverFallsBack() throws Exception {
        String base = start(serverForLoopback);
        Path missing = dir.resolve("no-such-trust.jks");

        ExecutionFailure f = failure(call(executor(Map.of()), base,
                Optional.of(store(missing, TrustStore.Type.JKS, Optional.empty()))), FailureCode.TLS_FAILED);

        assertTrue(f.detail().contains(missing.toString()), f.detail());
        assertFalse(f.message().contains(missing.toString()), "the agent is not told the path: " + f.message());
        assertEquals(0, server.requestCount());
    }

    @Test
    void aPkcs12TrustStoreOpenedWithoutItsPasswordSaysAPasswordIsNeeded() throws Exception {
        String base = start(serverForLoopback);

        ExecutionFailure f = failure(call(executor(Map.of()), base,
                Optional.of(store(caTrustP12, TrustStore.Type.PKCS12, Optional.empty()))), FailureCode.TLS_FAILED);

        assertTrue(f.detail().contains("password"), f.detail());
        assertEquals(0, server.requestCount());
    }

    @Test
    void aWrongPasswordFailsWithTlsFailedWithoutShowingIt() throws Exception {
        String base = start(serverForLoopback);
        TrustStore trust = store(caTrustP12, TrustStore.Type.PKCS12, Optional.of("ca-pass"));

        ExecutionFailure f = failure(call(executor(Map.of("ca-pass", "not-the-password")), base, Optional.of(trust)),
                FailureCode.TLS_FAILED);

        assertFalse(f.message().contains("not-the-password"), f.message());
        assertEquals(0, server.requestCount());
    }

    @Test
    void anUnsetPasswordCredentialFailsWithCredentialUnavailable() throws Exception {
        String base = start(serverForLoopback);
        TrustStore trust = store(caTrustP12, TrustStore.Type.PKCS12, Optional.of("ca-pass"));

        ExecutionFailure f = failure(call(executor(Map.of()), base, Optional.of(trust)), FailureCode.CREDENTIAL_UNAVAILABLE);

        assertTrue(f.message().contains("ca-pass"), f.message());
        assertEquals(0, server.requestCount());
    }

    @Test
    void aStoreHoldingOnlyAKeyEntryTrustsNothing() throws Exception {
        // The CA's own key store holds its certificate only inside a private-key entry.
        String base = start(serverForLoopback);
        TrustStore trust = store(caKeyStore, TrustStore.Type.PKCS12, Optional.of("ca-pass"));

        ExecutionFailure f = failure(call(executor(Map.of("ca-pass", PASS)), base, Optional.of(trust)), FailureCode.TLS_FAILED);

        assertTrue(f.detail().contains("no trusted-certificate entry"), f.detail());
        assertEquals(0, server.requestCount());
    }

    @Test
    void aStoreThatFailedIsReadAgainOnTheNextCallAndAStoreThatLoadedIsKept() throws Exception {
        String base = start(serverForLoopback);
        Path later = dir.resolve("later-trust.jks");
        Files.deleteIfExists(later);
        TrustStore trust = store(later, TrustStore.Type.JKS, Optional.empty());
        HttpActionExecutor executor = executor(Map.of());

        failure(call(executor, base, Optional.of(trust)), FailureCode.TLS_FAILED);
        Files.copy(caTrustJks, later);
        assertPrivateBody(call(executor, base, Optional.of(trust)));
        Files.delete(later);
        assertPrivateBody(call(executor, base, Optional.of(trust)));

        assertEquals(2, server.requestCount());
    }
}
