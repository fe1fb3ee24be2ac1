package dev.postern.protocol.tools;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.Optional;
import static dev.postern.protocol.tools.ToolCatalog.JSON;
import static dev.postern.protocol.tools.ToolCatalog.MAX_ENTRIES;
import static dev.postern.protocol.tools.ToolCatalog.annotations;
import static dev.postern.protocol.tools.ToolCatalog.objectSchema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.AuthorizedSshCommand;
import dev.postern.policy.action.Argument;
import dev.postern.policy.action.SshCommandAction;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.HostSyntax;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import dev.postern.policy.outcome.SshExitOutcome;
import dev.postern.transport.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/** {@code ssh_exec}: one configured command on one configured host, presented once for every surface. Stateless. */
public final class SshExecKind implements StaticToolKind<SshCommandAction, AuthorizedSshCommand, SshExitOutcome> {
    public static final String TOOL = SshCommandAction.TOOL;
    /**
     * The largest stdout and stderr that always come back whole, whatever their bytes: as base64 the
     * two render 8,000,000 bytes in the result's two copies, within the gateway's cap of
     * {@link ToolResults#DEFAULT_MAX_RESULT_BYTES}.
     */
    public static final int WHOLE_STREAM_BYTES = 1_500_000;

    @Override
    public String toolName() {
        return TOOL;
    }

    @Override
    public String displayName() {
        return "SSH command";
    }

    @Override
    public Class<SshCommandAction> actionType() {
        return SshCommandAction.class;
    }

    @Override
    public Class<AuthorizedSshCommand> permitType() {
        return AuthorizedSshCommand.class;
    }

    @Override
    public Class<SshExitOutcome> outcomeType() {
        return SshExitOutcome.class;
    }

    @Override
    public Class<? extends Allowance> allowanceType() {
        return SshHost.class;
    }

    @Override
    public String allowancesNoun() {
        return "SSH hosts";
    }

    @Override
    public String allowancesSummary() {
        return "SSH hosts with their commands and argument rules";
    }

    @Override
    public String targetsField() {
        return "ssh";
    }

    @Override
    public Tool tool(Policy policy) {
        ObjectNode in = objectSchema();
        ObjectNode p = in.putObject("properties");
        ArrayNode hosts = p.putObject("host").put("type", "string").put("description", "A configured host").putArray("enum");
        TreeSet<String> commands = new TreeSet<>();
        StringBuilder help = new StringBuilder("Run one configured command on one configured host. Commands: ");
        for (SshHost h : policy.allowances(SshHost.class)) {
            hosts.add(h.name());
            for (SshCommandSpec c : h.commands()) {
                commands.add(c.name());
                help.append(h.name()).append('/').append(c.name());
                if (!c.params().isEmpty()) {
                    help.append(" args ").append(new TreeSet<>(c.params().keySet()));
                }
                help.append("; ");
            }
        }
        ArrayNode commandEnum = p.putObject("command").put("type", "string").put("description", "A command configured for that host").putArray("enum");
        commands.forEach(commandEnum::add);
        ObjectNode argValue = JSON.objectNode();
        argValue.putArray("type").add("string").add("integer");
        argValue.put("maxLength", 65536);
        p.putObject("args").put("type", "object").put("maxProperties", MAX_ENTRIES)
                .put("description", "Values for the command's {placeholders}")
                .set("additionalProperties", argValue);
        in.putArray("required").add("host").add("command");

        ObjectNode out = outputSchema();
        // The list's last "; " becomes ". " before the sentence on output; the approval sentence brings its own leading space.
        boolean asks = policy.allowances(SshHost.class).stream().flatMap(h -> h.commands().stream()).anyMatch(SshCommandSpec::confirm);
        if (help.length() >= 2 && help.charAt(help.length() - 2) == ';') {
            help.setLength(help.length() - 2);
        }
        help.append(". ");
        help.append(STREAMS);
        return new Tool(TOOL, "SSH command", help.toString().trim() + (asks ? ToolCatalog.WAITS_FOR_A_HUMAN : ""), in, out,
                annotations(false, true, false, true), SshExecKind::bind);
    }

    /** How the output streams come back, told in every SSH tool's description. */
    private static final String STREAMS = "Each stream comes back as text, or base64 (stdoutEncoding, stderrEncoding) when it is"
            + " not UTF-8 or is too large for the result as text; up to " + WHOLE_STREAM_BYTES + " bytes each within the host's"
            + " maxOutputBytes always comes back whole, more may be cut to fit (stdoutTruncated, stderrTruncated).";

