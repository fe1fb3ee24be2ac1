package dev.postern.app.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.app.Gateway;
import dev.postern.app.config.GatewayConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code check-config --lint}: each finding raised by the config that means it, at its pointer, and
 * none by a config that says what it means (a pattern or an enum on every string, a rate limit on
 * every allowance, prefixes that neither overlap nor hide, no confirm rule).
 */
class LintTest {
    private static final String RATE = "\"rateLimit\": { \"calls\": 10, \"perSeconds\": 60 }";

    @TempDir
    Path dir;

    private List<String> lint(String sections) throws Exception {
        Path file = dir.resolve("postern.json");
        Files.writeString(file, """
                {
                  "journal": { "directory": "./journal" },
                  "credentials": { "deploy-key": { "file": "./no-such-key" }, "db": { "env": "POSTERN_LINT_TEST_UNSET" } },
                  %s
                }
                """.formatted(sections));
        GatewayConfig config = Gateway.configLoader().load(file);
        return Lint.of(config).stream().map(f -> {
            assertEquals(Finding.Severity.WARNING, f.severity(), f.line());
            return f.id() + " " + f.where();
        }).toList();
    }

    private static String ssh(String host, String commands) {
        return """
                "ssh": { "hosts": [ { "name": "web", "address": "127.0.0.1", "user": "deploy", "identity": "deploy-key",
                  "hostKeyFingerprint": "SHA256:%s", %s "commands": [ %s ] } ] }
                """.formatted("A".repeat(43), host, commands);
    }

    private static String sql(String database, String statements) {
        return """
                "sql": { "databases": [ { "name": "shop", "host": "127.0.0.1", "database": "shop", "user": "agent", "password": "db",
                  "tls": { "mode": "disable" }, "allowPrivateAddresses": true, %s "statements": [ %s ] } ] }
                """.formatted(database, statements);
    }

    @Test
    void aConfigThatSaysWhatItMeansHasNoFindings() throws Exception {
        List<String> found = lint("""
                "http": { "targets": [
                  { "name": "api", "baseUrl": "https://api.example", "methods": ["GET"], "pathPrefixes": ["/v1", "/v1x", "/v2"], %s },
                  { "name": "admin", "baseUrl": "https://api.example", "methods": ["GET", "POST"], "pathPrefixes": ["/v1/admin"], %s } ] },
                %s, %s
                """.formatted(RATE, RATE,
                ssh(RATE + ",", """
                        { "name": "tail", "argv": ["tail", "-n", "{lines}", "{file}"],
                          "params": { "lines": { "type": "integer", "minimum": 1, "maximum": 500 },
                                      "file": { "type": "string", "enum": ["/var/log/app.log"] } } },
                        { "name": "head", "argv": ["head", "{file}"], "params": { "file": { "type": "string", "pattern": "^/var/log/[a-z]+$" } } }
                        """),
                sql(RATE + ",", """
                        { "name": "by-id", "sql": "SELECT * FROM orders WHERE id = :id", "params": { "id": { "type": "integer" } } },
                        { "name": "by-status", "sql": "SELECT * FROM orders WHERE status = :s",
                          "params": { "s": { "type": "string", "enum": ["open", "paid"] } } }
                        """)));
        assertEquals(List.of(), found);
    }

    @Test
    void overlappingAndHiddenPrefixesAreFoundAtTheirPointers() throws Exception {
        List<String> found = lint("""
                "http": { "targets": [
                  { "name": "api", "baseUrl": "https://api.example", "methods": ["GET", "POST"], "pathPrefixes": ["/v1", "/v1/items", "/v2", "/v2"], %s },
                  { "name": "reports", "baseUrl": "https://api.example", "methods": ["GET"], "pathPrefixes": ["/v1/reports", "/v3"], %s },
                  { "name": "elsewhere", "baseUrl": "https://other.example", "methods": ["GET"], "pathPrefixes": ["/v1/reports"], %s } ] }
                """.formatted(RATE, RATE, RATE));
        assertEquals(List.of("prefix-overlap /http/targets/0/pathPrefixes/1", "prefix-overlap /http/targets/0/pathPrefixes/3",
                "prefix-unreachable /http/targets/1/pathPrefixes/0"), found);
    }

    @Test
    void aPrefixAnEarlierTargetDecidesOnlyForSomeMethodsIsStillReachable() throws Exception {
        List<String> found = lint("""
                "http": { "targets": [
                  { "name": "api", "baseUrl": "https://api.example", "methods": ["GET"], "pathPrefixes": ["/v1"], %s },
                  { "name": "writer", "baseUrl": "https://api.example", "methods": ["GET", "POST"], "pathPrefixes": ["/v1/items"], %s } ] }
                """.formatted(RATE, RATE));
        assertEquals(List.of(), found);
    }

    @Test
    void commandsNoCallReachesOrThatRepeatAnotherAndStringsWithoutAPatternAreFound() throws Exception {
        List<String> found = lint(ssh(RATE + ",", """
                { "name": "tail", "argv": ["tail", "{file}"], "params": { "file": { "type": "string" } } },
                { "name": "tail-again", "argv": ["tail", "{file}"], "params": { "file": { "type": "string" } } },
                { "name": "level", "argv": ["log", "{level}"],
                  "params": { "level": { "type": "string", "enum": ["debug", "verbose"], "pattern": "^(info|warn)$" } } }
                """));
        assertEquals(List.of("param-without-pattern /ssh/hosts/0/commands/0/params/file",
                "param-without-pattern /ssh/hosts/0/commands/1/params/file", "command-duplicate /ssh/hosts/0/commands/1",
                "command-unreachable /ssh/hosts/0/commands/2/params/level"), found);
    }

