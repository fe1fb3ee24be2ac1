package dev.postern.policy;

import dev.postern.policy.action.HeaderField;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.action.QueryParameter;
import dev.postern.policy.action.Argument;
import dev.postern.policy.action.SshCommandAction;
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

/** Builders for the small policies and actions the kernel tests decide; no I/O, stateless. */
final class TestPolicies {
    private TestPolicies() {
    }

    static HttpTarget target(String name, String baseUrl, Set<String> methods, List<String> prefixes, Set<String> headers) {
        return new HttpTarget(name, Origin.parseBaseUrl(baseUrl), methods, prefixes, headers,
                Optional.empty(), Duration.ofSeconds(10), 1_048_576, false);
    }

    static PolicyEngine httpEngine(HttpTarget... targets) {
        return new PolicyEngine(Policy.of(List.of(targets), List.of()));
    }

    static HttpRequestAction get(String url) {
        return request("GET", url, List.of(), List.of());
    }

    static HttpRequestAction request(String method, String url, List<QueryParameter> query, List<HeaderField> headers) {
        return new HttpRequestAction(method, url, query, headers, Optional.empty());
    }

    static SshHost host(String name, SshCommandSpec... commands) {
        return new SshHost(name, "127.0.0.1", 2222, "deploy",
                new SshAuth.Key(new CredentialRef("deploy-key"), Optional.empty()),
                Optional.of(Path.of("known_hosts")), Optional.empty(), Duration.ofSeconds(30), 1_048_576,
                List.of(commands));
    }

    static PolicyEngine sshEngine(SshHost... hosts) {
        return new PolicyEngine(Policy.of(List.of(), List.of(hosts)));
    }

    static SshCommandAction ssh(String host, String command, Map<String, Argument> args) {
        return new SshCommandAction(host, command, args);
    }

    static AuthorizedHttpRequest permittedHttp(Decision decision) {
        if (decision instanceof Decision.Permit p && p.permit() instanceof AuthorizedHttpRequest r) {
            return r;
        }
        throw new AssertionError("expected an HTTP permit, got " + decision);
    }

    static AuthorizedSshCommand permittedSsh(Decision decision) {
        if (decision instanceof Decision.Permit p && p.permit() instanceof AuthorizedSshCommand c) {
            return c;
        }
        throw new AssertionError("expected an SSH permit, got " + decision);
    }

    static Decision.Deny denied(Decision decision) {
        if (decision instanceof Decision.Deny d) {
            return d;
        }
        throw new AssertionError("expected a denial, got " + decision);
    }
}
