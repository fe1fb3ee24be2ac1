package dev.postern.executor.ssh;

import dev.postern.fixtures.FakeSshServer;
import dev.postern.fixtures.FakeSshServer.Reply;
import dev.postern.fixtures.contract.ActionExecutorContract;
import dev.postern.fixtures.contract.ExpectedFailure;
import dev.postern.policy.AuthorizedSshCommand;
import dev.postern.policy.action.Argument;
import dev.postern.policy.action.SshCommandAction;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SshAuth;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.port.ActionExecutor;
import dev.postern.policy.port.CredentialStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** {@link SshActionExecutor} honours every clause of docs/executor-contract.md, against MINA's in-process server. */
class SshActionExecutorContractTest extends ActionExecutorContract<AuthorizedSshCommand> {
    private static final String USER = "deploy";
    private static final long CAP = 64 * 1024;
    private static final String WRONG_FINGERPRINT = "SHA256:" + "A".repeat(43);

    @TempDir
    Path dir;
    private final FakeSshServer server = FakeSshServer.start();
    private Optional<Path> knownHosts;

    @BeforeEach
    void trustTheServer() {
        server.allowPassword(USER, secretValue());
        knownHosts = Optional.of(server.writeKnownHosts(dir.resolve("known_hosts")));
        byte[] flood = new byte[(int) (4 * CAP)];
        Arrays.fill(flood, (byte) 'x');
        server.respond(command -> {
            if (Wrapped.operatorLine(command).startsWith("'stall'")) {
                return Reply.exit("", "", 0).after(Duration.ofMinutes(1));
            }
            if (Wrapped.operatorLine(command).startsWith("'flood'")) {
                return Reply.exit(flood, new byte[0], 0);
            }
            if (Wrapped.operatorLine(command).startsWith("'leak'")) {
                return Reply.exit(secretValue(), secretValue(), 0);
            }
            if (Wrapped.operatorLine(command).startsWith("'together'")) {
                rendezvous();
            }
            return Reply.exit(Wrapped.operatorLine(command), "", 0);
        });
    }

    @AfterEach
    void stopTheServer() {
        server.close();
    }

    @Override
    protected ActionExecutor<AuthorizedSshCommand> createExecutor(CredentialStore credentials) {
        return new SshActionExecutor(credentials);
    }

    @Override
    protected AuthorizedSshCommand normalPermit(String marker) {
        return run(host(Duration.ofSeconds(10), CREDENTIAL, knownHosts, Optional.empty()), "echo", marker);
    }

    @Override
    protected AuthorizedSshCommand stallingPermit() {
        return run(host(Duration.ofSeconds(3), CREDENTIAL, knownHosts, Optional.empty()), "stall", null);
    }

    @Override
    protected Duration deadlineOf(AuthorizedSshCommand permit) {
        return permit.host().timeout();
    }

    @Override
    protected AuthorizedSshCommand largeOutputPermit() {
        return run(host(Duration.ofSeconds(10), CREDENTIAL, knownHosts, Optional.empty()), "flood", null);
    }

    @Override
    protected long outputCapOf(AuthorizedSshCommand permit) {
        return permit.host().maxOutputBytes();
    }

    @Override
    protected OversizeOutput oversizeOutput() {
        return OversizeOutput.CUT_AND_FLAGGED;
    }

    @Override
    protected AuthorizedSshCommand secretEchoingPermit() {
        return run(host(Duration.ofSeconds(10), CREDENTIAL, knownHosts, Optional.empty()), "leak", null);
    }

    @Override
    protected List<ExpectedFailure<AuthorizedSshCommand>> failingPermits() {
        return List.of(
                new ExpectedFailure<>(run(host(Duration.ofSeconds(10), "unset", knownHosts, Optional.empty()), "echo", "x"),
                        FailureCode.CREDENTIAL_UNAVAILABLE, "a host whose password is not in the store"),
                new ExpectedFailure<>(run(host(Duration.ofSeconds(10), CREDENTIAL, Optional.empty(),
                                Optional.of(WRONG_FINGERPRINT)), "echo", "x"),
                        FailureCode.HOST_KEY_REJECTED, "a host pinned to another key's fingerprint"));
    }

    @Override
    protected AuthorizedSshCommand concurrentPermit(String marker) {
        return run(host(Duration.ofSeconds(10), CREDENTIAL, knownHosts, Optional.empty()), "together", marker);
    }

    @Override
    protected int effectsObserved() {
        return server.commandCount();
    }

    private SshHost host(Duration timeout, String password, Optional<Path> knownHostsFile, Optional<String> pinned) {
        ParamSpec text = new ParamSpec.StringParam(Optional.empty(), Optional.empty(), 100);
        return new SshHost("fake", "127.0.0.1", server.port(), USER, new SshAuth.Password(new CredentialRef(password)),
                knownHostsFile, pinned, timeout, CAP, List.of(
                        new SshCommandSpec("echo", List.of("echo", "{text}"), Map.of("text", text)),
                        new SshCommandSpec("together", List.of("together", "{text}"), Map.of("text", text)),
                        new SshCommandSpec("stall", List.of("stall"), Map.of()),
                        new SshCommandSpec("flood", List.of("flood"), Map.of()),
                        new SshCommandSpec("leak", List.of("leak"), Map.of())));
    }

    private static AuthorizedSshCommand run(SshHost host, String command, String text) {
        Map<String, Argument> args = text == null ? Map.of() : Map.of("text", new Argument.Text(text));
        return decide(Policy.of(List.of(), List.of(host)), new SshCommandAction(host.name(), command, args),
                AuthorizedSshCommand.class);
    }
}
