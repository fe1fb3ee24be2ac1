package dev.postern.policy;

import dev.postern.policy.model.Printable;
import dev.postern.policy.Decision.Deny;
import dev.postern.policy.Decision.Permit;
import dev.postern.policy.action.Argument;
import dev.postern.policy.action.SshCommandAction;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;

/**
 * The SSH rules of DESIGN §4: a configured host, one of its configured commands, and exactly the
 * command's params, each valid against its spec. The argv is the operator's template with each
 * placeholder replaced; quoting happens once, in {@link AuthorizedSshCommand}.
 */
final class SshRules implements Rules<SshCommandAction> {
    private final Policy policy;

    SshRules(Policy policy) {
        this.policy = policy;
    }

    @Override
    public Class<SshCommandAction> actionType() {
        return SshCommandAction.class;
    }

    @Override
    public Decision decide(SshCommandAction request) {
        Optional<SshHost> host = policy.allowance(SshHost.class, request.host());
        if (host.isEmpty()) {
            return new Deny("ssh.host", "no host named \"" + Printable.shown(request.host()) + "\" is configured");
        }
        Optional<SshCommandSpec> spec = host.get().command(request.command());
        if (spec.isEmpty()) {
            return new Deny("ssh.command", "host " + request.host() + " has no command named \"" + Printable.shown(request.command()) + '"');
        }
        Map<String, ParamSpec> params = spec.get().params();
        ParamChecks checks = new ParamChecks("ssh", "command " + request.command());
        Optional<Deny> badNames = checks.names(params.keySet(), request.args().keySet());
        if (badNames.isPresent()) {
            return badNames.get();
        }
        for (var e : ParamChecks.inOrder(params).entrySet()) {
            Optional<Deny> bad = check(checks, e.getKey(), e.getValue(), request.args().get(e.getKey()));
            if (bad.isPresent()) {
                return bad.get();
            }
        }
        List<String> argv = new ArrayList<>();
        for (String element : spec.get().argv()) {
            Matcher m = SshCommandSpec.PLACEHOLDER.matcher(element);
            argv.add(m.replaceAll(r -> Matcher.quoteReplacement(request.args().get(r.group(1)).render())));
        }
        String rule = "ssh.command:" + host.get().name() + "." + spec.get().name();
        SshHost on = host.get();
        if (spec.get().confirm()) {
            ShownAction shown = new ShownAction(SshCommandAction.TOOL, List.of(
                    new ShownAction.Field("host", on.name()),
                    new ShownAction.Field("command", spec.get().name()),
                    new ShownAction.Field("command line", ShellQuoting.commandLine(argv))));
            return new Decision.ApprovalRequired(new PendingApproval(request, rule,
                    "command " + spec.get().name() + " on " + on.name() + " needs a human's approval",
                    shown, () -> new AuthorizedSshCommand(request, on, argv, rule)));
        }
        return new Permit(new AuthorizedSshCommand(request, on, argv, rule));
    }

    private static Optional<Deny> check(ParamChecks checks, String name, ParamSpec spec, Argument value) {
        if (spec instanceof ParamSpec.IntegerParam p) {
            return value instanceof Argument.Whole w ? checks.whole(name, p, w.value())
                    : Optional.of(checks.type(name, "an integer"));
        }
        ParamSpec.StringParam p = (ParamSpec.StringParam) spec;
        return value instanceof Argument.Text t ? checks.text(name, p, t.value()) : Optional.of(checks.type(name, "a string"));
    }
}
