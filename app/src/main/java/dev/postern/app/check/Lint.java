package dev.postern.app.check;

import dev.postern.app.config.ApprovalChannel;
import dev.postern.app.config.ApprovalChannels;
import dev.postern.app.config.GatewayConfig;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.model.UpstreamTool;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code check-config --lint}: warnings about what a valid config allows but probably does not mean,
 * each a {@link Finding} with a stable id (README, "check-config findings"): path prefixes that
 * overlap or that no call can reach, commands and statements no call can reach or that repeat an
 * earlier one, string params with neither a pattern nor an enum, allowances without a rate limit,
 * {@code confirm} rules only a client can answer, and typed tools that write without {@code confirm}.
 * Reads the config only; stateless.
 */
public final class Lint {
    /**
     * The one approval channel that leaves a client without elicitation no way to answer: {@code client}
     * (form or URL elicitation, handshake-era {@code elicitation/create} or the stateless era's
     * {@code input_required}). A rule answered {@code local} or {@code any} also reaches the loopback
     * page and {@code postern approvals}, which need nothing of the client.
     */
    static final List<String> APPROVAL_CHANNELS = List.of("the client's own elicitation (\"client\")");

    private Lint() {
    }

    /** Every lint finding of {@code config}, HTTP first, then SSH, SQL and upstream servers, each in config order. */
    public static List<Finding> of(GatewayConfig config) {
        List<Finding> out = new ArrayList<>();
        ApprovalChannels channels = config.approvalChannels();
        http(config.policy().allowances(HttpTarget.class), channels, out);
        ssh(config.policy().allowances(SshHost.class), channels, out);
        sql(config.policy().allowances(SqlDatabase.class), channels, out);
        upstream(config.policy().allowances(UpstreamServer.class), channels, out);
        return out;
    }

    private static void http(List<HttpTarget> targets, ApprovalChannels channels, List<Finding> out) {
        for (int i = 0; i < targets.size(); i++) {
            HttpTarget t = targets.get(i);
            String where = "/http/targets/" + i;
            List<String> prefixes = t.pathPrefixes();
            for (int k = 0; k < prefixes.size(); k++) {
                String q = prefixes.get(k);
                for (int j = 0; j < prefixes.size(); j++) {
                    if (j != k && covers(prefixes.get(j), q) && (j < k || !covers(q, prefixes.get(j)))) {
                        out.add(Finding.warning("prefix-overlap", where + "/pathPrefixes/" + k, "target " + t.name() + ": "
                                + q + " is already allowed by " + prefixes.get(j) + "; one of them is not needed"));
                        break;
                    }
                }
                Set<String> taken = new TreeSet<>();
                List<String> by = new ArrayList<>();
                for (int s = 0; s < i; s++) {
                    HttpTarget earlier = targets.get(s);
                    if (earlier.origin().equals(t.origin()) && earlier.headers().containsAll(t.headers())
                            && earlier.pathPrefixes().stream().anyMatch(p -> covers(p, q))) {
                        Set<String> shared = new TreeSet<>(t.methods());
                        shared.retainAll(earlier.methods());
                        if (!shared.isEmpty()) {
                            taken.addAll(shared);
                            by.add(earlier.name());
                        }
                    }
                }
                if (taken.equals(new TreeSet<>(t.methods()))) {
                    out.add(Finding.warning("prefix-unreachable", where + "/pathPrefixes/" + k, "target " + t.name() + ": no call"
                            + " reaches " + q + ": every method it allows there (" + taken + ") is decided first by the earlier"
                            + " target " + String.join(" and ", by) + " of the same origin"));
                }
            }
            if (t.rateLimit().isEmpty()) {
                out.add(noRateLimit(t, where));
            }
            if (t.tool().isPresent()) {
                Set<String> unconfirmed = new TreeSet<>(t.methods());
                unconfirmed.removeAll(SAFE_METHODS);
                unconfirmed.removeAll(t.confirm());
                if (!unconfirmed.isEmpty()) {
                    out.add(typedWritesUnconfirmed(where + "/tool", t.tool().get().name(), "target " + t.name() + " allows "
                            + unconfirmed + " without confirm"));
                }
            }
            if (!t.confirm().isEmpty() && channels.of("http.target:" + t.name()) == ApprovalChannel.CLIENT) {
                out.add(confirmOnlyByClient(where + "/confirm", "target " + t.name() + ": " + new TreeSet<>(t.confirm())));
            }
        }
    }

    /** Whether every path under {@code inner} is also under {@code outer} (the policy's segment-boundary rule). */
    static boolean covers(String outer, String inner) {
        if (inner.equals(outer)) {
            return true;
        }
        return outer.endsWith("/") ? inner.startsWith(outer) : inner.startsWith(outer + '/');
    }

    private static void ssh(List<SshHost> hosts, ApprovalChannels channels, List<Finding> out) {
        for (int i = 0; i < hosts.size(); i++) {
            SshHost h = hosts.get(i);
            String where = "/ssh/hosts/" + i;
            List<SshCommandSpec> commands = h.commands();
            for (int j = 0; j < commands.size(); j++) {
                SshCommandSpec c = commands.get(j);
                String at = where + "/commands/" + j;
                String what = "host " + h.name() + ", command " + c.name();
                params(c.params(), at, what, "command-unreachable", out);
                for (int e = 0; e < j; e++) {
                    if (commands.get(e).argv().equals(c.argv()) && commands.get(e).params().equals(c.params())) {
                        out.add(Finding.warning("command-duplicate", at, what + ": runs exactly what command "
                                + commands.get(e).name() + " runs, with the same params"));
                        break;
                    }
                }
                if (c.confirm() && channels.of("ssh.command:" + h.name() + "." + c.name()) == ApprovalChannel.CLIENT) {
                    out.add(confirmOnlyByClient(at + "/confirm", what));
                }
            }
            if (h.rateLimit().isEmpty()) {
                out.add(noRateLimit(h, where));
            }
        }
    }

