package dev.postern.app.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.fixtures.FakeHttpService;
import dev.postern.fixtures.FakeSshServer;
import dev.postern.fixtures.LocalPostgres;
import dev.postern.fixtures.StdoutTranscript;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/postern check-config --deep [--connect]} on a deliberately broken config: each finding
 * appears with its severity, stable id and location, the exit status says whether any is an error,
 * and {@code mcp-stdio} says the same as warnings on stderr and still serves. The SQL case runs
 * against a real PostgreSQL ({@link LocalPostgres}).
 */
class DeepCheckIT {
    private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
            + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}\n";

    @TempDir
    Path dir;

    private FakeHttpService http;
    private FakeSshServer ssh;
    private int closedPort;

    @BeforeEach
    void start() throws Exception {
        http = FakeHttpService.start();
        ssh = FakeSshServer.start();
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
    }

    @AfterEach
    void stop() {
        http.close();
        ssh.close();
    }

    private Path file(String name, String content, String mode) throws Exception {
        Path f = Files.writeString(dir.resolve(name), content);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
        return f;
    }

    /** One config with one thing wrong per finding id; the journal lies under a regular file, so it cannot be created. */
    private Path brokenConfig() throws Exception {
        file("open.key", "secret\n", "rw-r--r--");
        file("empty.key", "", "rw-------");
        file("not-in-the-way", "a file where the journal's parent directory should be", "rw-------");
        file("other_known_hosts", "[127.0.0.1]:1 " + ssh.knownHostsLine().split(" ", 2)[1] + "\n", "rw-r--r--");
        return Files.writeString(dir.resolve("postern.json"), """
                { "journal": { "directory": "./not-in-the-way/journal" },
                  "credentials": {
                    "unset-token": { "env": "POSTERN_IT_UNSET_VARIABLE" },
                    "missing-key": { "file": "./absent.key" },
                    "open-key": { "file": "./open.key" },
                    "empty-key": { "file": "./empty.key" } },
                  "http": { "targets": [
                    { "name": "loopback", "baseUrl": "%s", "methods": ["GET"], "pathPrefixes": ["/"],
                      "auth": { "credential": "unset-token", "scheme": "bearer" } },
                    { "name": "nowhere", "baseUrl": "https://no-such-host.invalid", "methods": ["GET"], "pathPrefixes": ["/"] } ] },
                  "ssh": { "hosts": [
                    { "name": "box", "address": "127.0.0.1", "port": %d, "user": "deploy", "identity": "missing-key",
                      "knownHosts": "./absent_known_hosts",
                      "commands": [
                        { "name": "cat", "argv": ["cat", "{file}"], "params": { "file": { "type": "string", "maxLength": 64 } } },
                        { "name": "grep", "argv": ["grep", "{word}", "/var/log/app.log"],
                          "params": { "word": { "type": "string", "pattern": "^[a-z-]+$" } } },
                        { "name": "tail", "argv": ["tail", "-n", "{lines}", "/var/log/app.log"],
                          "params": { "lines": { "type": "integer", "minimum": 1, "maximum": 500 } } },
                        { "name": "level", "argv": ["logger", "-p", "{level}"],
                          "params": { "level": { "type": "string", "enum": ["info", "warning"] } } } ] },
                    { "name": "secondary", "address": "127.0.0.1", "port": %d, "user": "deploy", "identity": "open-key",
                      "hostKeyFingerprint": "%s", "knownHosts": "./other_known_hosts", "commands": [ { "name": "uptime", "argv": ["uptime"] } ] },
                    { "name": "empty", "address": "127.0.0.1", "port": %d, "user": "deploy", "identity": "empty-key",
                      "hostKeyFingerprint": "%s", "commands": [ { "name": "uptime", "argv": ["uptime"] } ] } ] } }
                """.formatted(http.baseUri(), ssh.port(), ssh.port(), ssh.hostKeyFingerprint(), closedPort, ssh.hostKeyFingerprint()));
    }

    private LauncherProcess checkConfig(Path config, String... flags) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("check-config"));
        args.addAll(List.of(flags));
        args.add("--config=" + config);
        return LauncherProcess.run(args, new byte[0], dir, Map.of());
    }

    @Test
    void eachFindingHasItsSeverityIdAndPlaceAndAnErrorFailsTheCheck() throws Exception {
        Path config = brokenConfig();

        LauncherProcess p = checkConfig(config, "--deep");
        String out = new String(p.stdout, StandardCharsets.UTF_8);

        assertEquals(6, p.exitStatus, p.describe() + "\nstdout:\n" + out);
        assertTrue(out.startsWith("configuration " + config + " is valid"), out);
        List<String> expected = List.of(
                "error [credential-env-unset] /credentials/unset-token: environment variable POSTERN_IT_UNSET_VARIABLE is not set",
                "error [credential-file-missing] /credentials/missing-key: file " + dir.resolve("absent.key") + " does not exist",
                "error [credential-file-not-private] /credentials/open-key: file " + dir.resolve("open.key") + " is open to group or others",
                "error [credential-file-unreadable] /credentials/empty-key: file " + dir.resolve("empty.key") + " is empty",
                "error [known-hosts-missing] /ssh/hosts/0/knownHosts: host box: " + dir.resolve("absent_known_hosts") + " is not a readable file",
                "error [journal-not-writable] /journal/directory: " + dir.resolve("not-in-the-way/journal") + " does not exist and cannot be"
                        + " created (" + dir.resolve("not-in-the-way") + " is not a writable directory)",
                "error [private-address-without-opt-in] /http/targets/0/baseUrl: target loopback: 127.0.0.1 is a non-public address",
                "warning [known-hosts-lacks-host] /ssh/hosts/1/knownHosts: host secondary: " + dir.resolve("other_known_hosts")
                        + " has no line for [127.0.0.1]:" + ssh.port(),
                "warning [address-unresolved] /http/targets/1/baseUrl: target nowhere: no-such-host.invalid does not resolve here",
                "warning [param-may-start-with-dash] /ssh/hosts/0/commands/0/params/file: host box, command cat: {file} is a string with"
                        + " no pattern or enum",
                "warning [param-may-start-with-dash] /ssh/hosts/0/commands/1/params/word: host box, command grep: {word} has a pattern"
                        + " that accepts \"-\"");
        for (String line : expected) {
            assertTrue(out.lines().anyMatch(l -> l.startsWith(line)), "missing: " + line + "\nin:\n" + out);
        }
        assertTrue(out.contains("deep check: 7 errors, 4 warnings"), out);
        assertFalse(out.contains("params/lines") || out.contains("params/level"), "bounded integers and enums are not flagged: " + out);
        assertFalse(out.contains("secret"), "no credential value is shown: " + out);
        assertTrue(out.contains("param {lines}: integer, 1..500") && out.contains("param {word}: string, matching ^[a-z-]+$, at most 256")
                && out.contains("param {level}: string, one of [info, warning], at most 256 characters"), "every SSH parameter's constraints: " + out);
    }

    @Test
    void aFileOwnedByAnotherUserIsAWarning() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "only root can give a file away");
        Path key = file("foreign.key", "x\n", "rw-------");
        UserPrincipal nobody = key.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        Files.setOwner(key, nobody);
        Path config = Files.writeString(dir.resolve("postern.json"),
                "{ \"journal\": { \"directory\": \"./journal\" }, \"credentials\": { \"k\": { \"file\": \"./foreign.key\" } } }");

        LauncherProcess p = checkConfig(config, "--deep");
        String out = new String(p.stdout, StandardCharsets.UTF_8);

        assertEquals(0, p.exitStatus, "a warning alone does not fail the check: " + p.describe() + out);
        assertTrue(out.contains("warning [credential-file-foreign-owner] /credentials/k: file " + key + " is owned by nobody, not by root"), out);
    }

    @Test
    void connectFindsAFailedHandshakeARefusedConnectionAndAnUnreachableSshHost() throws Exception {
        Path key = file("ok.key", "x\n", "rw-------");
        Path config = Files.writeString(dir.resolve("postern.json"), """
                { "journal": { "directory": "./journal" },
                  "credentials": { "k": { "file": "%s" } },
                  "http": { "targets": [
                    { "name": "plain-as-tls", "baseUrl": "https://127.0.0.1:%d", "allowPrivateAddresses": true,
                      "methods": ["GET"], "pathPrefixes": ["/"], "timeoutMs": 1500 },
                    { "name": "closed", "baseUrl": "http://127.0.0.1:%d", "allowPrivateAddresses": true,
                      "methods": ["GET"], "pathPrefixes": ["/"] },
                    { "name": "up", "baseUrl": "%s", "allowPrivateAddresses": true, "methods": ["GET"], "pathPrefixes": ["/"] } ] },
                  "ssh": { "hosts": [
                    { "name": "down", "address": "127.0.0.1", "port": %d, "user": "deploy", "identity": "k",
                      "hostKeyFingerprint": "%s", "timeoutSeconds": 5, "commands": [ { "name": "uptime", "argv": ["uptime"] } ] },
                    { "name": "pinned", "address": "127.0.0.1", "port": %d, "user": "deploy", "identity": "k",
                      "hostKeyFingerprint": "%s", "commands": [ { "name": "uptime", "argv": ["uptime"] } ] } ] } }
                """.formatted(key, http.port(), closedPort, http.baseUri(), closedPort, ssh.hostKeyFingerprint(), ssh.port(),
                ssh.hostKeyFingerprint()));

        LauncherProcess p = checkConfig(config, "--deep", "--connect");
        String out = new String(p.stdout, StandardCharsets.UTF_8);

        assertEquals(6, p.exitStatus, p.describe() + out);
        assertTrue(out.contains("deep check with connections: 3 errors, 0 warnings"), out);
        assertTrue(out.contains("error [tls-handshake-failed] /http/targets/0/baseUrl: target plain-as-tls: TLS handshake with https://127.0.0.1:"
                + http.port() + " failed: the server did not answer the TLS handshake within 1500 ms (timed out; is it a plain http port?)\n"), out);
        assertTrue(out.contains("error [connect-failed] /http/targets/1/baseUrl: target closed: connecting to http://127.0.0.1:" + closedPort
                + " failed: the connection was refused (nothing listens on that port, or a firewall rejects it)\n"), out);
        assertFalse(out.lines().anyMatch(l -> l.contains("/http/") && l.contains("Exception")), "no exception's class is named: " + out);
        assertTrue(out.contains("error [ssh-unreachable] /ssh/hosts/0/address: host down: cannot connect to 127.0.0.1:" + closedPort), out);
        assertEquals(0, http.requestCount(), "no HTTP request was sent");
        assertEquals(0, ssh.authCount(), "no SSH login was attempted");
        assertFalse(p.stderrText().contains("WARN"), p.describe());
    }

    @Test
    void aHandshakeSucceedsWithTheTargetsTrustStoreFailsWithTheDefaultOneAndAWrongStorePasswordIsALocalFinding() throws Exception {
        Path server = dir.resolve("server.p12");
        Path trust = dir.resolve("trust.p12");
        keytool("-genkeypair", "-alias", "server", "-keyalg", "EC", "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1",
                "-keystore", server.toString(), "-storetype", "PKCS12", "-storepass", "serverpass", "-validity", "2");
        keytool("-exportcert", "-alias", "server", "-keystore", server.toString(), "-storepass", "serverpass",
                "-file", dir.resolve("server.crt").toString());
        keytool("-importcert", "-noprompt", "-alias", "server", "-file", dir.resolve("server.crt").toString(),
                "-keystore", trust.toString(), "-storetype", "PKCS12", "-storepass", "trustpass");
        java.util.concurrent.atomic.AtomicInteger requests = new java.util.concurrent.atomic.AtomicInteger();
        com.sun.net.httpserver.HttpsServer https = httpsServer(server, requests);
        try {
            String target = """
                    { "journal": { "directory": "./journal" },
                      "credentials": { "trust-pass": { "env": "POSTERN_IT_TRUST_PASS" } },
                      "http": { "targets": [ { "name": "internal", "baseUrl": "https://127.0.0.1:%d", "allowPrivateAddresses": true,
                          "methods": ["GET"], "pathPrefixes": ["/"], "timeoutMs": 5000 %s } ] } }
                    """;
            int port = https.getAddress().getPort();
            Path withStore = Files.writeString(dir.resolve("with-store.json"), target.formatted(port,
                    ", \"trustStore\": { \"file\": \"./trust.p12\", \"password\": \"trust-pass\" }"));
            Path withDefault = Files.writeString(dir.resolve("with-default.json"), target.formatted(port, ""));
            Map<String, String> env = Map.of("POSTERN_IT_TRUST_PASS", "trustpass");

            LauncherProcess ok = LauncherProcess.run(List.of("check-config", "--deep", "--connect", "--config", withStore.toString()),
                    new byte[0], dir, env);
            LauncherProcess refused = LauncherProcess.run(List.of("check-config", "--deep", "--connect", "--config", withDefault.toString()),
                    new byte[0], dir, env);
            LauncherProcess wrong = LauncherProcess.run(List.of("check-config", "--deep", "--connect", "--config", withStore.toString()),
                    new byte[0], dir, Map.of("POSTERN_IT_TRUST_PASS", "not-trustpass"));

            assertEquals(0, ok.exitStatus, ok.describe() + new String(ok.stdout, StandardCharsets.UTF_8));
            assertTrue(new String(ok.stdout, StandardCharsets.UTF_8).contains("deep check with connections: no findings"), ok.describe());
            String out = new String(refused.stdout, StandardCharsets.UTF_8);
            assertEquals(6, refused.exitStatus, refused.describe() + out);
            assertTrue(out.contains("error [tls-handshake-failed] /http/targets/0/baseUrl: target internal: TLS handshake with https://127.0.0.1:"
                    + port + " failed: the server's certificate is not trusted: it does not chain to a certificate in the JDK's default"
                    + " certificate authorities\n"), out);
            assertFalse(out.contains("Exception"), "no exception's class is named: " + out);
            assertFalse(out.contains("trustpass") || refused.stderrText().contains("trustpass"), "the store's password is never shown");
            String wrongOut = new String(wrong.stdout, StandardCharsets.UTF_8);
            assertEquals(6, wrong.exitStatus, wrong.describe() + wrongOut);
            assertTrue(wrongOut.contains("error [trust-store-invalid] /http/targets/0/trustStore/password: target internal: trust store "
                    + trust + " cannot be opened with the password in credential trust-pass: the password is wrong or the file is damaged,"
                    + " so every call would fail\n"), wrongOut);
            assertTrue(wrongOut.contains("deep check with connections: 1 error, 0 warnings"), "the store is not dialed: " + wrongOut);
            assertFalse(wrongOut.contains("Exception") || wrongOut.contains("not-trustpass") || wrong.stderrText().contains("not-trustpass"),
                    wrong.describe() + wrongOut);
            assertEquals(0, requests.get(), "--connect sends no request");
        } finally {
            https.stop(0);
        }
    }

    private static com.sun.net.httpserver.HttpsServer httpsServer(Path keyStore, java.util.concurrent.atomic.AtomicInteger requests)
            throws Exception {
        java.security.KeyStore keys = java.security.KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(keyStore)) {
            keys.load(in, "serverpass".toCharArray());
        }
        javax.net.ssl.KeyManagerFactory kmf = javax.net.ssl.KeyManagerFactory.getInstance(javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, "serverpass".toCharArray());
        javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
        context.init(kmf.getKeyManagers(), null, null);
        com.sun.net.httpserver.HttpsServer server = com.sun.net.httpserver.HttpsServer.create(
                new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
        server.setHttpsConfigurator(new com.sun.net.httpserver.HttpsConfigurator(context));
        server.createContext("/", exchange -> {
            requests.incrementAndGet();
            exchange.sendResponseHeaders(500, -1);
            exchange.close();
        });
        server.start();
        return server;
    }

    private static void keytool(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), "keytool " + String.join(" ", args) + ":\n" + output);
    }

    @Test
    void connectLogsInToEachDatabaseAndHasItsStatementsDescribedWithoutRunningThem() throws Exception {
        String role = "it_checker";
        String password = "it-checker-password-61d2";
        try (LocalPostgres pg = LocalPostgres.start()) {
            pg.psql("postgres", "CREATE DATABASE shop");
            pg.psql("shop", "CREATE ROLE " + role + " LOGIN PASSWORD '" + password + "';"
                    + " CREATE TABLE orders (id int PRIMARY KEY, status text NOT NULL); INSERT INTO orders VALUES (1, 'open');"
                    + " GRANT SELECT, INSERT ON orders TO " + role);
            file("right.pw", password, "rw-------");
            file("wrong.pw", "not-the-password-0c4e", "rw-------");
            String database = "{ \"name\": \"%s\", \"host\": \"127.0.0.1\", \"port\": " + pg.port() + ", \"database\": \"shop\","
                    + " \"user\": \"" + role + "\", \"password\": \"%s\", \"tls\": { \"mode\": \"disable\" }, \"allowPrivateAddresses\": %s,"
                    + " \"statements\": [ %s ] }";
            String byId = "{ \"name\": \"by-id\", \"sql\": \"SELECT status FROM orders WHERE id = :id\","
                    + " \"params\": { \"id\": { \"type\": \"integer\", \"minimum\": 1 } } }";
            String add = "{ \"name\": \"add\", \"readOnly\": false, \"sql\": \"INSERT INTO orders VALUES (:id, 'open')\","
                    + " \"params\": { \"id\": { \"type\": \"integer\", \"minimum\": 2 } } }";
            Path config = Files.writeString(dir.resolve("postern.json"), """
                    { "journal": { "directory": "./journal" },
                      "credentials": { "right": { "file": "./right.pw" }, "wrong": { "file": "./wrong.pw" } },
                      "sql": { "databases": [ %s, %s, %s, %s ] } }
                    """.formatted(database.formatted("good", "right", "true", byId + ", " + add),
                    database.formatted("typo", "right", "true", "{ \"name\": \"count\", \"sql\": \"SELECT count(*) FROM ordres\" }"),
                    database.formatted("locked-out", "wrong", "true", byId),
                    database.formatted("closed", "right", "false", byId)));
            long logins = pg.connectionsOf(role);

            LauncherProcess p = checkConfig(config, "--deep", "--connect");
            String out = new String(p.stdout, StandardCharsets.UTF_8);

            assertEquals(6, p.exitStatus, p.describe() + out);
            assertTrue(out.contains("deep check with connections: 3 errors, 0 warnings"), out);
            for (String line : List.of(
                    "error [private-address-without-opt-in] /sql/databases/3/host: database closed: 127.0.0.1 is a non-public address;",
                    "error [statement-invalid] /sql/databases/1/statements/0/sql: database typo, statement count: the server would refuse"
                            + " it: SQLSTATE 42P01: relation \"ordres\" does not exist (at character 22)",
                    "error [login-failed] /sql/databases/2: database locked-out: logging in to shop on 127.0.0.1:" + pg.port() + " as "
                            + role + " failed: SQLSTATE 28P01: password authentication failed for user \"" + role + "\"")) {
                assertTrue(out.lines().anyMatch(l -> l.startsWith(line)), "missing: " + line + "\nin:\n" + out);
            }
            assertFalse(out.contains("/sql/databases/0"), "the good database has no finding: " + out);
            assertEquals(logins + 2, pg.connectionsOf(role), "one login each for good and typo; none for closed:\n" + out);
            pg.psql("shop", "DO $$ BEGIN IF (SELECT count(*) FROM orders) <> 1 THEN RAISE 'the INSERT ran'; END IF; END $$");
            assertFalse(out.contains(password) || out.contains("not-the-password") || p.stderrText().contains(password),
                    "no password is shown");
        }
    }

    @Test
    void connectWithoutDeepIsAUsageError() throws Exception {
        LauncherProcess p = checkConfig(brokenConfig(), "--connect");

        assertEquals(1, p.exitStatus, p.describe());
        assertTrue(p.stderrText().contains("--connect goes with --deep"), p.describe());
    }

    @Test
    void aHomeRelativePathIsRefusedAtLoadNamingTheField() throws Exception {
        Path config = Files.writeString(dir.resolve("postern.json"), """
                { "journal": { "directory": "~/journal" },
                  "credentials": { "k": { "file": "~/.ssh/id_ed25519" } } }
                """);

        LauncherProcess p = checkConfig(config, "--deep");

        assertEquals(4, p.exitStatus, p.describe());
        assertTrue(p.stderrText().contains("at /journal/directory: an absolute path or one relative to the config file's directory"), p.describe());
        assertTrue(p.stderrText().contains("at /credentials/k/file: "), p.describe());
        assertEquals("", new String(p.stdout, StandardCharsets.UTF_8));
    }

    @Test
    void mcpStdioSaysTheSameAsWarningsOnStderrAndStillServes() throws Exception {
        Path key = file("open.key", "secret\n", "rw-r--r--");
        Path config = Files.writeString(dir.resolve("postern.json"), """
                { "journal": { "directory": "./journal" },
                  "credentials": { "k": { "file": "%s" }, "t": { "env": "POSTERN_IT_UNSET_VARIABLE" } },
                  "http": { "targets": [ { "name": "loopback", "baseUrl": "%s", "methods": ["GET"], "pathPrefixes": ["/"],
                      "auth": { "credential": "t", "scheme": "bearer" } } ] } }
                """.formatted(key, http.baseUri()));

        LauncherProcess p = LauncherProcess.run(List.of("mcp-stdio", "--config", config.toString()),
                INITIALIZE.getBytes(StandardCharsets.UTF_8), dir, Map.of());

        assertEquals(0, p.exitStatus, p.describe());
        assertEquals(1, StdoutTranscript.assertProtocolOnly(p.stdout, String.join(" ", p.command), p.stderr).size());
        String err = p.stderrText();
        assertTrue(err.contains("postern: warning: error [credential-file-not-private] /credentials/k: "), err);
        assertTrue(err.contains("postern: warning: error [credential-env-unset] /credentials/t: "), err);
        assertTrue(err.contains("postern: warning: error [private-address-without-opt-in] /http/targets/0/baseUrl: "), err);
        assertFalse(err.contains("secret"), err);
    }
}