    /** What a result holds, the same for {@code ssh_exec} and every typed command tool. */
    private static ObjectNode outputSchema() {
        ObjectNode out = objectSchema();
        ObjectNode o = out.putObject("properties");
        o.putObject("host").put("type", "string");
        o.putObject("exitStatus").putArray("type").add("integer").add("null");
        o.putObject("exitSignal").putArray("type").add("string").add("null");
        for (String s : List.of("stdout", "stderr")) {
            o.putObject(s).put("type", "string");
            o.putObject(s + "Encoding").put("type", "string").putArray("enum").add("text").add("base64");
            o.putObject(s + "Truncated").put("type", "boolean");
        }
        o.putObject("hostKeyFingerprint").put("type", "string");
        out.putArray("required").add("host").add("exitStatus").add("exitSignal").add("stdout").add("stdoutEncoding")
                .add("stdoutTruncated").add("stderr").add("stderrEncoding").add("stderrTruncated").add("hostKeyFingerprint");
        return out;
    }

    /**
     * One tool per command whose config names a {@code tool}: its params as the input schema; annotated as
     * {@code ssh_exec} is (not read-only, possibly destructive, not idempotent), since nothing in the policy
     * says what a command does to its host; a call is {@code ssh_exec} on that host and command with the same arguments.
     */
    @Override
    public List<Tool> typedTools(Policy policy) {
        List<Tool> tools = new java.util.ArrayList<>();
        for (SshHost h : policy.allowances(SshHost.class)) {
            for (SshCommandSpec c : h.commands()) {
                c.tool().ifPresent(name -> tools.add(new Tool(name.name(), "SSH command " + c.name() + " on " + h.name(),
                        "Run the command " + c.name() + " on the host " + h.name() + ": argv " + c.argv()
                                + (c.params().isEmpty() ? "" : ", each {placeholder} filled from the argument of the same name")
                                + ". " + STREAMS + (c.confirm() ? ToolCatalog.WAITS_FOR_A_HUMAN : ""),
                        TypedTools.paramsSchema(c.params()), outputSchema(), annotations(false, true, false, true),
                        TypedTools.binding(typed -> TypedTools.named("host", h.name(), "command", c.name(), typed), SshExecKind::bind))));
            }
        }
        return List.copyOf(tools);
    }

