package dev.postern.app.cli;

import dev.postern.app.ExitStatus;
import dev.postern.app.config.GatewayConfig;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/** {@code postern check-config --config FILE}: validates a config and prints what it allows. */
final class CheckConfigCommand implements Command {
    @Override
    public String name() {
        return "check-config";
    }

    @Override
    public String summary() {
        return "check-config --config FILE   validate a config and print what it allows";
    }

    @Override
    public String help() {
        return String.join("\n",
                "usage: postern check-config --config FILE",
                "",
                "Validates FILE against the configuration schema and the policy rules, and prints",
                "what it allows, target by target. Exit status 0 when valid, 4 when not.");
    }

    @Override
    public ExitStatus run(List<String> args, Io io) {
        return ConfigArgument.withConfig(args, this, io, config -> {
            io.report().println(describe(config));
            return ExitStatus.OK;
        });
    }

    static String describe(GatewayConfig config) {
        StringBuilder b = new StringBuilder();
        b.append("configuration ").append(config.file()).append(" is valid\n");
        b.append("journal: ").append(config.journalDirectory()).append('\n');
        b.append("session: maxFrameBytes ").append(config.maxFrameBytes()).append(", maxInFlight ").append(config.maxInFlight())
                .append(", approvalTimeoutSeconds ").append(config.approvalTimeout().toSeconds()).append('\n');
        if (config.policy().httpTargets().isEmpty() && config.policy().sshHosts().isEmpty()) {
            b.append("it allows nothing: no HTTP targets and no SSH hosts\n");
        }
        for (HttpTarget t : config.policy().httpTargets()) {
            b.append("http target ").append(t.name()).append(": ").append(new TreeSet<>(t.methods()))
                    .append(' ').append(t.origin().toUrl()).append(" under ").append(t.pathPrefixes());
            if (!t.headers().isEmpty()) {
                b.append(", headers ").append(new TreeSet<>(t.headers()));
            }
            t.auth().ifPresent(a -> b.append(", auth ").append(a.scheme().name().toLowerCase(Locale.ROOT))
                    .append(" with credential ").append(a.credential()));
            t.trustStore().ifPresent(s -> {
                b.append(", trusting only the ").append(s.type()).append(" trust store ").append(s.file());
                s.password().ifPresent(p -> b.append(" (opened with credential ").append(p).append(')'));
            });
            if (t.onOversizeResponse() == HttpTarget.OversizeResponse.REFUSE) {
                b.append(", responses over ").append(t.maxResponseBytes()).append(" bytes refused");
            }
            if (!t.confirm().isEmpty()) {
                b.append(", ").append(new TreeSet<>(t.confirm())).append(" only with a human's approval");
            }
            b.append(t.allowPrivateAddresses() ? ", private addresses allowed" : "").append('\n');
        }
        for (SshHost h : config.policy().sshHosts()) {
            b.append("ssh host ").append(h.name()).append(": ").append(h.user()).append('@').append(h.address())
                    .append(':').append(h.port()).append('\n');
            for (SshCommandSpec c : h.commands()) {
                b.append("  command ").append(c.name()).append(": ").append(c.argv())
                        .append(c.confirm() ? ", only with a human's approval" : "").append('\n');
            }
        }
        return b.toString().stripTrailing();
    }
}
