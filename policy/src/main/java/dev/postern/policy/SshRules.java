package dev.postern.policy;

import dev.postern.policy.Decision.Deny;
import dev.postern.policy.Decision.Permit;
import dev.postern.policy.action.SshArgument;
import dev.postern.policy.action.SshCommandAction;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
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
        Optional<SshHost> host = policy.sshHost(request.host());
        if (host.isEmpty()) {
            return new Deny("ssh.host", "no host named \"" + HttpRules.printable(request.host()) + "\" is configured");
        }
        Optional<SshCommandSpec> spec = host.get().command(request.command());
        if (spec.isEmpty()) {
            return new Deny("ssh.command", "host " + request.host() + " has no command named \"" + HttpRules.printable(request.command()) + '"');
        }
        Map<String, ParamSpec> params = spec.get().params();
        TreeSet<String> unknown = new TreeSet<>(request.args().keySet());
        unknown.removeAll(params.keySet());
        if (!unknown.isEmpty()) {
            return new Deny("ssh.args.unknown", "command " + request.command() + " takes no argument "
                    + HttpRules.printable(unknown.toString()));
        }
        TreeSet<String> missing = new TreeSet<>(params.keySet());
        missing.removeAll(request.args().keySet());
        if (!missing.isEmpty()) {
            return new Deny("ssh.args.missing", "command " + request.command() + " needs argument " + missing);
        }
        for (var e : new java.util.TreeMap<>(params).entrySet()) {
            Deny bad = check(e.getKey(), e.getValue(), request.args().get(e.getKey()));
            if (bad != null) {
                return bad;
            }
        }
        List<String> argv = new ArrayList<>();
        for (String element : spec.get().argv()) {
            Matcher m = SshCommandSpec.PLACEHOLDER.matcher(element);
            argv.add(m.replaceAll(r -> Matcher.quoteReplacement(request.args().get(r.group(1)).render())));
        }
        return new Permit(new AuthorizedSshCommand(request, host.get(), argv,
                "ssh.command:" + host.get().name() + "." + spec.get().name()));
    }

    private static Deny check(String name, ParamSpec spec, SshArgument value) {
        if (spec instanceof ParamSpec.IntegerParam p) {
            if (!(value instanceof SshArgument.Whole w)) {
                return new Deny("ssh.args.type", "argument " + name + " must be an integer");
            }
            if (w.value() < p.minimum() || w.value() > p.maximum()) {
                return new Deny("ssh.args.range", "argument " + name + " must be in " + p.minimum() + ".." + p.maximum());
            }
            return null;
        }
        ParamSpec.StringParam p = (ParamSpec.StringParam) spec;
        if (!(value instanceof SshArgument.Text t)) {
            return new Deny("ssh.args.type", "argument " + name + " must be a string");
        }
        String s = t.value();
        if (s.codePointCount(0, s.length()) > p.maxLength()) {
            return new Deny("ssh.args.length", "argument " + name + " is longer than " + p.maxLength());
        }
        if (s.indexOf('\0') >= 0) {
            return new Deny("ssh.args.nul", "argument " + name + " must not contain NUL");
        }
        if (p.allowed().isPresent() && !p.allowed().get().contains(s)) {
            return new Deny("ssh.args.enum", "argument " + name + " must be one of " + p.allowed().get());
        }
        if (p.pattern().isPresent() && !p.pattern().get().matcher(s).matches()) {
            return new Deny("ssh.args.pattern", "argument " + name + " must match " + p.pattern().get().pattern());
        }
        return null;
    }
}
