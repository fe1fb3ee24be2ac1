package dev.postern.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.postern.app.Gateway;
import dev.postern.policy.Decision;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.action.UpstreamCallAction;
import dev.postern.policy.json.JsonValue.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A channel an upstream tool's {@code confirm} names is keyed by the very rule id the policy gives the
 * held call, so it, not {@code session.approval}, answers it (the other kinds: ExplainCommandTest, ConfigLoaderTest).
 */
class ApprovalChannelRulesTest {
    private static final String PIN = "sha256:" + "ab".repeat(32);

    @TempDir
    Path dir;

    @Test
    void anUpstreamToolsConfirmChannelAnswersTheRuleThePolicyHoldsItsCallsUnder() throws Exception {
        Path file = dir.resolve("postern.json");
        Files.writeString(file, """
                { "session": { "approval": "client" },
                  "journal": { "directory": "journal" },
                  "mcp": { "servers": [ { "name": "github", "command": ["/bin/true"],
                    "tools": [ { "name": "create_issue", "pin": "%s", "confirm": "local" },
                               { "name": "search", "pin": "%s", "confirm": true } ] } ] } }
                """.formatted(PIN, PIN));
        GatewayConfig config = Gateway.configLoader().load(file);
        PolicyEngine engine = new PolicyEngine(config.policy());
        String local = held(engine, "create_issue");
        String session = held(engine, "search");
        assertEquals("mcp.tool:github.create_issue", local);
        assertEquals(ApprovalChannel.LOCAL, config.approvalChannels().of(local));
        assertEquals(ApprovalChannel.CLIENT, config.approvalChannels().of(session));
    }

    private static String held(PolicyEngine engine, String tool) {
        Decision d = engine.decide(new UpstreamCallAction("github", tool, new JsonObject(Map.of()),
                Optional.of(new UpstreamCallAction.LiveDefinition(PIN, Set.of()))));
        return assertInstanceOf(Decision.ApprovalRequired.class, d).pending().rule();
    }
}
