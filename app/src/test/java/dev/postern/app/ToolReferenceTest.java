package dev.postern.app;

import dev.postern.policy.json.JsonValue;
import dev.postern.policy.json.Pins;
import dev.postern.policy.model.ArgNarrowing;
import dev.postern.policy.model.LiveTools;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.model.UpstreamTool;
import dev.postern.protocol.json.JsonValues;
import dev.postern.protocol.json.StrictJson;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Origin;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import dev.postern.policy.model.TypedTool;
import dev.postern.policy.model.SshAuth;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import dev.postern.protocol.tools.ToolCatalog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * docs/tools.json is the tool reference the README points to: exactly what {@code tools/list}
 * answers, with every kind registered in {@link Gateway#KINDS}, for the example policy below (give it
 * an allowance of each kind, and one typed tool). This test fails when the two drift; run it with
 * {@code -Dpostern.writeToolReference=true} to rewrite the file after an intended change.
 */
class ToolReferenceTest {
    private static final Path REFERENCE = Path.of("..", "docs", "tools.json");

    static Policy examplePolicy() {
        HttpTarget github = new HttpTarget("github", Origin.parseBaseUrl("https://api.github.com"), Set.of("GET"),
                List.of("/repos/", "/user"), Set.of("Accept"), Optional.empty(), Duration.ofSeconds(10), 1_048_576, false);
        SshHost web = new SshHost("web-1", "10.0.0.5", 22, "deploy", new SshAuth.Key(new CredentialRef("deploy-key"), Optional.empty()),
                Optional.of(Path.of("/home/me/.ssh/known_hosts")), Optional.empty(), Duration.ofSeconds(30), 1_048_576,
                List.of(new SshCommandSpec("uptime", List.of("uptime"), Map.of()),
                        new SshCommandSpec("tail-log", List.of("tail", "-n", "{lines}", "/var/log/app.log"),
                                Map.of("lines", new ParamSpec.IntegerParam(1, 500)))));
        SqlDatabase shop = new SqlDatabase("shop", "db.internal", 5432, "shop", "agent_ro", new CredentialRef("shop-db-password"),
                SqlDatabase.Tls.verifyFull(), false, Duration.ofSeconds(5), 500, 1_048_576,
                List.of(new SqlStatementSpec("order-by-id", "SELECT id, status, total FROM orders WHERE id = :id",
                        Map.of("id", new ParamSpec.IntegerParam(1, Long.MAX_VALUE)), true, false,
                        Optional.of(new TypedTool("shop__order_by_id")))));
        return Policy.of(List.of(github), List.of(web), List.of(shop), List.of(EXAMPLE_UPSTREAM));
    }

    /** An upstream tool's definition as its server lists it, and a server that allowlists it pinned and narrowed. */
    static final JsonValue.JsonObject EXAMPLE_DEFINITION = definition();
    static final UpstreamServer EXAMPLE_UPSTREAM = new UpstreamServer("tickets", List.of("/usr/bin/node", "/opt/mcp/tickets/index.js"),
            "/opt/mcp/tickets", Map.of(), Duration.ofSeconds(20), Duration.ofSeconds(60), 1_048_576,
            List.of(new UpstreamTool("create_ticket", Pins.of(EXAMPLE_DEFINITION), true, Map.of("queue",
                    new ArgNarrowing(Optional.of(List.of(new JsonValue.JsonString("ops"))), Optional.empty(), Optional.empty(),
                            java.util.OptionalInt.empty(), Optional.empty(), Optional.empty())))),
            Optional.empty());

    private static JsonValue.JsonObject definition() {
        try {
            return JsonValues.object(new StrictJson(1 << 16).parse("{\"name\":\"create_ticket\",\"title\":\"Create a ticket\","
                    + "\"description\":\"Opens a ticket in a queue.\",\"inputSchema\":{\"type\":\"object\",\"properties\":"
                    + "{\"queue\":{\"type\":\"string\"},\"title\":{\"type\":\"string\",\"maxLength\":200}},"
                    + "\"required\":[\"queue\",\"title\"]},\"annotations\":{\"destructiveHint\":false}}"));
        } catch (dev.postern.protocol.json.JsonSyntaxError e) {
            throw new AssertionError(e);
        }
    }

    /** What the example upstream lists: its one tool, as reviewed. */
    static LiveTools exampleLive() {
        return LiveTools.none().with(EXAMPLE_UPSTREAM, new LiveTools.Listing.Listed(List.of(EXAMPLE_DEFINITION)));
    }

    /** The example policy's catalog, its upstream tool listed. */
    static ToolCatalog exampleCatalog() {
        return new ToolCatalog(Gateway.kinds(), examplePolicy(), exampleLive());
    }

    @Test
    void theExamplePolicyOffersEveryRegisteredKindsTool() {
        List<String> offered = exampleCatalog().tools().stream().map(t -> t.name()).toList();
        for (var kind : Gateway.kinds().all()) {
            List<String> own = kind.tools(examplePolicy(), exampleLive()).stream().map(t -> t.name()).toList();
            assertTrue(!own.isEmpty() && offered.containsAll(own), () -> "the example policy has no allowance of " + kind.toolName()
                    + ", so docs/tools.json would not document it");
        }
    }

    @Test
    void theDocumentedToolReferenceIsWhatToolsListAnswers() throws Exception {
        String rendered = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                .writeValueAsString(exampleCatalog().describeAll()) + "\n";
        if (Boolean.getBoolean("postern.writeToolReference")) {
            Files.writeString(REFERENCE, rendered, StandardCharsets.UTF_8);
        }
        assertEquals(rendered, Files.readString(REFERENCE, StandardCharsets.UTF_8),
                "docs/tools.json is stale; rerun this test with -Dpostern.writeToolReference=true and review the diff");
    }
}
