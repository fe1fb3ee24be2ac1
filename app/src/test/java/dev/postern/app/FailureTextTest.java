package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.app.config.ConfigLoader;
import dev.postern.app.config.GatewayConfig;
import dev.postern.journal.FileAuditJournal;
import dev.postern.fixtures.FakeHttpService;
import dev.postern.fixtures.FakeSshServer;
import dev.postern.fixtures.LocalPostgres;
import dev.postern.fixtures.RecordingExecutor;
import dev.postern.fixtures.upstream.HostileUpstream;
import dev.postern.policy.AuthorizedHttpRequest;
import dev.postern.policy.json.Pins;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.LiveTools;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SshHost;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.port.AuditJournal;
import dev.postern.protocol.tools.ToolResults;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Optional;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every failure code of every kind, triggered against real loopback servers (a fake HTTP service, a
 * raw socket that smuggles or hangs up, a MINA SSH server, a real PostgreSQL, a closed port, a wrong
 * host key, a bad password, a credential file others can read) and upstream MCP servers that answer
 * late, exit mid-call, break the result's shape or outgrow their cap, through the gateway's own wiring and
 * executors: the line the agent gets names no address, port, user, file path or Java class, and the
 * journal's outcome row keeps the operator's detail, with no credential value anywhere. The table
 * must cover {@link FailureCode#values()} for each kind, or say why a code cannot occur there.
 */
class FailureTextTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SSH_USER = "ssh_user_q7";
    private static final String SQL_ROLE = "dbrole_q7";
    private static final String SQL_PASSWORD = "db-password-value-91c2";
    private static final String SSH_PASSWORD = "ssh-password-value-5d0e";
    private static final String API_TOKEN = "api-token-value-77aa";
    private static final String ROW_SECRET = "row-secret-7f3a";
    private static final List<String> SECRETS = List.of(SQL_PASSWORD, SSH_PASSWORD, API_TOKEN, "wrong-password-value-13");
    private static final Pattern QUALIFIED_CLASS = Pattern.compile("[a-z]+\\.[a-z]+\\.[A-Z]\\w*(Exception|Error)");
    private static final Pattern BARE_CLASS = Pattern.compile("\\w+Exception|\\b[A-Z][A-Za-z0-9]*Error\\b");

    /** The registered kinds by their allowance type, and ANY for what every kind shares; a kind not here fails the completeness test. */
    enum Kind {
        HTTP(HttpTarget.class), SSH(SshHost.class), SQL(SqlDatabase.class), MCP(UpstreamServer.class), ANY(null);

        final Class<? extends Allowance> allowance;

        Kind(Class<? extends Allowance> allowance) {
            this.allowance = allowance;
        }

        static List<Kind> registered() {
            return Arrays.stream(values()).filter(k -> k != ANY).toList();
        }
    }

    /** One failure to trigger: the tool call's arguments, and what the operator's detail must mention. */
    record Case(Kind kind, FailureCode code, String name, String tool, String arguments, String detailHas) {
        /** The config the case runs on: upstream servers have their own, so that no other case starts them. */
        Path configFile() {
            return kind == Kind.MCP ? mcpConfig : config;
        }
    }

    /** Codes a kind cannot produce, each with the reason. */
    private static final Map<Kind, Map<FailureCode, String>> NOT_REACHABLE = Map.of(
            Kind.HTTP, Map.of(
                    FailureCode.HOST_KEY_REJECTED, "HTTP has no host keys (TLS failures are TLS_FAILED)",
                    FailureCode.AUTH_FAILED, "an HTTP server's 401 is a response the agent gets, not a failure",
                    FailureCode.QUERY_FAILED, "HTTP runs no statements",
                    FailureCode.UPSTREAM_UNAVAILABLE, "HTTP has no upstream MCP server (an unreachable target is CONNECT_FAILED)"),
            Kind.SSH, Map.of(
                    FailureCode.ADDRESS_REFUSED, "SSH hosts have no private-address rule (the operator names the address)",
                    FailureCode.TLS_FAILED, "SSH does not use TLS",
                    FailureCode.RESPONSE_TOO_LARGE, "output past maxOutputBytes is truncated, never refused",
                    FailureCode.QUERY_FAILED, "SSH runs no statements",
                    FailureCode.UPSTREAM_UNAVAILABLE, "SSH has no upstream MCP server (an unreachable host is CONNECT_FAILED)",
                    FailureCode.UPSTREAM_PROTOCOL_ERROR, "the SSH library ends a session that breaks its protocol; that is CONNECT_FAILED or EXECUTOR_FAILED",
                    FailureCode.EXECUTOR_FAILED, "a real server (MINA's, OpenSSH) always ends an exec channel with a status or signal and"
                            + " opens it; the executor's own EXECUTOR_FAILED texts name only the host (kind-neutral case covers a throwing executor)"),
            Kind.SQL, Map.of(
                    FailureCode.HOST_KEY_REJECTED, "PostgreSQL has no host keys",
                    FailureCode.UPSTREAM_UNAVAILABLE, "SQL has no upstream MCP server (an unreachable database is CONNECT_FAILED)",
                    FailureCode.RESPONSE_TOO_LARGE, "rows past maxRows or maxResponseBytes are truncated, never refused",
                    FailureCode.UPSTREAM_PROTOCOL_ERROR, "the driver reports a broken protocol with SQLSTATE 08P01: CONNECT_FAILED",
                    FailureCode.EXECUTOR_FAILED, "only a driver error without SQLSTATE, which no real server produces on demand;"
                            + " the kind-neutral case covers a throwing executor"),
            Kind.MCP, Map.ofEntries(
                    Map.entry(FailureCode.HOST_KEY_REJECTED, "an upstream is a child process: no host keys"),
                    Map.entry(FailureCode.ADDRESS_REFUSED, "an upstream is a child process: no address"),
                    Map.entry(FailureCode.TLS_FAILED, "an upstream speaks over its stdio pipes: no TLS"),
                    Map.entry(FailureCode.AUTH_FAILED, "an upstream's own refusal is its isError result, which the agent gets"),
                    Map.entry(FailureCode.QUERY_FAILED, "an upstream runs no statements"),
                    Map.entry(FailureCode.CONNECT_FAILED, "an upstream is started, not connected to: one that cannot start or"
                            + " dies is UPSTREAM_UNAVAILABLE"),
                    Map.entry(FailureCode.CREDENTIAL_UNAVAILABLE, "a server's credentials are read when it starts, before it lists"
                            + " tools: its tools are withheld (a denial, mcp.unlisted) and check-config --deep names the credential"),
                    Map.entry(FailureCode.EXECUTOR_FAILED, "an upstream's JSON-RPC error to a listed tool, which no server here gives on"
                            + " demand (McpActionExecutorTest masks and bounds its message); the kind-neutral case covers a throwing"
                            + " executor")),
            Kind.ANY, Map.of(
                    FailureCode.CANCELLED, "a cancelled call is not answered (notifications/cancelled suppresses it), except at the"
                            + " end-of-input grace (SessionFaultsTest); every CANCELLED text is a fixed sentence naming only the target"));

    @TempDir
    static Path dir;

    private static FakeHttpService http;
    private static FakeSshServer ssh;
    private static LocalPostgres pg;
    private static ServerSocket raw;
    private static int closedPort;
    private static Path config;
    private static Path mcpConfig;
    private static final List<String> forbidden = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        http = FakeHttpService.start();
        http.stall("/v1/slow", Duration.ofSeconds(5));
        http.respond("/v1/big", 200, Map.of("Content-Type", "text/plain"), "x".repeat(100).getBytes(StandardCharsets.UTF_8));
        ssh = FakeSshServer.start();
        ssh.allowPassword(SSH_USER, SSH_PASSWORD);
        ssh.respond(command -> command.contains("slow") ? FakeSshServer.Reply.exit("late", "", 0).after(Duration.ofSeconds(8))
                : FakeSshServer.Reply.exit("hi", "", 0));
        pg = LocalPostgres.start();
        pg.psql("postgres", "CREATE DATABASE shop");
        pg.psql("shop", "CREATE ROLE " + SQL_ROLE + " LOGIN PASSWORD '" + SQL_PASSWORD + "';"
                + " CREATE TABLE items (id int PRIMARY KEY, note text UNIQUE NOT NULL);"
                + " INSERT INTO items VALUES (1, '" + ROW_SECRET + "');"
                + " GRANT SELECT, INSERT ON items TO " + SQL_ROLE);
        raw = rawServer();
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = probe.getLocalPort();
        }

        Path key = ssh.generateClientKey(dir).privateKeyFile();
        owner(key);
        Path knownHosts = ssh.writeKnownHosts(dir.resolve("known_hosts"));
        Path openKey = dir.resolve("open-key");
        Files.copy(key, openKey);
        Files.setPosixFilePermissions(openKey, PosixFilePermissions.fromString("rw-r--r--"));
        Path sshPassword = secretFile("ssh-password", SSH_PASSWORD, "rw-------");
        Path wrongPassword = secretFile("wrong-password", "wrong-password-value-13", "rw-------");
        Path dbPassword = secretFile("db-password", SQL_PASSWORD, "rw-------");
        Path openDbPassword = secretFile("open-db-password", SQL_PASSWORD, "rw-r--r--");
        Path openToken = secretFile("api-token", API_TOKEN, "rw-r--r--");

        String pin = "SHA256:" + "A".repeat(43);
        config = dir.resolve("postern.json");
        Files.writeString(config, """
                {
                  "journal": { "directory": "journal" },
                  "credentials": {
                    "deploy-key": { "file": "%1$s" }, "open-key": { "file": "%2$s" },
                    "ssh-password": { "file": "%3$s" }, "wrong-password": { "file": "%4$s" },
                    "db-password": { "file": "%5$s" }, "open-db-password": { "file": "%6$s" },
                    "api-token": { "file": "%7$s" } },
                  "http": { "targets": [
                    { "name": "web", "baseUrl": "http://127.0.0.1:%8$d", "methods": ["GET"], "pathPrefixes": ["/v1"],
                      "allowPrivateAddresses": true, "timeoutMs": 700, "maxResponseBytes": 16, "onOversizeResponse": "refuse" },
                    { "name": "nowhere", "baseUrl": "http://127.0.0.1:%9$d", "methods": ["GET"], "pathPrefixes": ["/v1"],
                      "allowPrivateAddresses": true },
                    { "name": "inside", "baseUrl": "http://localhost:%8$d", "methods": ["GET"], "pathPrefixes": ["/v1"] },
                    { "name": "secure", "baseUrl": "https://127.0.0.1:%10$d", "methods": ["GET"], "pathPrefixes": ["/v1"],
                      "allowPrivateAddresses": true },
                    { "name": "tokened", "baseUrl": "http://127.0.0.1:%8$d", "methods": ["GET"], "pathPrefixes": ["/t"],
                      "allowPrivateAddresses": true, "auth": { "credential": "api-token", "scheme": "bearer" } },
                    { "name": "raw", "baseUrl": "http://127.0.0.1:%10$d", "methods": ["GET"], "pathPrefixes": ["/"],
                      "allowPrivateAddresses": true, "timeoutMs": 5000 },
                    { "name": "limited", "baseUrl": "http://127.0.0.1:%8$d", "methods": ["GET"], "pathPrefixes": ["/r"],
                      "allowPrivateAddresses": true, "rateLimit": { "calls": 1, "perSeconds": 3600 } } ] },
                  "ssh": { "hosts": [
                    { "name": "box", "address": "127.0.0.1", "port": %11$d, "user": "%12$s", "identity": "deploy-key",
                      "knownHosts": "%13$s", "timeoutSeconds": 1, "commands": [ { "name": "slow", "argv": ["slow"] } ] },
                    { "name": "gone", "address": "127.0.0.1", "port": %9$d, "user": "%12$s", "identity": "deploy-key",
                      "knownHosts": "%13$s", "timeoutSeconds": 5, "commands": [ { "name": "hi", "argv": ["hi"] } ] },
                    { "name": "stranger", "address": "127.0.0.1", "port": %11$d, "user": "%12$s", "identity": "deploy-key",
                      "hostKeyFingerprint": "%14$s", "timeoutSeconds": 5, "commands": [ { "name": "hi", "argv": ["hi"] } ] },
                    { "name": "locked", "address": "127.0.0.1", "port": %11$d, "user": "%12$s", "password": "wrong-password",
                      "knownHosts": "%13$s", "timeoutSeconds": 5, "commands": [ { "name": "hi", "argv": ["hi"] } ] },
                    { "name": "keyless", "address": "127.0.0.1", "port": %11$d, "user": "%12$s", "identity": "open-key",
                      "knownHosts": "%13$s", "timeoutSeconds": 5, "commands": [ { "name": "hi", "argv": ["hi"] } ] } ] },
                  "sql": { "databases": [
                    { "name": "shop", "host": "127.0.0.1", "port": %15$d, "database": "shop", "user": "%16$s",
                      "password": "db-password", "tls": { "mode": "disable" }, "allowPrivateAddresses": true, "timeoutMs": 3000,
                      "statements": [
                        { "name": "sleepy", "sql": "SELECT pg_sleep(8)" },
                        { "name": "copy-note", "readOnly": false, "sql": "INSERT INTO items SELECT 2, note FROM items WHERE id = 1" } ] },
                    { "name": "gone-db", "host": "127.0.0.1", "port": %9$d, "database": "shop", "user": "%16$s",
                      "password": "db-password", "tls": { "mode": "disable" }, "allowPrivateAddresses": true,
                      "statements": [ { "name": "one", "sql": "SELECT 1" } ] },
                    { "name": "inside-db", "host": "127.0.0.1", "port": %15$d, "database": "shop", "user": "%16$s",
                      "password": "db-password", "tls": { "mode": "disable" },
                      "statements": [ { "name": "one", "sql": "SELECT 1" } ] },
                    { "name": "tls-db", "host": "127.0.0.1", "port": %15$d, "database": "shop", "user": "%16$s",
                      "password": "db-password", "allowPrivateAddresses": true,
                      "statements": [ { "name": "one", "sql": "SELECT 1" } ] },
                    { "name": "locked-db", "host": "127.0.0.1", "port": %15$d, "database": "shop", "user": "%16$s",
                      "password": "wrong-password", "tls": { "mode": "disable" }, "allowPrivateAddresses": true,
                      "statements": [ { "name": "one", "sql": "SELECT 1" } ] },
                    { "name": "open-db", "host": "127.0.0.1", "port": %15$d, "database": "shop", "user": "%16$s",
                      "password": "open-db-password", "tls": { "mode": "disable" }, "allowPrivateAddresses": true,
                      "statements": [ { "name": "one", "sql": "SELECT 1" } ] } ] }
                }
                """.formatted(key, openKey, sshPassword, wrongPassword, dbPassword, openDbPassword, openToken,
                http.port(), closedPort, raw.getLocalPort(), ssh.port(), SSH_USER, knownHosts, pin, pg.port(), SQL_ROLE));

        mcpConfig = upstreamConfig();

        forbidden.add("127.0.0.1");
        forbidden.add("localhost");
        forbidden.add(SSH_USER);
        forbidden.add(SQL_ROLE);
        forbidden.add(dir.toString());
        forbidden.add("/tmp");
        forbidden.addAll(SECRETS);
        forbidden.add(ROW_SECRET);
        // The upstream's argv: its program and class path are the operator's, never the agent's.
        forbidden.add(HostileUpstream.command("clean").get(0));
    }

    /**
     * Upstream servers, each a hostile upstream in one mode with its tools pinned to what it lists now:
     * one that answers late (a 700 ms bound), one that exits mid-call, one whose result is no
     * CallToolResult, one whose results are bigger than its 64-byte cap.
     */
    private static Path upstreamConfig() throws IOException {
        List<String> clean = HostileUpstream.command("clean");
        GatewayConfig probe = SessionHarness.config(dir.resolve("probe-journal"), Policy.of(new UpstreamServer("probe", clean,
                dir.toString(), Map.of(), Duration.ofSeconds(20), Duration.ofSeconds(20), 1 << 20, List.of(), Optional.empty())), 2);
        LiveTools.Listing listing = Gateway.listNow(probe, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
                .of(probe.policy().allowances(UpstreamServer.class).get(0));
        if (!(listing instanceof LiveTools.Listing.Listed listed)) {
            throw new AssertionError("the hostile upstream listed nothing: " + listing);
        }
        Map<String, String> pins = new java.util.HashMap<>();
        listed.tools().forEach(t -> pins.put(t.string("name").orElseThrow(), Pins.of(t)));
        StringBuilder servers = new StringBuilder();
        servers.append(upstream("sluggish", clean, 700, 1 << 20, "slow", pins)).append(",\n")
                .append(upstream("crashing", HostileUpstream.command("crash-mid-call"), 20_000, 1 << 20, "echo", pins)).append(",\n")
                .append(upstream("misshapen", HostileUpstream.command("wrong-shape"), 20_000, 1 << 20, "echo", pins)).append(",\n")
                .append(upstream("verbose", clean, 20_000, 64, "echo", pins));
        Path file = dir.resolve("postern-mcp.json");
        Files.writeString(file, "{ \"journal\": { \"directory\": \"journal\" },\n  \"mcp\": { \"servers\": [\n" + servers + " ] } }\n");
        return file;
    }

    private static String upstream(String name, List<String> command, int timeoutMs, int maxResponseBytes, String tool,
            Map<String, String> pins) throws IOException {
        return "{ \"name\": \"" + name + "\", \"command\": " + JSON.writeValueAsString(command) + ", \"timeoutMs\": " + timeoutMs
                + ", \"maxResponseBytes\": " + maxResponseBytes + ", \"tools\": [ { \"name\": \"" + tool + "\", \"pin\": \""
                + pins.get(tool) + "\" } ] }";
    }

    @AfterAll
    static void stop() throws IOException {
        if (http != null) {
            http.close();
        }
        if (ssh != null) {
            ssh.close();
        }
        if (pg != null) {
            pg.close();
        }
        if (raw != null) {
            raw.close();
        }
    }

    private static List<Case> cases() {
        List<Case> cases = new ArrayList<>();
        cases.add(httpCase(FailureCode.TIMEOUT, "web", "/v1/slow", "700 ms"));
        cases.add(httpCase(FailureCode.RESPONSE_TOO_LARGE, "web", "/v1/big", "16"));
        cases.add(httpCase(FailureCode.CONNECT_FAILED, "nowhere", "/v1/x", "127.0.0.1"));
        cases.add(new Case(Kind.HTTP, FailureCode.ADDRESS_REFUSED, "inside", "http_request",
                "{\"method\":\"GET\",\"url\":\"http://localhost:" + http.port() + "/v1/x\"}", "127.0.0.1"));
        cases.add(new Case(Kind.HTTP, FailureCode.TLS_FAILED, "secure", "http_request",
                "{\"method\":\"GET\",\"url\":\"https://127.0.0.1:" + raw.getLocalPort() + "/v1/x\"}", "SSL"));
        cases.add(httpCase(FailureCode.CREDENTIAL_UNAVAILABLE, "tokened", "/t/x", dir.resolve("api-token").toString()));
        cases.add(httpCase(FailureCode.UPSTREAM_PROTOCOL_ERROR, "raw", "/smuggle", "127.0.0.1"));
        cases.add(httpCase(FailureCode.EXECUTOR_FAILED, "raw", "/hangup", "127.0.0.1"));
        cases.add(sshCase(FailureCode.TIMEOUT, "box", "slow", "127.0.0.1:" + ssh.port()));
        cases.add(sshCase(FailureCode.CONNECT_FAILED, "gone", "hi", "127.0.0.1:" + closedPort));
        cases.add(sshCase(FailureCode.HOST_KEY_REJECTED, "stranger", "hi", "127.0.0.1:" + ssh.port()));
        cases.add(sshCase(FailureCode.AUTH_FAILED, "locked", "hi", SSH_USER));
        cases.add(sshCase(FailureCode.CREDENTIAL_UNAVAILABLE, "keyless", "hi", dir.resolve("open-key").toString()));
        cases.add(sqlCase(FailureCode.TIMEOUT, "shop", "sleepy", "SQLSTATE"));
        cases.add(sqlCase(FailureCode.QUERY_FAILED, "shop", "copy-note", ROW_SECRET));
        cases.add(sqlCase(FailureCode.CONNECT_FAILED, "gone-db", "one", "127.0.0.1:" + closedPort));
        cases.add(sqlCase(FailureCode.ADDRESS_REFUSED, "inside-db", "one", "127.0.0.1"));
        cases.add(sqlCase(FailureCode.TLS_FAILED, "tls-db", "one", "SSL"));
        cases.add(sqlCase(FailureCode.AUTH_FAILED, "locked-db", "one", SQL_ROLE));
        cases.add(sqlCase(FailureCode.CREDENTIAL_UNAVAILABLE, "open-db", "one", dir.resolve("open-db-password").toString()));
        cases.add(mcpCase(FailureCode.TIMEOUT, "sluggish__slow", "{\"ms\":8000}", "700 ms"));
        cases.add(mcpCase(FailureCode.UPSTREAM_UNAVAILABLE, "crashing__echo", "{\"text\":\"hi\"}", "exited"));
        cases.add(mcpCase(FailureCode.UPSTREAM_PROTOCOL_ERROR, "misshapen__echo", "{\"text\":\"hi\"}", "CallToolResult"));
        cases.add(mcpCase(FailureCode.RESPONSE_TOO_LARGE, "verbose__echo", "{\"text\":\"" + "x".repeat(200) + "\"}", "cap of 64"));
        return cases;
    }

    private static Case httpCase(FailureCode code, String target, String path, String detailHas) {
        int port = target.equals("nowhere") ? closedPort : target.equals("raw") ? raw.getLocalPort() : http.port();
        return new Case(Kind.HTTP, code, target + path, "http_request",
                "{\"method\":\"GET\",\"url\":\"http://127.0.0.1:" + port + path + "\"}", detailHas);
    }

    private static Case sshCase(FailureCode code, String host, String command, String detailHas) {
        return new Case(Kind.SSH, code, host, "ssh_exec", "{\"host\":\"" + host + "\",\"command\":\"" + command + "\"}", detailHas);
    }

    private static Case sqlCase(FailureCode code, String database, String statement, String detailHas) {
        return new Case(Kind.SQL, code, database + "/" + statement, "sql_query",
                "{\"database\":\"" + database + "\",\"statement\":\"" + statement + "\"}", detailHas);
    }

    private static Case mcpCase(FailureCode code, String tool, String arguments, String detailHas) {
        return new Case(Kind.MCP, code, tool, tool, arguments, detailHas);
    }

    @Test
    void theTableNamesEveryRegisteredKindAndNoOther() {
        assertEquals(Gateway.kinds().all().stream().map(k -> k.allowanceType().getSimpleName()).sorted().toList(),
                Kind.registered().stream().map(k -> k.allowance.getSimpleName()).sorted().toList(),
                "a registered kind needs its cases and reasons here (Kind), and a kind here must be registered");
    }

    @Test
    void everyFailureCodeOfEveryKindHasACaseOrASaidReasonItCannotOccur() {
        List<Kind> kinds = Kind.registered();
        List<String> missing = new ArrayList<>();
        // Refused by the gateway before any executor, the same for every kind: kindNeutral... proves them.
        Set<FailureCode> neutral = EnumSet.of(FailureCode.JOURNAL_UNAVAILABLE, FailureCode.RATE_LIMITED);
        for (Kind kind : kinds) {
            for (FailureCode code : FailureCode.values()) {
                boolean hasCase = cases().stream().anyMatch(c -> c.kind() == kind && c.code() == code)
                        || neutral.contains(code);
                boolean explained = NOT_REACHABLE.get(kind).containsKey(code) || NOT_REACHABLE.get(Kind.ANY).containsKey(code);
                if (hasCase == explained) {
                    missing.add(kind + " " + code + (hasCase ? ": both a case and a reason" : ": neither a case nor a reason"));
                }
            }
        }
        assertEquals(List.of(), missing, "each code of each kind needs exactly one of a case or a reason it cannot occur");
    }

    @Test
    void everyExecutorFailureTellsTheAgentNoAddressPortUserPathOrClassAndTheJournalKeepsTheDetail() throws Exception {
        Map<Path, GatewayConfig> loaded = new java.util.HashMap<>();
        List<String> problems = new ArrayList<>();
        int id = 2;
        for (Case c : cases()) {
            GatewayConfig on = loaded.computeIfAbsent(c.configFile(), FailureTextTest::load);
            Answer a = call(on, List.of(), c.tool(), c.arguments(), id++);
            problems.addAll(check(c.code(), c.name(), a, c.detailHas()));
        }
        assertEquals(List.of(), problems, String.join("\n", problems));
    }

    @Test
    void kindNeutralFailuresTellTheAgentNothingOfWhatTheOperatorIsTold() throws Exception {
        GatewayConfig loaded = Gateway.configLoader().load(config);
        List<String> problems = new ArrayList<>();
        String arguments = "{\"method\":\"GET\",\"url\":\"http://127.0.0.1:" + http.port() + "/r/x\"}";

        // RATE_LIMITED: of two calls in one session to a target allowing one an hour, one is refused.
        ByteArrayOutputStream twice = new ByteArrayOutputStream();
        try (AuditJournal journal = Gateway.journal(loaded, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))) {
            Gateway.run(loaded, journal, List.of(), ToolResults.DEFAULT_MAX_RESULT_BYTES,
                    new ByteArrayInputStream((SessionHarness.INIT + SessionHarness.INITIALIZED + toolCall(2, "http_request", arguments)
                            + toolCall(3, "http_request", arguments)).getBytes(StandardCharsets.UTF_8)), twice,
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), session -> { });
        }
        String limited = answerLine(twice, 2).contains("RATE_LIMITED") ? answerLine(twice, 2) : answerLine(twice, 3);
        problems.addAll(agentProblems(FailureCode.RATE_LIMITED, "limited", limited));

        // EXECUTOR_FAILED: an executor that throws with an address, a user, a path and a class in its message.
        RecordingExecutor<AuthorizedHttpRequest> throwing = new RecordingExecutor<>(AuthorizedHttpRequest.class, permit -> {
            throw new IllegalStateException("java.net.ConnectException: 127.0.0.1:" + closedPort + " as " + SSH_USER + " reading "
                    + dir.resolve("api-token"));
        });
        String call = "{\"method\":\"GET\",\"url\":\"http://127.0.0.1:" + http.port() + "/v1/x\"}";
        problems.addAll(check(FailureCode.EXECUTOR_FAILED, "throwing executor", call(loaded, List.of(throwing), "http_request", call, 4),
                "IllegalStateException"));

        // JOURNAL_UNAVAILABLE: an intent row that cannot be written (the message names the journal's path).
        FailingAuditJournal failing = new FailingAuditJournal();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Gateway.run(loaded, failing, List.of(), ToolResults.DEFAULT_MAX_RESULT_BYTES,
                new ByteArrayInputStream((SessionHarness.INIT + SessionHarness.INITIALIZED + toolCall(5, "http_request", call))
                        .getBytes(StandardCharsets.UTF_8)), out, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                session -> { });
        problems.addAll(agentProblems(FailureCode.JOURNAL_UNAVAILABLE, "failing journal", answerLine(out, 5)));
        assertEquals(List.of(), problems, String.join("\n", problems));
    }

    private static GatewayConfig load(Path file) {
        try {
            return Gateway.configLoader().load(file);
        } catch (dev.postern.app.config.ConfigException e) {
            throw new AssertionError(e.getMessage(), e);
        }
    }

    /** What one call came to: the agent's whole response line, and the outcome row the journal wrote for it (or null). */
    record Answer(String line, JsonNode outcome) {
    }

    private static Answer call(GatewayConfig loaded, List<dev.postern.policy.port.ActionExecutor<?>> substitutes, String tool,
                               String arguments, int id) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream diagnostics = new PrintStream(err, true, StandardCharsets.UTF_8);
        int before = outcomeRows().size();
        try (AuditJournal journal = Gateway.journal(loaded, diagnostics)) {
            Gateway.run(loaded, journal, substitutes, ToolResults.DEFAULT_MAX_RESULT_BYTES,
                    new ByteArrayInputStream((SessionHarness.INIT + SessionHarness.INITIALIZED + toolCall(id, tool, arguments))
                            .getBytes(StandardCharsets.UTF_8)), out, diagnostics, session -> { });
        }
        List<JsonNode> rows = outcomeRows();
        return new Answer(answerLine(out, id), rows.size() > before ? rows.get(rows.size() - 1) : null);
    }

    private static String toolCall(int id, String tool, String arguments) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
                + "\",\"arguments\":" + arguments + "}}\n";
    }

    private static String answerLine(ByteArrayOutputStream out, int id) throws IOException {
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
            JsonNode m = JSON.readTree(line);
            if (m.path("id").asInt() == id) {
                return line;
            }
        }
        throw new AssertionError("no answer to id " + id + " in " + out.toString(StandardCharsets.UTF_8));
    }

    private static List<JsonNode> outcomeRows() throws IOException {
        Path actions = dir.resolve("journal").resolve(FileAuditJournal.ACTIONS);
        List<JsonNode> rows = new ArrayList<>();
        if (Files.exists(actions)) {
            for (String line : Files.readAllLines(actions, StandardCharsets.UTF_8)) {
                JsonNode row = JSON.readTree(line);
                if ("outcome".equals(row.path("kind").textValue())) {
                    rows.add(row);
                }
            }
        }
        return rows;
    }

    private static List<String> check(FailureCode code, String name, Answer a, String detailHas) {
        List<String> problems = new ArrayList<>(agentProblems(code, name, a.line()));
        String where = code + " " + name + ": ";
        if (a.outcome() == null) {
            problems.add(where + "no outcome row");
            return problems;
        }
        String row = a.outcome().toString();
        if (!code.name().equals(a.outcome().path("result").textValue())) {
            problems.add(where + "outcome row result is not " + code + ": " + row);
        }
        String detail = a.outcome().path("detail").textValue();
        if (detail == null || !detail.contains(detailHas)) {
            problems.add(where + "outcome row detail lacks '" + detailHas + "': " + row);
        }
        for (String secret : SECRETS) {
            if (row.contains(secret)) {
                problems.add(where + "outcome row holds a credential value: " + row);
            }
        }
        return problems;
    }

    private static List<String> agentProblems(FailureCode code, String name, String line) {
        List<String> problems = new ArrayList<>();
        String where = code + " " + name + ": ";
        JsonNode error;
        try {
            JsonNode result = JSON.readTree(line).get("result");
            error = JSON.readTree(result.get("content").get(0).get("text").textValue()).get("error");
        } catch (IOException | RuntimeException e) {
            return List.of(where + "not a tool error: " + line);
        }
        if (error == null) {
            return List.of(where + "not a tool error: " + line);
        }
        if (!code.name().equals(error.path("code").textValue())) {
            problems.add(where + "the agent got code " + error.path("code") + ": " + line);
        }
        for (String f : forbidden) {
            if (line.contains(f)) {
                problems.add(where + "the agent's line holds '" + f + "': " + line);
            }
        }
        for (int port : List.of(http.port(), ssh.port(), pg.port(), closedPort, raw.getLocalPort())) {
            if (Pattern.compile("(?<![0-9])" + port + "(?![0-9])").matcher(line).find()) {
                problems.add(where + "the agent's line holds port " + port + ": " + line);
            }
        }
        if (QUALIFIED_CLASS.matcher(line).find() || BARE_CLASS.matcher(line).find()) {
            problems.add(where + "the agent's line names a Java class: " + line);
        }
        return problems;
    }

    private static Path secretFile(String name, String value, String mode) throws IOException {
        Path file = dir.resolve(name);
        Files.writeString(file, value);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
        return file;
    }

    private static void owner(Path file) throws IOException {
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }

    /**
     * A raw HTTP/1.1 server on loopback: {@code /smuggle} is answered with five declared bytes and a
     * whole second response after them; {@code /hangup} reads the request and closes without a word.
     */
    private static ServerSocket rawServer() throws IOException {
        ServerSocket server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                    InputStream in = s.getInputStream();
                    int first = in.read();
                    if (first == 0x16) {
                        // A TLS ClientHello: answered in plain HTTP, as a server on a plain port would.
                        s.getOutputStream().write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                        s.getOutputStream().flush();
                        continue;
                    }
                    StringBuilder head = new StringBuilder().append((char) first);
                    for (int b = in.read(); b >= 0; b = in.read()) {
                        head.append((char) b);
                        if (head.toString().endsWith("\r\n\r\n")) {
                            break;
                        }
                    }
                    if (head.toString().startsWith("GET /smuggle")) {
                        OutputStream o = s.getOutputStream();
                        o.write(("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
                                + "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nevil").getBytes(StandardCharsets.US_ASCII));
                        o.flush();
                        Thread.sleep(200);
                    }
                } catch (IOException | InterruptedException e) {
                    // closed, or a client that went away: accept the next
                }
            }
        }, "raw-http");
        t.setDaemon(true);
        t.start();
        return server;
    }

}
