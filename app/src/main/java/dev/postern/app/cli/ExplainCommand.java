package dev.postern.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.postern.app.ExitStatus;
import dev.postern.app.Gateway;
import dev.postern.app.ToolCallService;
import dev.postern.app.config.GatewayConfig;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.Decision;
import dev.postern.policy.PendingApproval;
import dev.postern.protocol.json.JsonSyntaxError;
import dev.postern.protocol.json.StrictJson;
import dev.postern.protocol.tools.Binding;
import dev.postern.protocol.tools.Tool;
import dev.postern.protocol.tools.ToolCatalog;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@code postern explain}: runs one tool call through schema validation, binding and the policy
 * decision (the {@link ToolCallService}'s dry run), and prints the verdict in the words of the permit's kind. It opens no journal
 * and runs nothing; the one executor it builds is the upstream MCP kind's, when the config has upstream servers: they are
 * started, their tools listed (none called) and stopped, so that a call is judged against the live definitions.
 */
final class ExplainCommand implements Command {
    @Override
    public String name() {
        return "explain";
    }

    @Override
    public String summary() {
        return "explain --config FILE --tool NAME --arguments JSON\n"
                + "                               show the policy decision for one tool call; never executes";
    }

    @Override
    public String help() {
        return String.join("\n",
                "usage: postern explain --config FILE --tool NAME [--arguments JSON]",
                "",
                "Runs one tool call through the gateway's checks up to the policy decision: the",
                "arguments (strict JSON, default {}) are validated against the tool's input schema,",
                "then judged by the policy in FILE. Prints one of:",
                "  PERMIT   the rule that allows it and exactly what would be sent",
                "           (method and URL, or host and the quoted command line)",
                "  DENY     the rule that refused it and the reason the agent would see",
                "  INVALID  the JSON pointer into the arguments that failed, and why",
                "  ANSWER   a read-only tool the gateway answers from the configuration",
                "Nothing is executed: no request is sent, no command is run, no journal is written.",
                "",
                "Exit status 0 on PERMIT or ANSWER, 6 on DENY or INVALID, 4 when the config does not",
                "load, 1 on a usage error.");
    }

    @Override
    public ExitStatus run(List<String> args, Io io) {
        String file;
        String toolName;
        String arguments;
        try {
            Options o = Options.parse(args, Set.of("--config", "--tool", "--arguments"));
            if (!o.positional().isEmpty()) {
                throw new Options.UsageException("unexpected argument " + o.positional().get(0));
            }
            file = ConfigArgument.file(o);
            toolName = o.require("--tool");
            arguments = o.get("--arguments").orElse("{}");
        } catch (Options.UsageException e) {
            io.stderr().println("postern explain: " + e.getMessage() + "\n\n" + help());
            return ExitStatus.USAGE;
        }
        Optional<GatewayConfig> config = ConfigArgument.load(file, io);
        if (config.isEmpty()) {
            return ExitStatus.CONFIG_ERROR;
        }
        return explain(config.get(), toolName, arguments, io.report(), io.stderr());
    }

    static ExitStatus explain(GatewayConfig config, String toolName, String arguments, PrintStream out, PrintStream diagnostics) {
        // Upstream MCP servers are started and listed (no tool of theirs runs) so a call is judged against live definitions.
        ToolCatalog catalog = Gateway.catalog(config).withLive(Gateway.listNow(config, diagnostics));
        Optional<Tool> tool = catalog.find(toolName);
        if (tool.isEmpty()) {
            out.println("INVALID: unknown tool \"" + toolName + "\"; this config offers "
                    + catalog.tools().stream().map(Tool::name).collect(Collectors.joining(", ")));
            return ExitStatus.CHECK_FAILED;
        }
        if (arguments.getBytes(StandardCharsets.UTF_8).length > config.maxFrameBytes()) {
            out.println("INVALID: the arguments are longer than the config's maxFrameBytes (" + config.maxFrameBytes() + ")");
            return ExitStatus.CHECK_FAILED;
        }
        JsonNode args;
        try {
            args = new StrictJson(config.maxFrameBytes()).parse(arguments);
        } catch (JsonSyntaxError e) {
            out.println("INVALID: the arguments are not one strict JSON value: " + e.getMessage());
            return ExitStatus.CHECK_FAILED;
        }
        Binding binding = catalog.bind(tool.get(), args);
        if (binding instanceof Binding.Invalid invalid) {
            out.println("INVALID at " + (invalid.pointer().isEmpty() ? "/" : invalid.pointer()) + ": " + invalid.message());
            return ExitStatus.CHECK_FAILED;
        }
        if (binding instanceof Binding.Answer) {
            out.println("ANSWER: " + toolName + " is read-only; the gateway answers it from the configuration, no policy decision is involved");
            return ExitStatus.OK;
        }
        return Gateway.explainer(config).dryRun(((Binding.ToAction) binding).action(), new ToolCallService.DryAnswers<>() {
            @Override
            public ExitStatus denied(Decision.Deny deny) {
                out.println("DENY by rule " + deny.rule() + ": " + deny.reason());
                return ExitStatus.CHECK_FAILED;
            }

            @Override
            public ExitStatus approvalRequired(PendingApproval pending) {
                out.println("APPROVAL REQUIRED by rule " + pending.rule() + ": " + pending.reason());
                pending.shown().fields().forEach(f -> out.println("  " + f.label() + ": " + f.value()));
                out.println("  digest: " + pending.digest());
                out.println("  answered by: " + answeredBy(config.approvalChannels().of(pending.rule())));
                out.println("(explained only: nothing was sent or run, and no one was asked)");
                return ExitStatus.OK;
            }

            @Override
            public ExitStatus permitted(AuthorizedAction permit) {
                out.println("PERMIT by rule " + permit.rule());
                out.println(catalog.kinds().explain(permit));
                out.println("(explained only: nothing was sent or run)");
                return ExitStatus.OK;
            }
        });
    }

    /** A channel as check-config and explain print it: its word, and who answers through it. */
    static String answeredBy(dev.postern.app.config.ApprovalChannel channel) {
        switch (channel) {
            case CLIENT: return "client (the MCP client's own elicitation, trusted to show it to a person)";
            case LOCAL: return "local (the loopback approval page or postern approvals; no MCP client can answer)";
            case ANY: return "any (the first answer from the client's elicitation, the loopback approval page or postern approvals)";
            default: throw new AssertionError(channel);
        }
    }
}
