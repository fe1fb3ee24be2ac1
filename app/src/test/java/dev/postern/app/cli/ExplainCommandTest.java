package dev.postern.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.app.ExitStatus;
import dev.postern.fixtures.FakeHttpService;
import dev.postern.fixtures.FakeSshServer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code postern explain} against a config whose target and host are live fakes on loopback, so
 * every test can prove that explaining sent nothing and ran nothing.
 */
class ExplainCommandTest {
    private static FakeHttpService http;
    private static FakeSshServer sshd;

    @TempDir
    Path dir;

    private Path config;

    @BeforeAll
    static void startFakes() {
        http = FakeHttpService.start();
        sshd = FakeSshServer.start();
    }

    @AfterAll
    static void stopFakes() {
        http.close();
        sshd.close();
    }

    @BeforeEach
    void writeConfig() throws Exception {
        config = dir.resolve("postern.json");
        Files.writeString(config, """
                {
                  "journal": { "directory": "./journal" },
                  "credentials": {
                    "api-token": { "env": "POSTERN_EXPLAIN_TEST_UNSET_VARIABLE" },
                    "deploy-key": { "file": "./no-such-key" }
                  },
                  "http": { "targets": [
                    { "name": "api", "baseUrl": "http://127.0.0.1:%d", "methods": ["GET", "POST"],
                      "pathPrefixes": ["/v1"], "headers": ["Accept"], "allowPrivateAddresses": true,
                      "auth": { "credential": "api-token", "scheme": "bearer" } } ] },
                  "ssh": { "hosts": [
                    { "name": "web", "address": "127.0.0.1", "port": %d, "user": "deploy", "identity": "deploy-key",
                      "hostKeyFingerprint": "%s",
                      "commands": [ { "name": "tail", "argv": ["tail", "-n", "{lines}", "{file}"],
                        "params": { "lines": { "type": "integer", "minimum": 1, "maximum": 500 },
                                    "file": { "type": "string", "pattern": "^/var/log/[^/]+$" } } } ] } ] }
                }
                """.formatted(http.port(), sshd.port(), sshd.hostKeyFingerprint()));
    }

    private CliRun explain(String tool, String arguments) {
        return CliRun.of("explain", "--config", config.toString(), "--tool", tool, "--arguments", arguments);
    }

    private void assertNothingRan(CliRun run) {
        assertEquals(0, http.requestCount(), "explain sent an HTTP request: " + run);
        assertEquals(0, sshd.commandCount(), "explain ran an SSH command: " + run);
        assertEquals(0, sshd.authCount(), "explain logged in over SSH: " + run);
        assertFalse(Files.exists(dir.resolve("journal")), "explain opened the journal: " + run);
    }

    @Test
    void aPermittedHttpCallShowsTheRuleAndTheExactRequestWithoutSendingIt() {
        CliRun run = explain("http_request", "{\"method\":\"POST\",\"url\":\"http://127.0.0.1:" + http.port() + "/v1/items\","
                + "\"query\":{\"q\":\"a b\"},\"headers\":{\"Accept\":\"application/json\"},\"body\":\"hello\"}");

        assertEquals(ExitStatus.OK, run.exit, run.toString());
        assertTrue(run.out().startsWith("PERMIT by rule http.target:api\n"), run.out());
        assertTrue(run.out().contains("would send: POST http://127.0.0.1:" + http.port() + "/v1/items?q=a%20b"), run.out());
        assertTrue(run.out().contains("header: Accept: application/json"), run.out());
        assertTrue(run.out().contains("body: 5 bytes"), run.out());
        assertTrue(run.out().contains("auth: bearer with credential api-token, added by the executor"), run.out());
        assertNothingRan(run);
    }

    /** A URL's user info is a credential: explain refuses it by rule and never repeats it, on stdout or stderr. */
    @Test
    void aUrlWithUserInfoIsDeniedWithoutRepeatingIt() {
        CliRun run = explain("http_request", "{\"method\":\"GET\",\"url\":\"http://agent:marker-secret@127.0.0.1:"
                + http.port() + "/v1/items\"}");

        assertEquals(ExitStatus.CHECK_FAILED, run.exit, run.toString());
        assertEquals("DENY by rule http.url.userinfo: url must not carry user info\n", run.out(), run.toString());
        assertFalse(run.toString().contains("marker-secret"), run.toString());
        assertNothingRan(run);
    }

