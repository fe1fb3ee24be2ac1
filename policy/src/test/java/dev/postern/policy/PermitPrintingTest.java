package dev.postern.policy;

import static dev.postern.policy.TestPolicies.get;
import static dev.postern.policy.TestPolicies.host;
import static dev.postern.policy.TestPolicies.httpEngine;
import static dev.postern.policy.TestPolicies.permittedHttp;
import static dev.postern.policy.TestPolicies.permittedSsh;
import static dev.postern.policy.TestPolicies.ssh;
import static dev.postern.policy.TestPolicies.sshEngine;
import static dev.postern.policy.TestPolicies.target;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SshCommandSpec;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A permit prints what it allows and by which rule (for stderr lines); the engine hands back its policy. */
class PermitPrintingTest {

    @Test
    void anHttpPermitPrintsMethodUriTargetAndRule() {
        PolicyEngine engine = httpEngine(target("api", "https://api.example", Set.of("GET"), List.of("/v1"), Set.of()));
        AuthorizedHttpRequest r = permittedHttp(engine.decide(get("https://api.example/v1/items")));
        assertEquals("AuthorizedHttpRequest[GET " + r.uri() + " via api, rule=" + r.rule() + "]", r.toString());
    }

    @Test
    void anSshPermitPrintsCommandHostAndRule() {
        PolicyEngine engine = sshEngine(host("web", new SshCommandSpec("uptime", List.of("uptime"), Map.of())));
        AuthorizedSshCommand c = permittedSsh(engine.decide(ssh("web", "uptime", Map.of())));
        assertEquals("AuthorizedSshCommand[uptime on web, rule=" + c.rule() + "]", c.toString());
    }

    @Test
    void theEngineHandsBackThePolicyItWasBuiltOn() {
        Policy policy = Policy.of(List.of(), List.of());
        assertSame(policy, new PolicyEngine(policy).policy());
    }
}
