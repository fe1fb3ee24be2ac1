package dev.postern.app.cli;

import dev.postern.app.ExitStatus;
import dev.postern.app.Gateway;
import dev.postern.app.config.GatewayConfig;
import dev.postern.protocol.tools.EffectKind;
import dev.postern.protocol.tools.EffectKinds;
import java.util.List;

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
        b.append("session: maxFrameBytes ").append(config.maxFrameBytes()).append(", maxInFlight ").append(config.maxInFlight()).append('\n');
        List<EffectKind<?, ?, ?>> kinds = Gateway.kinds().all();
        if (kinds.stream().noneMatch(k -> k.offeredBy(config.policy()))) {
            b.append("it allows nothing: ")
                    .append(EffectKinds.inWords(kinds.stream().map(k -> "no " + k.allowancesNoun()).toList())).append('\n');
        }
        for (EffectKind<?, ?, ?> kind : kinds) {
            b.append(kind.describeForOperator(config.policy()));
        }
        return b.toString().stripTrailing();
    }
}
