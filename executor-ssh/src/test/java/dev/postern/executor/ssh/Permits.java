package dev.postern.executor.ssh;

import dev.postern.policy.AuthorizedSshCommand;
import dev.postern.policy.Decision;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.action.Argument;
import dev.postern.policy.action.SshCommandAction;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SshAuth;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Real permits for tests: a one-host policy on the fake server's port, decided by the real
 * {@link PolicyEngine}. The host allows {@code echo} with one free-text argument and {@code uptime}.
 */
final class Permits {
    static final String HOST = "fake";

    private final int port;
    private String user = "deploy";
    private SshAuth auth = new SshAuth.Key(new CredentialRef("k"), Optional.empty());
    private Optional<Path> knownHosts = Optional.empty();
    private Optional<String> fingerprint = Optional.empty();
    private Duration timeout = Duration.ofSeconds(10);
    private long maxOutputBytes = 1 << 20;

    Permits(int port) {
        this.port = port;
    }

    Permits user(String value) {
        user = value;
        return this;
    }

    Permits auth(SshAuth value) {
        auth = value;
        return this;
    }

    Permits knownHosts(Path value) {
        knownHosts = Optional.of(value);
        return this;
    }

    Permits fingerprint(String value) {
        fingerprint = Optional.of(value);
        return this;
    }

    Permits timeout(Duration value) {
        timeout = value;
        return this;
    }

    Permits maxOutputBytes(long value) {
        maxOutputBytes = value;
        return this;
    }

    AuthorizedSshCommand echo(String text) {
        return decide(new SshCommandAction(HOST, "echo", Map.of("text", new Argument.Text(text))));
    }

    AuthorizedSshCommand uptime() {
        return decide(new SshCommandAction(HOST, "uptime", Map.of()));
    }

    private AuthorizedSshCommand decide(SshCommandAction action) {
        SshHost host = new SshHost(HOST, "127.0.0.1", port, user, auth, knownHosts, fingerprint, timeout,
                maxOutputBytes, List.of(
                        new SshCommandSpec("echo", List.of("echo", "{text}"),
                                Map.of("text", new ParamSpec.StringParam(Optional.empty(), Optional.empty(), 1000))),
                        new SshCommandSpec("uptime", List.of("uptime"), Map.of())));
        Decision decision = new PolicyEngine(Policy.of(List.of(), List.of(host))).decide(action);
        if (decision instanceof Decision.Permit permit && permit.permit() instanceof AuthorizedSshCommand ssh) {
            return ssh;
        }
        throw new AssertionError("the test policy denied " + action + ": " + decision);
    }
}
