package dev.postern.app;

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
 * an allowance of each kind). This test fails when the two drift; run it with
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
                        Map.of("id", new ParamSpec.IntegerParam(1, Long.MAX_VALUE)))));
        return Policy.of(List.of(github), List.of(web), List.of(shop));
    }

    @Test
    void theExamplePolicyOffersEveryRegisteredKindsTool() {
        List<String> offered = new ToolCatalog(Gateway.kinds(), examplePolicy()).tools().stream().map(t -> t.name()).toList();
        for (var kind : Gateway.kinds().all()) {
            assertTrue(offered.contains(kind.toolName()), () -> "the example policy has no allowance of " + kind.toolName()
                    + ", so docs/tools.json would not document it");
        }
    }

    @Test
    void theDocumentedToolReferenceIsWhatToolsListAnswers() throws Exception {
        String rendered = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                .writeValueAsString(new ToolCatalog(Gateway.kinds(), examplePolicy()).describeAll()) + "\n";
        if (Boolean.getBoolean("postern.writeToolReference")) {
            Files.writeString(REFERENCE, rendered, StandardCharsets.UTF_8);
        }
        assertEquals(rendered, Files.readString(REFERENCE, StandardCharsets.UTF_8),
                "docs/tools.json is stale; rerun this test with -Dpostern.writeToolReference=true and review the diff");
    }
}