    @Test
    void aCallUnderAConfirmRuleSaysAHumanMustApproveItAndShowsWhatTheyWouldSee() throws Exception {
        Files.writeString(config, Files.readString(config).replace("\"methods\": [\"GET\", \"POST\"],",
                "\"methods\": [\"GET\", \"POST\"], \"confirm\": [\"POST\"],"));
        CliRun run = explain("http_request", "{\"method\":\"POST\",\"url\":\"http://127.0.0.1:" + http.port() + "/v1/items\","
                + "\"body\":\"hello\"}");

        assertEquals(ExitStatus.OK, run.exit, run.toString());
        assertTrue(run.out().startsWith("APPROVAL REQUIRED by rule http.target:api: target api needs a human's approval for POST\n"),
                run.out());
        assertTrue(run.out().contains("  url: http://127.0.0.1:" + http.port() + "/v1/items"), run.out());
        assertTrue(run.out().contains("  body: hello"), run.out());
        assertTrue(run.out().contains("  digest: sha256:"), run.out());
        assertTrue(run.out().contains("no one was asked"), run.out());
        assertTrue(run.out().contains("  answered by: any (the first answer from the client's elicitation, the loopback approval page"
                + " or postern approvals)\n"), run.out());
        Files.writeString(config, Files.readString(config).replace("\"confirm\": [\"POST\"],",
                "\"confirm\": {\"methods\": [\"POST\"], \"channel\": \"client\"},"));
        CliRun client = explain("http_request", "{\"method\":\"POST\",\"url\":\"http://127.0.0.1:" + http.port() + "/v1/items\","
                + "\"body\":\"hello\"}");
        assertTrue(client.out().contains("  answered by: client (the MCP client's own elicitation"), client.out());
        CliRun get = explain("http_request", "{\"method\":\"GET\",\"url\":\"http://127.0.0.1:" + http.port() + "/v1/items\"}");
        assertTrue(get.out().startsWith("PERMIT by rule http.target:api\n"), get.out());
        assertNothingRan(run);
    }

    @Test
    void anSshCommandWhoseConfirmNamesAChannelIsAnsweredByThatChannelNotTheSessions() throws Exception {
        Files.writeString(config, Files.readString(config)
                .replace("\"journal\":", "\"session\": { \"approval\": \"client\" },\n  \"journal\":")
                .replace("{ \"name\": \"tail\", \"argv\"", "{ \"name\": \"tail\", \"confirm\": \"local\", \"argv\""));
        CliRun run = explain("ssh_exec", "{\"host\":\"web\",\"command\":\"tail\",\"args\":{\"lines\":5,\"file\":\"/var/log/app.log\"}}");
        assertTrue(run.out().startsWith("APPROVAL REQUIRED by rule ssh.command:web.tail"), run.toString());
        assertTrue(run.out().contains("  answered by: local (the loopback approval page or postern approvals"), run.out());
        assertNothingRan(run);
    }

    @Test
    void aSqlStatementWhoseConfirmNamesAChannelIsAnsweredByThatChannel() throws Exception {
        Files.writeString(config, """
                { "session": { "approval": "local" },
                  "journal": { "directory": "./journal" },
                  "credentials": { "shop-db": { "env": "POSTERN_EXPLAIN_TEST_UNSET_VARIABLE" } },
                  "sql": { "databases": [
                    { "name": "shop", "host": "127.0.0.1", "database": "shop", "user": "agent", "password": "shop-db",
                      "tls": { "mode": "disable" }, "allowPrivateAddresses": true,
                      "statements": [ { "name": "cancel", "readOnly": false, "confirm": "client",
                        "sql": "UPDATE orders SET status = 'x' WHERE id = :id", "params": { "id": { "type": "integer" } } } ] } ] } }
                """);
        CliRun run = explain("sql_query", "{\"database\":\"shop\",\"statement\":\"cancel\",\"args\":{\"id\":7}}");
        assertTrue(run.out().startsWith("APPROVAL REQUIRED by rule sql.statement:shop.cancel"), run.toString());
        assertTrue(run.out().contains("  answered by: client (the MCP client's own elicitation"), run.out());
    }

    @Test
    void aPermittedSshCallShowsTheQuotedCommandLineWithoutConnecting() {
        CliRun run = explain("ssh_exec", "{\"host\":\"web\",\"command\":\"tail\",\"args\":{\"lines\":5,\"file\":\"/var/log/it's.log\"}}");

        assertEquals(ExitStatus.OK, run.exit, run.toString());
        assertTrue(run.out().startsWith("PERMIT by rule ssh."), run.out());
        assertTrue(run.out().contains("would run on web (deploy@127.0.0.1:" + sshd.port() + "): 'tail' '-n' '5' '/var/log/it'\\''s.log'"),
                run.out());
        assertNothingRan(run);
    }