    @Test
    void typedToolsThatWriteWithoutConfirmAreFoundAndReadOnlyOrConfirmedOnesAreNot() throws Exception {
        List<String> found = lint("""
                "http": { "targets": [
                  { "name": "api", "baseUrl": "https://api.example", "methods": ["GET", "POST", "DELETE"], "confirm": ["DELETE"],
                    "pathPrefixes": ["/v1"], "tool": "api__call", %s },
                  { "name": "docs", "baseUrl": "https://docs.example", "methods": ["GET", "HEAD"], "pathPrefixes": ["/"],
                    "tool": "docs__read", %s },
                  { "name": "hooks", "baseUrl": "https://hooks.example", "methods": ["POST"], "pathPrefixes": ["/"], %s } ] },
                %s
                """.formatted(RATE, RATE, RATE, sql(RATE + ",", """
                { "name": "cancel", "readOnly": false, "tool": "shop__cancel", "sql": "UPDATE orders SET status = 'x' WHERE id = :id",
                  "params": { "id": { "type": "integer" } } },
                { "name": "refund", "readOnly": false, "confirm": true, "tool": "shop__refund",
                  "sql": "UPDATE orders SET status = 'r' WHERE id = :id", "params": { "id": { "type": "integer" } } },
                { "name": "by-id", "tool": "shop__by_id", "sql": "SELECT * FROM orders WHERE id = :id", "params": { "id": { "type": "integer" } } }
                """)));
        // Under the default approval channel (any) the confirmed rules are answerable without the client: no confirm-client-only.
        assertEquals(List.of("typed-tool-writes-unconfirmed /http/targets/0/tool",
                "typed-tool-writes-unconfirmed /sql/databases/0/statements/0/tool"), found);
    }

    @Test
    void statementsNoCallReachesOrThatRepeatAnotherAreFound() throws Exception {
        List<String> found = lint(sql(RATE + ",", """
                { "name": "by-id", "sql": "SELECT * FROM orders WHERE id = :id", "params": { "id": { "type": "integer" } } },
                { "name": "by-id-2", "sql": "SELECT * FROM orders WHERE id = :id", "params": { "id": { "type": "integer" } } },
                { "name": "by-code", "sql": "SELECT * FROM orders WHERE code = :c",
                  "params": { "c": { "type": "string", "enum": ["toolong"], "maxLength": 3 } } },
                { "name": "by-note", "sql": "SELECT * FROM orders WHERE note = :n", "params": { "n": { "type": "string" } } }
                """));
        assertEquals(List.of("statement-duplicate /sql/databases/0/statements/1",
                "statement-unreachable /sql/databases/0/statements/2/params/c",
                "param-without-pattern /sql/databases/0/statements/3/params/n"), found);
    }

    @Test
    void everyAllowanceWithoutARateLimitAndEveryConfirmRuleOnlyTheClientCanAnswerIsFound() throws Exception {
        List<String> found = lint("""
                "session": { "approval": "client" },
                "http": { "targets": [
                  { "name": "api", "baseUrl": "https://api.example", "methods": ["GET", "DELETE"], "pathPrefixes": ["/v1"],
                    "confirm": ["DELETE"] } ] },
                %s, %s
                """.formatted(ssh("", """
                        { "name": "restart", "argv": ["systemctl", "restart", "app"], "confirm": true }
                        """),
                sql("", """
                        { "name": "cancel", "readOnly": false, "sql": "UPDATE orders SET status = 'x' WHERE id = :id",
                          "params": { "id": { "type": "integer" } }, "confirm": "local" }
                        """)));
        assertEquals(List.of("no-rate-limit /http/targets/0", "confirm-client-only /http/targets/0/confirm",
                "confirm-client-only /ssh/hosts/0/commands/0/confirm", "no-rate-limit /ssh/hosts/0",
                "no-rate-limit /sql/databases/0"), found, "the statement answered locally needs no client");
    }

    @Test
    void underTheDefaultChannelNoConfirmRuleNeedsTheClientButOneThatNamesTheClientDoes() throws Exception {
        List<String> found = lint("""
                "http": { "targets": [
                  { "name": "api", "baseUrl": "https://api.example", "methods": ["GET", "DELETE"], "pathPrefixes": ["/v1"],
                    "confirm": { "methods": ["DELETE"], "channel": "client" } } ] },
                %s
                """.formatted(ssh("", """
                        { "name": "restart", "argv": ["systemctl", "restart", "app"], "confirm": true }
                        """)));
        assertEquals(List.of("no-rate-limit /http/targets/0", "confirm-client-only /http/targets/0/confirm",
                "no-rate-limit /ssh/hosts/0"), found);
    }

    @Test
    void aSegmentBoundaryIsNotAnOverlap() {
        assertTrue(Lint.covers("/v1", "/v1/items"));
        assertTrue(Lint.covers("/v1/", "/v1/items"));
        assertEquals(false, Lint.covers("/v1", "/v1x"));
        assertEquals(false, Lint.covers("/v1/", "/v1"));
    }
}