    private static Binding bind(JsonNode args) {
        Map<String, Argument> values = new LinkedHashMap<>();
        JsonNode a = args.get("args");
        if (a != null) {
            Iterator<Map.Entry<String, JsonNode>> it = a.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode v = e.getValue();
                if (v.isTextual()) {
                    values.put(e.getKey(), new Argument.Text(v.textValue()));
                } else if (v.isIntegralNumber() && v.canConvertToLong()) {
                    values.put(e.getKey(), new Argument.Whole(v.longValue()));
                } else {
                    return new Binding.Invalid("/args/" + SchemaErrors.escape(e.getKey()),
                            "must be a string or an integer within 64 bits");
                }
            }
        }
        return new Binding.ToAction(new SshCommandAction(args.get("host").textValue(), args.get("command").textValue(), values));
    }

    /** No credentials and no addresses of SSH hosts. */
    @Override
    public ArrayNode describeForAgent(Policy policy) {
        ArrayNode ssh = JSON.arrayNode();
        for (SshHost h : policy.allowances(SshHost.class)) {
            ObjectNode n = ssh.addObject();
            n.put("name", h.name());
            RateLimitShown.toAgent(n, h);
            ArrayNode commands = n.putArray("commands");
            for (SshCommandSpec c : h.commands()) {
                ObjectNode cn = commands.addObject();
                cn.put("name", c.name());
                c.argv().forEach(cn.putArray("argv")::add);
                cn.put("confirm", c.confirm());
                cn.set("params", ParamSchema.of(c.params()));
                c.tool().ifPresent(t -> cn.put("tool", t.name()));
            }
        }
        return ssh;
    }

    @Override
    public String describeForOperator(Policy policy) {
        StringBuilder b = new StringBuilder();
        for (SshHost h : policy.allowances(SshHost.class)) {
            b.append("ssh host ").append(h.name()).append(": ").append(h.user()).append('@').append(HostSyntax.inAuthority(h.address()))
                    .append(':').append(h.port());
            RateLimitShown.toOperator(b, h);
            b.append('\n');
            for (SshCommandSpec c : h.commands()) {
                b.append("  command ").append(c.name()).append(": ").append(c.argv())
                        .append(c.confirm() ? ", only with a human's approval" : "")
                        .append(c.tool().map(t -> ", also as tool " + t.name()).orElse("")).append('\n');
                ParamDescription.lines(c).forEach(line -> b.append("    ").append(line).append('\n'));
            }
        }
        return b.toString();
    }

    @Override
    public ObjectNode render(SshExitOutcome s) {
        return render(s, List.of(StreamFit.natural(stdout(s)), StreamFit.natural(stderr(s))));
    }

    /**
     * As {@link #render}, with a stream base64 when that renders smaller and the result would not fit
     * {@code maxRenderedBytes} otherwise, and the streams cut to fit (each flagged truncated) when
     * even that would not fit.
     */
    @Override
    public ObjectNode renderWithin(SshExitOutcome s, long maxRenderedBytes) {
        List<StreamFit.Stream> streams = List.of(stdout(s), stderr(s));
        List<StreamFit.Piece> natural = List.of(StreamFit.natural(streams.get(0)), StreamFit.natural(streams.get(1)));
        long fixed = ToolResults.renderedSuccess(render(s, natural)) - natural.get(0).cost() - natural.get(1).cost();
        return render(s, StreamFit.fit(streams, maxRenderedBytes - fixed));
    }

    private static StreamFit.Stream stdout(SshExitOutcome s) {
        return new StreamFit.Stream(s.stdout(), true);
    }

    private static StreamFit.Stream stderr(SshExitOutcome s) {
        return new StreamFit.Stream(s.stderr(), true);
    }

    private static ObjectNode render(SshExitOutcome s, List<StreamFit.Piece> streams) {
        ObjectNode n = JSON.objectNode();
        n.put("host", s.host());
        if (s.exitStatus().isPresent()) {
            n.put("exitStatus", s.exitStatus().getAsInt());
        } else {
            n.putNull("exitStatus");
        }
        if (s.exitSignal().isPresent()) {
            n.put("exitSignal", s.exitSignal().get());
        } else {
            n.putNull("exitSignal");
        }
        stream(n, "stdout", streams.get(0), s.stdoutTruncated());
        stream(n, "stderr", streams.get(1), s.stderrTruncated());
        n.put("hostKeyFingerprint", s.hostKeyFingerprint());
        return n;
    }

    private static void stream(ObjectNode n, String name, StreamFit.Piece piece, boolean truncated) {
        n.put(name, piece.value());
        n.put(name + "Encoding", piece.encoding());
        n.put(name + "Truncated", truncated || piece.cut());
    }

    @Override
    public String explain(AuthorizedSshCommand s) {
        SshHost host = s.host();
        return "would run on " + host.name() + " (" + host.user() + '@' + HostSyntax.inAuthority(host.address()) + ':' + host.port() + "): " + s.commandLine()
                + "\n  limits: timeout " + host.timeout().toSeconds() + " s, at most " + host.maxOutputBytes()
                + " bytes per output stream";
    }

    @Override
    public void journalIntent(AuthorizedSshCommand s, ObjectNode row, boolean redactArguments) {
        row.put("target", s.host().name());
        row.put("command", s.action().command());
        if (redactArguments) {
            row.put("preview", s.action().command());
            row.put("argumentsSha256", Sha256.of(String.join("\u0000", s.argv()).getBytes(StandardCharsets.UTF_8)));
        } else {
            s.argv().forEach(row.putArray("argv")::add);
            row.put("preview", s.commandLine());
        }
    }

    @Override
    public void journalDenial(SshCommandAction a, ObjectNode row, boolean redactArguments) {
        row.put("target", a.host());
        StringBuilder args = new StringBuilder();
        new TreeMap<>(a.args()).forEach((name, value) -> args.append(' ').append(name).append('=').append(value.render()));
        if (redactArguments) {
            row.put("refused", a.command());
            row.put("argumentsSha256", Sha256.of(args.toString().getBytes(StandardCharsets.UTF_8)));
        } else {
            row.put("refused", a.command() + args);
        }
    }

    @Override
    public void journalOutcome(SshExitOutcome s, ObjectNode row) {
        if (s.exitStatus().isPresent()) {
            row.put("exitStatus", s.exitStatus().getAsInt());
        }
        s.exitSignal().ifPresent(sig -> row.put("exitSignal", sig));
    }

    /** Host, command, and each argument as the agent sent it: a string, or a whole number. */
    @Override
    public ObjectNode asked(SshCommandAction a) {
        ObjectNode n = JSON.objectNode();
        n.put("host", a.host());
        n.put("command", a.command());
        ObjectNode args = n.putObject("args");
        new TreeMap<>(a.args()).forEach((name, value) -> args.set(name, value instanceof Argument.Whole w
                ? JsonNodeFactory.instance.numberNode(w.value()) : JsonNodeFactory.instance.textNode(value.render())));
        return n;
    }

    @Override
    public Optional<SshCommandAction> actionOf(JsonNode asked) {
        Optional<String> host = AskedFields.text(asked, "host");
        Optional<String> command = AskedFields.text(asked, "command");
        Optional<Map<String, Argument>> args = AskedFields.members(asked, "args", v -> v.isTextual()
                ? Optional.of(new Argument.Text(v.textValue()))
                : AskedFields.whole(v) ? Optional.of(new Argument.Whole(v.longValue())) : Optional.empty());
        if (host.isEmpty() || command.isEmpty() || args.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new SshCommandAction(host.get(), command.get(), args.get()));
    }
}
