package dev.postern.app.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.postern.fixtures.FakeHttpService;
import dev.postern.fixtures.StdoutTranscript;
import dev.postern.fixtures.ToolErrors;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code command} credentials through {@code bin/postern}, against the operator's real tools: Debian's
 * {@code pass} over a throwaway GPG key (no passphrase, in a temporary {@code GNUPGHOME}), and the
 * freedesktop Secret Service of a real {@code gnome-keyring-daemon} (unlocked with a known password,
 * in temporary HOME/XDG directories) on a private D-Bus session bus, read by {@code secret-tool}. The
 * secret each yields reaches a loopback HTTP service as the bearer token, is masked where the service
 * echoes it, and a failing lookup tells the agent only that the credential's command failed. Fails
 * under {@code CI=true} when a tool is missing ({@code .ci/run} installs them); elsewhere it skips.
 */
class CommandCredentialIT {
    private static final List<String> TOOLS = List.of("/usr/bin/pass", "/usr/bin/gpg", "/usr/bin/gpgconf", "/usr/bin/secret-tool",
            "/usr/bin/gnome-keyring-daemon", "/usr/bin/dbus-daemon", "/usr/bin/dbus-send");
    private static final String PASS_SECRET = "pass-Secret-4f1b9e";
    private static final String KEYRING_SECRET = "keyring-Secret-8c27d0";
    private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
            + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}\n"
            + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

    @TempDir
    Path dir;

    private FakeHttpService http;
    private final List<Process> daemons = new ArrayList<>();
    private final Map<String, String> toolEnv = new HashMap<>();

    @BeforeAll
    static void toolsAreInstalled() {
        List<String> missing = TOOLS.stream().filter(t -> !Files.isExecutable(Path.of(t))).toList();
        if (!missing.isEmpty() && "true".equals(System.getenv("CI"))) {
            fail(missing + " missing and CI=true: install Debian's pass, gnupg, gnome-keyring, libsecret-tools and dbus"
                    + " (.ci/run does) so this test runs");
        }
        assumeTrue(missing.isEmpty(), missing + " missing; install pass, gnupg, gnome-keyring, libsecret-tools and dbus to run it");
    }

    @BeforeEach
    void start() {
        http = FakeHttpService.start();
        // The service answers with the Authorization header it got: the agent must see it masked.
        http.respond("/v1/whoami", request -> new FakeHttpService.Reply(200, Map.of("Content-Type", "text/plain"),
                ("you sent " + request.header("Authorization").orElse("nothing")).getBytes(StandardCharsets.UTF_8)));
    }

    @AfterEach
    void stop() throws Exception {
        http.close();
        if (toolEnv.containsKey("GNUPGHOME")) {
            tool(List.of("gpgconf", "--kill", "gpg-agent"), "");
        }
        for (int i = daemons.size() - 1; i >= 0; i--) {
            Process p = daemons.get(i);
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** Runs a setup tool with {@link #toolEnv}, feeding {@code stdin}; it must exit 0 within 60 s. */
    private void tool(List<String> argv, String stdin) throws Exception {
        ProcessBuilder b = new ProcessBuilder(argv).redirectErrorStream(true);
        b.environment().putAll(toolEnv);
        Process p = b.start();
        try (OutputStream in = p.getOutputStream()) {
            in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), argv + " did not finish");
        assertEquals(0, p.exitValue(), argv + " failed: " + new String(out, StandardCharsets.UTF_8));
    }

    private Path privateDir(String name) throws IOException {
        return Files.createDirectories(dir.resolve(name), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }

    /** A throwaway GPG key and a password store holding {@link #PASS_SECRET} at {@code postern/api}; the variables pass needs. */
    private Map<String, String> passStore() throws Exception {
        toolEnv.put("GNUPGHOME", privateDir("gnupg").toString());
        toolEnv.put("PASSWORD_STORE_DIR", dir.resolve("password-store").toString());
        tool(List.of("gpg", "--batch", "--passphrase", "", "--quick-generate-key", "Postern IT <postern-it@localhost>",
                "default", "default", "never"), "");
        tool(List.of("pass", "init", "postern-it@localhost"), "");
        tool(List.of("pass", "insert", "--multiline", "postern/api"), PASS_SECRET + "\n");
        return Map.copyOf(toolEnv);
    }

    /**
     * A private session bus and a gnome-keyring-daemon on it, unlocked with a known password, in
     * temporary HOME/XDG directories, holding {@link #KEYRING_SECRET} under service=postern
     * account=api; the variable secret-tool needs.
     */
    private Map<String, String> keyring() throws Exception {
        Path home = privateDir("home");
        toolEnv.put("HOME", home.toString());
        toolEnv.put("XDG_RUNTIME_DIR", privateDir("run").toString());
        toolEnv.put("XDG_DATA_HOME", home.resolve(".local/share").toString());
        toolEnv.put("XDG_CONFIG_HOME", home.resolve(".config").toString());
        ProcessBuilder bus = new ProcessBuilder("dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1")
                .redirectError(dir.resolve("dbus.log").toFile());
        bus.environment().putAll(toolEnv);
        Process busProcess = bus.start();
        daemons.add(busProcess);
        String address = new BufferedReader(new InputStreamReader(busProcess.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertTrue(address != null && address.startsWith("unix:"), "dbus-daemon printed its address: " + address);
        toolEnv.put("DBUS_SESSION_BUS_ADDRESS", address);

        ProcessBuilder keyring = new ProcessBuilder("gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets")
                .redirectOutput(dir.resolve("keyring.out").toFile()).redirectError(dir.resolve("keyring.log").toFile());
        keyring.environment().putAll(toolEnv);
        Process keyringProcess = keyring.start();
        daemons.add(keyringProcess);
        try (OutputStream in = keyringProcess.getOutputStream()) {
            in.write("postern-it-keyring-password".getBytes(StandardCharsets.UTF_8));
        }
        awaitSecretService();
        tool(List.of("secret-tool", "store", "--label=postern it", "service", "postern", "account", "api"), KEYRING_SECRET);
        return Map.of("DBUS_SESSION_BUS_ADDRESS", address);
    }

    /** Until the keyring owns org.freedesktop.secrets on the bus (it registers a moment after it starts). */
    private void awaitSecretService() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            ProcessBuilder b = new ProcessBuilder("dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus",
                    "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.secrets")
                    .redirectErrorStream(true);
            b.environment().putAll(toolEnv);
            Process p = b.start();
            String reply = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(10, TimeUnit.SECONDS);
            if (reply.contains("boolean true")) {
                return;
            }
            if (System.nanoTime() > deadline) {
                fail("gnome-keyring-daemon never owned org.freedesktop.secrets: " + reply + "\n"
                        + Files.readString(dir.resolve("keyring.log")));
            }
            Thread.sleep(100);
        }
    }

    /** A config whose HTTP target {@code loopback} sends credential {@code api-token} as its bearer token. */
    private Path config(String credential) throws IOException {
        return Files.writeString(dir.resolve("postern.json"), """
                { "journal": { "directory": "journal" },
                  "credentials": { "api-token": %s },
                  "http": { "targets": [
                    { "name": "loopback", "baseUrl": "%s", "methods": ["GET"], "pathPrefixes": ["/v1"],
                      "allowPrivateAddresses": true, "timeoutMs": 5000,
                      "auth": { "credential": "api-token", "scheme": "bearer" } } ] } }
                """.formatted(credential, http.baseUri()));
    }

    private JsonNode whoami(Path config, Map<String, String> env) throws Exception {
        String input = INITIALIZE + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
                + "\"arguments\":{\"method\":\"GET\",\"url\":\"" + http.baseUri() + "/v1/whoami\"}}}\n";
        LauncherProcess p = LauncherProcess.run(List.of("mcp-stdio", "--config", config.toString()),
                input.getBytes(StandardCharsets.UTF_8), dir, env);
        List<JsonNode> messages = StdoutTranscript.assertProtocolOnly(p.stdout, String.join(" ", p.command), p.stderr);
        assertEquals(0, p.exitStatus, p.describe());
        JsonNode result = messages.stream().filter(m -> m.path("id").asInt() == 2).findFirst().orElseThrow().get("result");
        assertFalse(p.stderrText().contains(PASS_SECRET) || p.stderrText().contains(KEYRING_SECRET), p.describe());
        return result;
    }

    private String journal() throws IOException {
        try (Stream<Path> files = Files.list(dir.resolve("journal"))) {
            StringBuilder all = new StringBuilder();
            for (Path f : files.filter(f -> f.toString().endsWith(".jsonl")).toList()) {
                all.append(Files.readString(f));
            }
            return all.toString();
        }
    }

    private void assertTheSecretWasSentAndMasked(JsonNode result, String secret) throws IOException {
        assertFalse(result.path("isError").asBoolean(), result.toString());
        assertEquals(List.of("Bearer " + secret), http.requests().stream()
                .map(r -> r.header("Authorization").orElse("none")).toList(), "the command's output is the bearer token");
        assertEquals("you sent Bearer ****", result.get("structuredContent").get("body").textValue(), "an echo of it is masked");
        assertFalse(journal().contains(secret), "the journal never holds it");
    }

    @Test
    void passShowGivesTheBearerTokenAndAnEchoOfItIsMasked() throws Exception {
        Map<String, String> env = passStore();

        JsonNode result = whoami(config("{ \"command\": [\"pass\", \"show\", \"postern/api\"] }"), env);

        assertTheSecretWasSentAndMasked(result, PASS_SECRET);
    }

    @Test
    void secretToolLookupOnAPrivateSessionBusGivesTheBearerToken() throws Exception {
        Map<String, String> env = keyring();

        JsonNode result = whoami(config("{ \"command\": [\"secret-tool\", \"lookup\", \"service\", \"postern\", \"account\", \"api\"],"
                + " \"timeoutMs\": 20000, \"cacheSeconds\": 60 }"), env);

        assertTheSecretWasSentAndMasked(result, KEYRING_SECRET);
    }

    @Test
    void aMissingPassEntryTellsTheAgentOnlyThatTheCommandFailedAndTheJournalNeverItsStderr() throws Exception {
        Map<String, String> env = passStore();

        JsonNode result = whoami(config("{ \"command\": [\"/usr/bin/pass\", \"show\", \"postern/absent-entry\"] }"), env);

        JsonNode error = ToolErrors.error(result);
        assertEquals("CREDENTIAL_UNAVAILABLE", error.get("code").textValue(), result.toString());
        assertEquals(0, http.requestCount(), "nothing was sent without the credential");
        String told = result.toString();
        assertTrue(told.contains("credential api-token: its command failed"), told);
        assertFalse(told.contains("/usr/bin/pass") || told.contains("absent-entry"), "the agent learns no program or argument: " + told);
        String journal = journal();
        assertTrue(journal.contains("command /usr/bin/pass exited with status 1"), journal);
        assertFalse(journal.contains("not in the password store") || journal.contains("absent-entry"),
                "pass's stderr and the argument stay out of the journal: " + journal);
    }

    @Test
    void checkConfigDeepRunsEachCommandAndReportsTheOneThatFails() throws Exception {
        Map<String, String> env = passStore();
        Path config = Files.writeString(dir.resolve("postern.json"), """
                { "journal": { "directory": "journal" },
                  "credentials": {
                    "good": { "command": ["pass", "show", "postern/api"] },
                    "absent": { "command": ["pass", "show", "postern/absent-entry"] },
                    "nowhere": { "command": ["postern-no-such-program"] },
                    "slow": { "command": ["sleep", "30"], "timeoutMs": 500 } } }
                """);

        LauncherProcess p = LauncherProcess.run(List.of("check-config", "--deep", "--config=" + config), new byte[0], dir, env);
        String out = new String(p.stdout, StandardCharsets.UTF_8);

        assertEquals(6, p.exitStatus, p.describe() + "\n" + out);
        assertTrue(out.contains("error [credential-command-failed] /credentials/absent: command pass exited with status 1"), out);
        assertTrue(out.contains("error [credential-command-not-found] /credentials/nowhere/command/0: command"
                + " postern-no-such-program is not found on PATH"), out);
        assertTrue(out.contains("error [credential-command-timeout] /credentials/slow: command sleep did not finish within 500 ms"), out);
        assertFalse(out.contains("/credentials/good"), "the command that works has no finding: " + out);
        assertFalse(out.contains(PASS_SECRET) || out.contains("not in the password store"), out);
    }
}
