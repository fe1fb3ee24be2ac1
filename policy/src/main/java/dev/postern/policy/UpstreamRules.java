package dev.postern.policy;

import dev.postern.policy.model.Printable;
import dev.postern.policy.Decision.Deny;
import dev.postern.policy.Decision.Permit;
import dev.postern.policy.action.UpstreamCallAction;
import dev.postern.policy.json.JsonValue;
import dev.postern.policy.model.ArgNarrowing;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.model.UpstreamTool;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The upstream MCP rules of DESIGN §4: a configured server, a tool on its allowlist, a live definition
 * whose pin is the operator's, narrowings only of arguments that definition declares, and every
 * narrowed argument within its narrowing. The upstream's own schema was checked before; these rules
 * hold even if it was not.
 */
final class UpstreamRules implements Rules<UpstreamCallAction> {
    private final Policy policy;

    UpstreamRules(Policy policy) {
        this.policy = policy;
    }

    @Override
    public Class<UpstreamCallAction> actionType() {
        return UpstreamCallAction.class;
    }

    @Override
    public Decision decide(UpstreamCallAction request) {
        Optional<UpstreamServer> server = policy.allowances(UpstreamServer.class).stream()
                .filter(s -> s.name().equals(request.server())).findFirst();
        if (server.isEmpty()) {
            return new Deny("mcp.server", "no upstream MCP server named \"" + Printable.shown(request.server()) + "\" is configured");
        }
        Optional<UpstreamTool> tool = server.get().tool(request.tool());
        if (tool.isEmpty()) {
            return new Deny("mcp.tool", "tool \"" + Printable.shown(request.tool()) + "\" of " + request.server()
                    + " is not on the operator's allowlist");
        }
        if (request.live().isEmpty()) {
            return new Deny("mcp.unlisted", "upstream " + request.server() + " does not list tool " + request.tool()
                    + " at the moment (not started, unavailable, or the tool is gone)");
        }
        UpstreamCallAction.LiveDefinition live = request.live().get();
        if (!live.pin().equals(tool.get().pin())) {
            return new Deny("mcp.pin", "the definition of " + request.tool() + " on " + request.server()
                    + " no longer matches the pin the operator reviewed, so it is withheld");
        }
        for (Map.Entry<String, ArgNarrowing> e : new TreeMap<>(tool.get().args()).entrySet()) {
            if (!live.declaredArguments().contains(e.getKey())) {
                return new Deny("mcp.args", "the operator narrows argument " + e.getKey() + ", which " + request.tool()
                        + " does not declare, so the tool is refused until the config and the server agree");
            }
            Optional<JsonValue> value = request.arguments().get(e.getKey());
            if (value.isPresent()) {
                Optional<String> wrong = violation(e.getValue(), value.get());
                if (wrong.isPresent()) {
                    return new Deny("mcp.args", "argument " + e.getKey() + " " + wrong.get());
                }
            }
        }
        String rule = "mcp.tool:" + server.get().name() + "." + tool.get().name();
        UpstreamServer on = server.get();
        UpstreamTool allowed = tool.get();
        if (allowed.confirm()) {
            return new Decision.ApprovalRequired(new PendingApproval(request, rule,
                    "tool " + allowed.name() + " of " + on.name() + " needs a human's approval",
                    new ShownAction("upstream", List.of(
                            new ShownAction.Field("server", on.name()),
                            new ShownAction.Field("tool", allowed.name()),
                            new ShownAction.Field("arguments", request.arguments().canonical()))),
                    () -> new AuthorizedUpstreamCall(request, on, allowed, rule)));
        }
        return new Permit(new AuthorizedUpstreamCall(request, on, allowed, rule));
    }

    /** What is wrong with {@code value} under {@code narrowing}, in words, or empty when it is within it. */
    static Optional<String> violation(ArgNarrowing narrowing, JsonValue value) {
        String canonical = value.canonical();
        if (narrowing.allowed().isPresent()
                && narrowing.allowed().get().stream().noneMatch(v -> v.canonical().equals(canonical))) {
            return Optional.of("is not one of the values the operator allows");
        }
        if (narrowing.constant().isPresent() && !narrowing.constant().get().canonical().equals(canonical)) {
            return Optional.of("must be the value the operator set");
        }
        if (narrowing.pattern().isPresent() || narrowing.maxLength().isPresent()) {
            if (!(value instanceof JsonValue.JsonString s)) {
                return Optional.of("must be a string");
            }
            if (narrowing.maxLength().isPresent()
                    && s.value().codePointCount(0, s.value().length()) > narrowing.maxLength().getAsInt()) {
                return Optional.of("is longer than " + narrowing.maxLength().getAsInt() + " characters");
            }
            if (narrowing.pattern().isPresent() && !narrowing.pattern().get().matcher(s.value()).matches()) {
                return Optional.of("does not match the pattern the operator allows");
            }
        }
        if (narrowing.minimum().isPresent() || narrowing.maximum().isPresent()) {
            if (!(value instanceof JsonValue.JsonNumber n)) {
                return Optional.of("must be a number");
            }
            if (narrowing.minimum().isPresent() && n.value().compareTo(narrowing.minimum().get()) < 0) {
                return Optional.of("is below " + narrowing.minimum().get().toPlainString());
            }
            if (narrowing.maximum().isPresent() && n.value().compareTo(narrowing.maximum().get()) > 0) {
                return Optional.of("is above " + narrowing.maximum().get().toPlainString());
            }
        }
        return Optional.empty();
    }
}
