package dev.postern.protocol.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Origin;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SshAuth;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the agent learns about approvals: which rules need one (postern_targets) and, in each tool's description, that calls may wait. */
class ApprovalPresentationTest {

    private static HttpTarget target(Set<String> confirm) {
        return new HttpTarget("api", Origin.parseBaseUrl("https://api.example.com"), Set.of("GET", "POST"), List.of("/"),
                Set.of(), Optional.empty(), Duration.ofSeconds(5), 1024, false).withConfirm(confirm);
    }

    private static SshHost host(boolean confirm) {
        return new SshHost("web", "10.0.0.5", 22, "deploy", new SshAuth.Key(new CredentialRef("k"), Optional.empty()),
                Optional.of(Path.of("known_hosts")), Optional.empty(), Duration.ofSeconds(5), 1024,
                List.of(new SshCommandSpec("uptime", List.of("uptime"), Map.of()),
                        new SshCommandSpec("reboot", List.of("reboot"), Map.of(), confirm)));
    }

    private static String description(ToolCatalog catalog, String tool) {
        return catalog.find(tool).orElseThrow().describe().get("description").textValue();
    }

    @Test
    void posternTargetsNamesEveryRuleThatNeedsApproval() {
        JsonNode targets = new ToolCatalog(TestKinds.ALL, Policy.denyAll()).describePolicy(Policy.of(List.of(target(Set.of("POST"))), List.of(host(true))));
        assertEquals("[\"POST\"]", targets.path("http").path(0).path("confirm").toString());
        assertFalse(targets.path("ssh").path(0).path("commands").path(0).path("confirm").booleanValue());
        assertTrue(targets.path("ssh").path(0).path("commands").path(1).path("confirm").booleanValue());
        assertEquals("[]", new ToolCatalog(TestKinds.ALL, Policy.denyAll()).describePolicy(Policy.of(List.of(target(Set.of())), List.of()))
                .path("http").path(0).path("confirm").toString());
    }

    @Test
    void aToolSaysCallsMayWaitForAHumanOnlyWhenOneOfItsRulesNeedsIt() {
        ToolCatalog asking = new ToolCatalog(TestKinds.ALL, Policy.of(List.of(target(Set.of("POST"))), List.of(host(true))));
        ToolCatalog quiet = new ToolCatalog(TestKinds.ALL, Policy.of(List.of(target(Set.of())), List.of(host(false))));
        assertTrue(description(asking, "http_request").contains("wait for a human"));
        assertTrue(description(asking, "ssh_exec").contains("wait for a human"));
        assertFalse(description(quiet, "http_request").contains("human"));
        assertFalse(description(quiet, "ssh_exec").contains("human"));
        ToolCatalog mixed = new ToolCatalog(TestKinds.ALL, Policy.of(List.of(target(Set.of())), List.of(host(true))));
        assertFalse(description(mixed, "http_request").contains("human"), "only the tool whose rule needs it");
        assertTrue(description(mixed, "ssh_exec").contains("wait for a human"));
    }
}