    private static void sql(List<SqlDatabase> databases, ApprovalChannels channels, List<Finding> out) {
        for (int i = 0; i < databases.size(); i++) {
            SqlDatabase d = databases.get(i);
            String where = "/sql/databases/" + i;
            List<SqlStatementSpec> statements = d.statements();
            for (int j = 0; j < statements.size(); j++) {
                SqlStatementSpec s = statements.get(j);
                String at = where + "/statements/" + j;
                String what = "database " + d.name() + ", statement " + s.name();
                params(s.params(), at, what, "statement-unreachable", out);
                for (int e = 0; e < j; e++) {
                    SqlStatementSpec earlier = statements.get(e);
                    if (earlier.sql().strip().equals(s.sql().strip()) && earlier.params().equals(s.params())
                            && earlier.readOnly() == s.readOnly()) {
                        out.add(Finding.warning("statement-duplicate", at, what + ": runs exactly the SQL of statement "
                                + earlier.name() + ", with the same params"));
                        break;
                    }
                }
                if (s.confirm() && channels.of("sql.statement:" + d.name() + "." + s.name()) == ApprovalChannel.CLIENT) {
                    out.add(confirmOnlyByClient(at + "/confirm", what));
                }
                if (s.tool().isPresent() && !s.readOnly() && !s.confirm()) {
                    out.add(typedWritesUnconfirmed(at + "/tool", s.tool().get().name(), what + " writes (readOnly false) without confirm"));
                }
            }
            if (d.rateLimit().isEmpty()) {
                out.add(noRateLimit(d, where));
            }
        }
    }

    private static void upstream(List<UpstreamServer> servers, ApprovalChannels channels, List<Finding> out) {
        for (int i = 0; i < servers.size(); i++) {
            UpstreamServer s = servers.get(i);
            String where = "/mcp/servers/" + i;
            List<UpstreamTool> tools = s.tools();
            for (int j = 0; j < tools.size(); j++) {
                if (tools.get(j).confirm() && channels.of("mcp.tool:" + s.name() + "." + tools.get(j).name()) == ApprovalChannel.CLIENT) {
                    out.add(confirmOnlyByClient(where + "/tools/" + j + "/confirm", "server " + s.name() + ", tool " + tools.get(j).name()));
                }
            }
            if (s.rateLimit().isEmpty()) {
                out.add(noRateLimit(s, where));
            }
        }
    }

    /** A string param with neither pattern nor enum; a param no value can pass makes its command or statement unreachable. */
    private static void params(Map<String, ParamSpec> params, String at, String what, String unreachableId, List<Finding> out) {
        for (Map.Entry<String, ParamSpec> p : new java.util.TreeMap<>(params).entrySet()) {
            if (!(p.getValue() instanceof ParamSpec.StringParam string)) {
                continue;
            }
            String pointer = at + "/params/" + p.getKey();
            if (string.pattern().isEmpty() && string.allowed().isEmpty()) {
                out.add(Finding.warning("param-without-pattern", pointer, what + ": {" + p.getKey() + "} takes any string of up to "
                        + string.maxLength() + " characters; give it a pattern or an enum"));
            }
            if (string.allowed().isPresent()) {
                Set<String> passing = new HashSet<>();
                for (String v : string.allowed().get()) {
                    if (v.length() <= string.maxLength() && string.pattern().map(r -> r.matcher(v).matches()).orElse(true)) {
                        passing.add(v);
                    }
                }
                if (passing.isEmpty()) {
                    out.add(Finding.warning(unreachableId, pointer, what + ": no call can reach it: no value of {" + p.getKey()
                            + "}'s enum " + string.allowed().get() + " fits its pattern and maxLength"));
                }
            }
        }
    }

    /** The methods RFC 9110 calls safe: a typed tool of a target allowing only these is read-only ({@code HttpRequestKind}'s annotations). */
    static final Set<String> SAFE_METHODS = Set.of("GET", "HEAD", "OPTIONS", "TRACE");

    /**
     * A typed tool that writes and needs no human's approval: the model is offered a tool of its own,
     * annotated {@code destructiveHint: true}, that it may call at will. SSH commands are left out: every
     * command is annotated destructive (the policy cannot tell what one does), so the rule would say it
     * of each.
     */
    private static Finding typedWritesUnconfirmed(String where, String tool, String what) {
        return Finding.warning("typed-tool-writes-unconfirmed", where, "typed tool " + tool + ": " + what + ": the model is offered"
                + " a tool of its own that writes (destructiveHint) and runs with no human's approval; add confirm, or offer it"
                + " through the generic tool only");
    }

    private static Finding noRateLimit(Allowance a, String where) {
        return Finding.warning("no-rate-limit", where, a.noun() + " " + a.name() + " has no rateLimit: an agent may call it as often"
                + " as it likes");
    }

    private static Finding confirmOnlyByClient(String where, String what) {
        return Finding.warning("confirm-client-only", where, what + " needs a human's approval, and the only approval channel"
                + " configured is " + String.join(", ", APPROVAL_CHANNELS) + ": a client without form elicitation cannot"
                + " answer it, and every such call ends approval.unsupported; answer it \"local\" or \"any\" to reach the loopback"
                + " approval page and postern approvals");
    }
}
