package dev.postern.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.postern.policy.action.UpstreamCallAction;
import dev.postern.policy.json.JsonValue;
import dev.postern.policy.json.JsonValue.JsonObject;
import dev.postern.policy.json.JsonValue.JsonString;
import dev.postern.policy.model.ArgNarrowing;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.model.UpstreamTool;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The upstream rules: allowlist, pin, narrowing of declared arguments only, approval. */
class UpstreamRulesTest {
    static final String PIN = "sha256:" + "ab".repeat(32);
    static final JsonObject ARGS = new JsonObject(Map.of("owner", new JsonString("acme"), "title", new JsonString("Fix it")));

    static UpstreamTool tool(boolean confirm, Map<String, ArgNarrowing> args) {
        return new UpstreamTool("create_issue", PIN, confirm, args);
    }

    static UpstreamServer server(UpstreamTool... tools) {
        return new UpstreamServer("github", List.of("/usr/bin/node", "server.js"), "/tmp", Map.of(), Duration.ofSeconds(5),
                Duration.ofSeconds(5), 1 << 20, List.of(tools), Optional.empty());
    }

    static UpstreamCallAction call(JsonObject args) {
        return new UpstreamCallAction("github", "create_issue", args,
                Optional.of(new UpstreamCallAction.LiveDefinition(PIN, Set.of("owner", "title", "body"))));
    }

    private static ArgNarrowing only(List<JsonValue> values) {
        return new ArgNarrowing(Optional.of(values), Optional.empty(), Optional.empty(), OptionalInt.empty(), Optional.empty(),
                Optional.empty());
    }

    private static Decision decide(UpstreamServer server, UpstreamCallAction call) {
        return new PolicyEngine(Policy.of(server)).decide(call);
    }

    private static String denied(Decision d) {
        return assertInstanceOf(Decision.Deny.class, d).rule();
    }

    @Test
    void anAllowlistedToolWithItsPinnedDefinitionIsPermittedWithTheArgumentsAsGiven() {
        AuthorizedUpstreamCall permit = (AuthorizedUpstreamCall) assertInstanceOf(Decision.Permit.class,
                decide(server(tool(false, Map.of())), call(ARGS))).permit();
        assertEquals("mcp.tool:github.create_issue", permit.rule());
        assertSame(ARGS, permit.arguments());
    }

    @Test
    void everythingElseIsDeniedByItsOwnRule() {
        UpstreamServer github = server(tool(false, Map.of()));
        assertEquals("mcp.server", denied(decide(github, new UpstreamCallAction("gitlab", "create_issue", ARGS, Optional.empty()))));
        assertEquals("mcp.tool", denied(decide(github, new UpstreamCallAction("github", "delete_repo", ARGS, Optional.empty()))));
        assertEquals("mcp.unlisted", denied(decide(github, new UpstreamCallAction("github", "create_issue", ARGS, Optional.empty()))));
        assertEquals("mcp.pin", denied(decide(github, new UpstreamCallAction("github", "create_issue", ARGS,
                Optional.of(new UpstreamCallAction.LiveDefinition("sha256:" + "cd".repeat(32), Set.of("owner")))))));
    }

    @Test
    void aNarrowedArgumentMustBeWithinItsNarrowing() {
        UpstreamServer github = server(tool(false, Map.of("owner", only(List.of(new JsonString("acme"))),
                "title", new ArgNarrowing(Optional.empty(), Optional.empty(), Optional.of(ArgNarrowing.compile("[A-Z].*")),
                        OptionalInt.of(10), Optional.empty(), Optional.empty()))));
        assertInstanceOf(Decision.Permit.class, decide(github, call(ARGS)));
        assertEquals("mcp.args", denied(decide(github, call(ARGS.with("owner", new JsonString("evil"))))));
        assertEquals("mcp.args", denied(decide(github, call(ARGS.with("title", new JsonString("lower case"))))));
        assertEquals("mcp.args", denied(decide(github, call(ARGS.with("title", new JsonString("Far too long a title"))))));
        assertEquals("mcp.args", denied(decide(github, call(ARGS.with("title", JsonValue.JsonNumber.of(3))))));
    }

    @Test
    void numbersAreComparedExactly() {
        UpstreamServer github = server(tool(false, Map.of("title", new ArgNarrowing(Optional.empty(), Optional.empty(),
                Optional.empty(), OptionalInt.empty(), Optional.of(BigDecimal.ONE), Optional.of(new BigDecimal("2.5"))))));
        assertInstanceOf(Decision.Permit.class, decide(github, call(ARGS.with("title", new JsonValue.JsonNumber(new BigDecimal("2.50"))))));
        assertEquals("mcp.args", denied(decide(github, call(ARGS.with("title", new JsonValue.JsonNumber(new BigDecimal("2.5000001")))))));
    }

    @Test
    void aNarrowingOfAnArgumentTheToolDoesNotDeclareIsADenialNotASilentPass() {
        UpstreamServer github = server(tool(false, Map.of("labels", only(List.of(new JsonString("bug"))))));
        assertEquals("mcp.args", denied(decide(github, call(ARGS))));
    }

    @Test
    void aConfirmToolWaitsForAHumanWhoSeesServerToolAndCanonicalArguments() {
        PendingApproval pending = assertInstanceOf(Decision.ApprovalRequired.class, decide(server(tool(true, Map.of())), call(ARGS)))
                .pending();
        assertEquals(List.of(new ShownAction.Field("server", "github"), new ShownAction.Field("tool", "create_issue"),
                new ShownAction.Field("arguments", "{\"owner\":\"acme\",\"title\":\"Fix it\"}")), pending.shown().fields());
    }
}
