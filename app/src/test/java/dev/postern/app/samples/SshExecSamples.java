package dev.postern.app.samples;

import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.SshAuth;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.outcome.SshExitOutcome;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/** The SSH command kind's samples: a host with two commands, output cut by a signal, output of 100,000 bytes. */
public final class SshExecSamples implements KindSamples {

    @Override
    public Allowance exampleAllowance() {
        return new SshHost("web-1", "10.0.0.5", 22, "deploy", new SshAuth.Key(new CredentialRef("deploy-key"), Optional.empty()),
                Optional.of(Path.of("/home/me/.ssh/known_hosts")), Optional.empty(), Duration.ofSeconds(30), 1_048_576,
                List.of(new SshCommandSpec("uptime", List.of("uptime"), Map.of()),
                        new SshCommandSpec("tail-log", List.of("tail", "-n", "{lines}", "/var/log/app.log"),
                                Map.of("lines", new ParamSpec.IntegerParam(1, 500)))));
    }

    @Override
    public Outcome outcome() {
        return new SshExitOutcome("web-1", OptionalInt.empty(), Optional.of("TERM"),
                "up 3 days".getBytes(StandardCharsets.UTF_8), false, new byte[] {(byte) 0xc3}, true, "SHA256:recorded");
    }

    @Override
    public Optional<Outcome> tooLargeForAResult() {
        return Optional.of(new SshExitOutcome("web-1", OptionalInt.of(0), Optional.empty(),
                new byte[100_000], false, "\"quoted\"\n".repeat(10_000).getBytes(StandardCharsets.UTF_8), false, "SHA256:recorded"));
    }
}
