package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.app.config.GatewayConfig;
import dev.postern.policy.model.HttpTarget;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a running gateway does with each new version of its config file: take it, ignore it, or refuse it and say why. */
class ConfigReloadTest {
    @TempDir
    Path dir;

    private static String config(String prefix, String journal, String extra) {
        return """
                { "journal": { "directory": "%s" }%s,
                  "http": { "targets": [ { "name": "api", "baseUrl": "https://api.example.com", "methods": ["GET"],
                    "pathPrefixes": ["%s"] } ] } }
                """.formatted(journal, extra, prefix);
    }

    private GatewayConfig loaded(Path file, String text) throws Exception {
        Files.writeString(file, text, StandardCharsets.UTF_8);
        return Gateway.configLoader().load(file);
    }

    @Test
    void aValidNarrowerVersionIsTakenWithItsOwnSha256() throws Exception {
        Path file = dir.resolve("postern.json");
        GatewayConfig now = loaded(file, config("/v1", "journal", ""));
        Files.writeString(file, config("/v1/public", "journal", ""), StandardCharsets.UTF_8);

        ConfigReload.Verdict verdict = ConfigReload.decide(now, now.fileSha256(), Gateway.configLoader());

        ConfigReload.Verdict.Reload reload = assertInstanceOf(ConfigReload.Verdict.Reload.class, verdict);
        assertEquals(List.of("/v1/public"), reload.next().policy().allowances(HttpTarget.class).get(0).pathPrefixes());
        assertTrue(!reload.next().fileSha256().equals(now.fileSha256()));
    }

    @Test
    void theVersionInForceAndTheVersionLastRefusedChangeNothing() throws Exception {
        Path file = dir.resolve("postern.json");
        GatewayConfig now = loaded(file, config("/v1", "journal", ""));
        assertInstanceOf(ConfigReload.Verdict.Unchanged.class, ConfigReload.decide(now, now.fileSha256(), Gateway.configLoader()));

        Files.writeString(file, "{ \"journal\": ", StandardCharsets.UTF_8);
        ConfigReload.Verdict refused = ConfigReload.decide(now, now.fileSha256(), Gateway.configLoader());
        assertInstanceOf(ConfigReload.Verdict.Refuse.class, refused);
        assertInstanceOf(ConfigReload.Verdict.Unchanged.class, ConfigReload.decide(now, refused.sha256(), Gateway.configLoader()),
                "the same broken bytes are refused once, not at every event");
    }

    @Test
    void anInvalidVersionIsRefusedNamingTheFileThePointerAndTheProblemOnOneLine() throws Exception {
        Path file = dir.resolve("postern.json");
        GatewayConfig now = loaded(file, config("/v1", "journal", ""));
        Files.writeString(file, config("v1-without-slash", "journal", ""), StandardCharsets.UTF_8);

        ConfigReload.Verdict.Refuse refuse = assertInstanceOf(ConfigReload.Verdict.Refuse.class,
                ConfigReload.decide(now, now.fileSha256(), Gateway.configLoader()));

        assertEquals(ConfigReload.INVALID, refuse.reason());
        String warning = refuse.warning(now.file());
        assertTrue(warning.contains(now.file().toString()), warning);
        assertTrue(warning.contains("/http/targets/0/pathPrefixes/0"), warning);
        assertTrue(!warning.contains("\n"), warning);
        assertTrue(warning.endsWith("the policy in force stays"), warning);
    }

    @Test
    void aVersionThatMovesTheJournalOrChangesCredentialsNeedsARestart() throws Exception {
        Path file = dir.resolve("postern.json");
        GatewayConfig now = loaded(file, config("/v1", "journal", ""));
        Files.writeString(file, config("/v1", "elsewhere", ",\n \"credentials\": { \"token\": { \"env\": \"API_TOKEN\" } }"),
                StandardCharsets.UTF_8);

        ConfigReload.Verdict.Refuse refuse = assertInstanceOf(ConfigReload.Verdict.Refuse.class,
                ConfigReload.decide(now, now.fileSha256(), Gateway.configLoader()));

        assertEquals(ConfigReload.NEEDS_RESTART, refuse.reason());
        assertEquals("at /journal, at /credentials: changes only when the gateway restarts", refuse.problem());
    }

    @Test
    void whatMayChangeLiveIsEveryStaticKindsSectionAndNothingElse() throws Exception {
        Path file = dir.resolve("postern.json");
        GatewayConfig now = loaded(file, config("/v1", "journal", ""));
        GatewayConfig sessionChanged = loaded(dir.resolve("other.json"),
                config("/v2", "journal", ",\n \"session\": { \"maxInFlight\": 3, \"approvalTimeoutSeconds\": 60 }"));

        assertEquals(List.of("/session/maxInFlight", "/session/approvalTimeoutSeconds"), ConfigReload.needsRestart(now, sessionChanged));
        assertEquals(List.of(), ConfigReload.needsRestart(now, loaded(dir.resolve("third.json"), config("/v2", "journal", ""))));
    }

    @Test
    void aChangedApprovalChannelNeedsARestartAndIsNamed() throws Exception {
        Path file = dir.resolve("postern.json");
        GatewayConfig now = loaded(file, config("/v1", "journal", ""));
        GatewayConfig sessionChannel = loaded(dir.resolve("session.json"),
                config("/v1", "journal", ",\n \"session\": { \"approval\": \"local\" }"));
        GatewayConfig ruleChannel = loaded(dir.resolve("rule.json"), """
                { "journal": { "directory": "journal" },
                  "http": { "targets": [ { "name": "api", "baseUrl": "https://api.example.com", "methods": ["GET", "POST"],
                    "confirm": { "methods": ["POST"], "channel": "local" }, "pathPrefixes": ["/v1"] } ] } }
                """);

        assertEquals(List.of("/session/approval"), ConfigReload.needsRestart(now, sessionChannel));
        assertEquals(List.of("the confirm channel of http.target:api"), ConfigReload.needsRestart(now, ruleChannel));
    }

    @Test
    void anUnreadableFileIsRefusedOnceAndTheReturnOfTheVersionInForceChangesNothing() throws Exception {
        Path file = dir.resolve("postern.json");
        GatewayConfig now = loaded(file, config("/v1", "journal", ""));
        Path kept = dir.resolve("kept.json");
        Files.move(file, kept);

        ConfigReload.Verdict gone = ConfigReload.decide(now, now.fileSha256(), Gateway.configLoader());
        assertInstanceOf(ConfigReload.Verdict.Refuse.class, gone);
        assertInstanceOf(ConfigReload.Verdict.Unchanged.class, ConfigReload.decide(now, gone.sha256(), Gateway.configLoader()));

        Files.move(kept, file);
        assertInstanceOf(ConfigReload.Verdict.Unchanged.class, ConfigReload.decide(now, gone.sha256(), Gateway.configLoader()));
    }
}
