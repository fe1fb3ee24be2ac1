package dev.postern.app.cli;

import dev.postern.app.ExitStatus;
import dev.postern.app.Gateway;
import dev.postern.app.check.DeepReport;
import dev.postern.app.check.Finding;
import dev.postern.app.check.Lint;
import dev.postern.app.config.GatewayConfig;
import dev.postern.protocol.tools.EffectKind;
import dev.postern.protocol.tools.EffectKinds;
import java.util.List;
import java.util.Set;

/**
 * {@code postern check-config [--deep [--connect]] --config FILE}: validates a config and prints what
 * it allows; with {@code --deep}, also what would fail at call time ({@link DeepReport}).
 */
final class CheckConfigCommand implements Command {
    @Override
    public String name() {
        return "check-config";
    }

    @Override
    public String summary() {
        return "check-config [--deep [--connect]] [--lint] --config FILE\n"
                + "                               validate a config and print what it allows";
    }

    @Override
    public String help() {
        return String.join("\n",
                "usage: postern check-config [--deep [--connect]] [--lint] --config FILE",
                "",
                "Validates FILE against the configuration schema and the policy rules, and prints",
                "what it allows, target by target. FILE may also be given as --config=FILE or in the",
                "environment variable POSTERN_CONFIG.",
                "",
                "--deep    also checks what would fail at call time, each finding with a severity and",
                "          a stable id: credentials resolvable and private, known_hosts files present,",
                "          the journal directory writable, non-public addresses without",
                "          allowPrivateAddresses, SSH parameters that could start with '-', SQL CA files.",
                "--connect (with --deep) also does a TLS handshake with each https target, connects to",
                "          each http target, reads each SSH host's key and compares it with the pin, and",
                "          logs in to each SQL database as its user and has the server parse and describe",
                "          each statement, and connects to the telemetry endpoint (a warning if it cannot).",
                "          Sends no HTTP request, runs no command and no statement.",
                "--lint    also warns about what is allowed but probably not meant, each warning with a",
                "          stable id: path prefixes that overlap or that no call reaches (an earlier",
                "          target of the same origin decides them first), commands and statements no",
                "          call reaches (no enum value passes) or that repeat an earlier one, string",
                "          params without a pattern or enum, allowances without a rateLimit, and confirm",
                "          rules that only a client with form elicitation can answer. Warnings do not",
                "          change the exit status.",
                "",
                "Exit status 0 when valid (and no error-level finding), 4 when the config is invalid,",
                "6 when --deep found an error, 1 on a usage error.");
    }

    @Override
    public ExitStatus run(List<String> args, Io io) {
        Options o;
        String file;
        try {
            o = Options.parse(args, Set.of("--config"), Set.of("--deep", "--connect", "--lint"));
            if (!o.positional().isEmpty()) {
                throw new Options.UsageException("unexpected argument " + o.positional().get(0));
            }
            if (o.has("--connect") && !o.has("--deep")) {
                throw new Options.UsageException("--connect goes with --deep");
            }
            file = ConfigArgument.file(o);
        } catch (Options.UsageException e) {
            io.stderr().println("postern " + name() + ": " + e.getMessage() + "\n\n" + help());
            return ExitStatus.USAGE;
        }
        return ConfigArgument.load(file, io).map(config -> {
            io.report().println(describe(config));
            if (o.has("--lint")) {
                List<Finding> lint = Lint.of(config);
                io.report().println("lint: " + (lint.isEmpty() ? "no findings" : lint.size() + (lint.size() == 1 ? " warning" : " warnings")));
                lint.forEach(f -> io.report().println(f.line()));
            }
            if (o.has("--deep") && DeepReport.print(config, Gateway.kindChecks(), o.has("--connect"), io.report())) {
                return ExitStatus.CHECK_FAILED;
            }
            return ExitStatus.OK;
        }).orElse(ExitStatus.CONFIG_ERROR);
    }

    /** The telemetry section in one line: where, what, and from which credentials its headers come (names only). */
    static String telemetry(dev.postern.app.config.TelemetrySettings t) {
        StringBuilder b = new StringBuilder("telemetry: OTLP/HTTP to ").append(t.endpoint()).append(", signals ")
                .append(java.util.Arrays.stream(dev.postern.app.config.TelemetrySettings.Signal.values()).filter(t::exports)
                        .map(dev.postern.app.config.TelemetrySettings.Signal::wireName).toList())
                .append(", service.name ").append(t.serviceName());
        t.headers().forEach((name, ref) -> b.append(", header ").append(name).append(" from credential ").append(ref));
        if (!t.resourceAttributes().isEmpty()) {
            b.append(", resource attributes ").append(new java.util.TreeMap<>(t.resourceAttributes()));
        }
        b.append(", timeoutMs ").append(t.timeout().toMillis()).append(", maxQueue ").append(t.maxQueue());
        if (t.exports(dev.postern.app.config.TelemetrySettings.Signal.LOGS)) {
            b.append("; logs carry the journal's rows as written");
        }
        return b.toString();
    }

    static String describe(GatewayConfig config) {
        StringBuilder b = new StringBuilder();
        b.append("configuration ").append(config.file()).append(" is valid\n");
        b.append("journal: ").append(config.journalDirectory()).append(", files rotated at ").append(config.journalRotateBytes())
                .append(" bytes");
        config.journalSigningKey().ifPresent(k -> b.append(", checkpoints signed with credential ").append(k));
        b.append(config.journalRedactArguments() ? ", arguments kept only as SHA-256 digests" : "").append('\n');
        b.append("session: maxFrameBytes ").append(config.maxFrameBytes()).append(", maxInFlight ").append(config.maxInFlight())
                .append(", approvalTimeoutSeconds ").append(config.approvalTimeout().toSeconds()).append('\n');
        b.append("approval: ").append(ExplainCommand.answeredBy(config.approvalChannels().session()));
        new java.util.TreeMap<>(config.approvalChannels().byRule()).forEach((rule, channel) ->
                b.append("; rule ").append(rule).append(": ").append(channel.word()));
        b.append('\n');
        b.append(config.telemetry().map(CheckConfigCommand::telemetry).orElse("telemetry: off")).append('\n');
        List<EffectKind<?, ?, ?>> kinds = Gateway.kinds().all();
        if (kinds.stream().allMatch(k -> config.policy().allowances(k.allowanceType()).isEmpty())) {
            b.append("it allows nothing: ")
                    .append(EffectKinds.inWords(kinds.stream().map(k -> "no " + k.allowancesNoun()).toList())).append('\n');
        }
        for (EffectKind<?, ?, ?> kind : kinds) {
            b.append(kind.describeForOperator(config.policy()));
        }
        return b.toString().stripTrailing();
    }
}
