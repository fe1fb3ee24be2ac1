package dev.postern.journal;

import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.Decision;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.action.QueryParameter;
import dev.postern.policy.action.Argument;
import dev.postern.policy.action.SshCommandAction;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Origin;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SshAuth;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Real permits from a real engine over a small permissive policy, for journal tests. */
final class Permits {
    static final PolicyEngine ENGINE = new PolicyEngine(Policy.of(
            List.of(new HttpTarget("api", Origin.parseBaseUrl("http://127.0.0.1:9"), Set.of("GET", "POST"), List.of("/v1"),
                    Set.of(), Optional.empty(), Duration.ofSeconds(5), 1024, true)),
            List.of(new SshHost("web", "127.0.0.1", 22, "deploy", new SshAuth.Key(new CredentialRef("key"), Optional.empty()),
                    Optional.empty(), Optional.of("SHA256:" + "A".repeat(43)), Duration.ofSeconds(5), 1024,
                    List.of(new SshCommandSpec("grep", List.of("grep", "{word}", "/var/log/app.log"),
                            Map.of("word", new ParamSpec.StringParam(Optional.empty(), Optional.empty(), 64))))))));

    private Permits() {
    }

    static AuthorizedAction http(String path, String query, String body) {
        return permit(new HttpRequestAction("POST", "http://127.0.0.1:9" + path,
                List.of(new QueryParameter("q", query)), List.of(), Optional.of(body)));
    }

    static AuthorizedAction ssh(String word) {
        return permit(new SshCommandAction("web", "grep", Map.of("word", new Argument.Text(word))));
    }

    private static AuthorizedAction permit(dev.postern.policy.action.Action action) {
        Decision d = ENGINE.decide(action);
        if (d instanceof Decision.Permit p) {
            return p.permit();
        }
        throw new AssertionError("the test policy should permit " + action + " but said " + d);
    }
}