    @Test
    void aDeniedHttpCallShowsTheRuleAndReason() {
        CliRun run = explain("http_request", "{\"method\":\"GET\",\"url\":\"http://127.0.0.1:" + http.port() + "/admin\"}");
        assertEquals(ExitStatus.CHECK_FAILED, run.exit, run.toString());
        assertTrue(run.out().startsWith("DENY by rule http.path: "), run.out());
        assertNothingRan(run);
    }

    @Test
    void aDeniedSshArgumentShowsTheRule() {
        CliRun run = explain("ssh_exec", "{\"host\":\"web\",\"command\":\"tail\",\"args\":{\"lines\":501,\"file\":\"/var/log/a\"}}");
        assertEquals(ExitStatus.CHECK_FAILED, run.exit, run.toString());
        assertTrue(run.out().startsWith("DENY by rule ssh.args"), run.out());
        assertTrue(run.out().contains("lines"), run.out());
        assertNothingRan(run);
    }

    @Test
    void argumentsThatFailTheSchemaNameThePointer() {
        CliRun run = explain("http_request", "{\"method\":\"GET\",\"url\":\"http://127.0.0.1/v1\",\"followRedirects\":true}");
        assertEquals(ExitStatus.CHECK_FAILED, run.exit, run.toString());
        assertTrue(run.out().startsWith("INVALID at /followRedirects: "), run.out());
        CliRun wrongType = explain("ssh_exec", "{\"host\":\"web\",\"command\":7}");
        assertTrue(wrongType.out().startsWith("INVALID at /command: "), wrongType.out());
        assertNothingRan(run);
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"1e309", "-1e309", "1e999", "1E999999999"})
    void aNonFiniteOrHugeNumberIsAnInvalidPointerNotACrash(String number) {
        CliRun host = explain("ssh_exec", "{\"host\":" + number + ",\"command\":\"tail\"}");
        assertEquals(ExitStatus.CHECK_FAILED, host.exit, host.toString());
        assertTrue(host.out().startsWith("INVALID at /host: "), host.out());
        CliRun lines = explain("ssh_exec", "{\"host\":\"web\",\"command\":\"tail\",\"args\":{\"lines\":" + number + ",\"file\":\"/var/log/a\"}}");
        assertEquals(ExitStatus.CHECK_FAILED, lines.exit, lines.toString());
        assertTrue(lines.out().startsWith("INVALID at /args/lines: "), lines.out());
        assertNothingRan(host);
    }

    @Test
    void argumentsThatAreNotStrictJsonAreInvalid() {
        CliRun run = explain("http_request", "{\"method\":\"GET\",\"method\":\"DELETE\",\"url\":\"http://127.0.0.1/v1\"}");
        assertEquals(ExitStatus.CHECK_FAILED, run.exit, run.toString());
        assertTrue(run.out().startsWith("INVALID: the arguments are not one strict JSON value"), run.out());
    }

    @Test
    void anUnknownToolIsInvalidAndTheOfferedToolsAreListed() {
        CliRun run = explain("shell", "{}");
        assertEquals(ExitStatus.CHECK_FAILED, run.exit, run.toString());
        assertEquals("INVALID: unknown tool \"shell\"; this config offers http_request, ssh_exec, postern_targets\n", run.out());
    }

    @Test
    void theReadOnlyToolIsAnsweredWithoutAPolicyDecision() {
        CliRun run = CliRun.of("explain", "--config", config.toString(), "--tool", "postern_targets");
        assertEquals(ExitStatus.OK, run.exit, run.toString());
        assertTrue(run.out().startsWith("ANSWER: postern_targets is read-only"), run.out());
    }

    @Test
    void aConfigThatDoesNotLoadExitsFour() throws Exception {
        Files.writeString(config, "{}");
        CliRun run = explain("http_request", "{}");
        assertEquals(ExitStatus.CONFIG_ERROR, run.exit, run.toString());
        assertEquals("", run.out());
        assertTrue(run.err().contains(config.toString()), run.err());
    }

    @Test
    void usageErrorsExitOne() {
        assertEquals(ExitStatus.USAGE, CliRun.of("explain", "--config", config.toString()).exit);
        assertEquals(ExitStatus.USAGE, CliRun.of("explain", "--tool", "ssh_exec").exit);
        CliRun stray = CliRun.of("explain", "--config", config.toString(), "--tool", "ssh_exec", "extra");
        assertEquals(ExitStatus.USAGE, stray.exit);
        assertTrue(stray.err().contains("unexpected argument extra"), stray.err());
    }

    @Test
    void helpIsPrintedOnStdout() {
        CliRun run = CliRun.of("explain", "--help");
        assertEquals(ExitStatus.OK, run.exit);
        assertTrue(run.out().startsWith("usage: postern explain --config FILE --tool NAME"), run.out());
        assertTrue(run.out().contains("Nothing is executed"), run.out());
    }
}
