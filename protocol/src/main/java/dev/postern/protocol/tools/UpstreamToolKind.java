package dev.postern.protocol.tools;

import dev.postern.protocol.json.JsonSyntaxError;
import dev.postern.protocol.json.StrictJson;
import static dev.postern.protocol.tools.ToolCatalog.JSON;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.AuthorizedUpstreamCall;
import dev.postern.policy.action.UpstreamCallAction;
import dev.postern.policy.json.JsonValue;
import dev.postern.policy.json.Pins;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.ArgNarrowing;
import dev.postern.policy.model.LiveTools;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.model.UpstreamTool;
import dev.postern.policy.outcome.UpstreamCallOutcome;
import dev.postern.protocol.json.JsonValues;
import dev.postern.transport.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The upstream MCP kind as the gateway presents it: its tools are known only at run time, one per
 * allowlisted tool of each configured server whose live definition matches its pin, named
 * {@code server__tool}, advertised with the upstream's own title, description, annotations and
 * output schema and its input schema narrowed by the operator (what is validated is what is
 * advertised). An allowlisted tool that is not listed, or whose definition moved, is withheld: not
 * listed, yet bound, so its call is denied by the policy ({@code mcp.unlisted}, {@code mcp.pin}) and
 * journaled. A success is the upstream's own {@code CallToolResult}, passed on whole.
 */
public final class UpstreamToolKind implements EffectKind<UpstreamCallAction, AuthorizedUpstreamCall, UpstreamCallOutcome> {
    public static final String KIND = "upstream";

    @Override
    public String toolName() {
        return KIND;
    }

    @Override
    public String displayName() {
        return "upstream MCP tool";
    }

    @Override
    public Class<UpstreamCallAction> actionType() {
        return UpstreamCallAction.class;
    }

    @Override
    public Class<AuthorizedUpstreamCall> permitType() {
        return AuthorizedUpstreamCall.class;
    }

    @Override
    public Class<UpstreamCallOutcome> outcomeType() {
        return UpstreamCallOutcome.class;
    }

    @Override
    public Class<? extends Allowance> allowanceType() {
        return UpstreamServer.class;
    }

    @Override
    public String allowancesNoun() {
        return "upstream MCP servers";
    }

    @Override
    public String allowancesSummary() {
        return "upstream MCP servers with their allowlisted tools";
    }

    @Override
    public String targetsField() {
        return "mcp";
    }

    @Override
    public List<Tool> tools(Policy policy, LiveTools live) {
        List<Tool> tools = new ArrayList<>();
        for (UpstreamServer server : policy.allowances(UpstreamServer.class)) {
            for (UpstreamTool allowed : server.tools()) {
                offered(server, allowed, live).ifPresent(tools::add);
            }
        }
        return tools;
    }

    @Override
    public List<Tool> withheldTools(Policy policy, LiveTools live) {
        List<Tool> tools = new ArrayList<>();
        for (UpstreamServer server : policy.allowances(UpstreamServer.class)) {
            for (UpstreamTool allowed : server.tools()) {
                if (whyWithheld(server, allowed, live).isPresent()) {
                    Optional<UpstreamCallAction.LiveDefinition> heard = liveDefinition(definition(server, allowed, live));
                    ObjectNode anything = JSON.objectNode().put("type", "object");
                    tools.add(new Tool(UpstreamServer.exposedName(server.name(), allowed.name()), "", "", anything, Optional.empty(),
                            JSON.objectNode(), args -> bind(server, allowed, heard, args)));
                }
            }
        }
        return tools;
    }

    /** Why an allowlisted tool is not offered, in words for the operator; empty when it is offered. */
    public static Optional<String> whyWithheld(UpstreamServer server, UpstreamTool allowed, LiveTools live) {
        LiveTools.Listing listing = live.of(server);
        if (listing instanceof LiveTools.Listing.Pending) {
            return Optional.of("the server has not listed its tools yet");
        }
        if (listing instanceof LiveTools.Listing.Unavailable u) {
            return Optional.of("the server is unavailable: " + u.reason());
        }
        Optional<JsonValue.JsonObject> definition = ((LiveTools.Listing.Listed) listing).tool(allowed.name());
        if (definition.isEmpty()) {
            return Optional.of("the server lists no tool " + allowed.name());
        }
        String pin = Pins.of(definition.get());
        if (!pin.equals(allowed.pin())) {
            return Optional.of("its definition has pin " + pin + ", not the configured " + allowed.pin());
        }
        Set<String> declared = declared(definition.get());
        for (String narrowed : allowed.args().keySet()) {
            if (!declared.contains(narrowed)) {
                return Optional.of("args narrows " + narrowed + ", which the tool does not declare");
            }
        }
        Optional<JsonValue.JsonObject> input = definition.get().object("inputSchema");
        if (input.isEmpty()) {
            return Optional.of("its definition has no inputSchema object");
        }
        if (refersOutside(JsonValues.node(input.get()))) {
            return Optional.of("its inputSchema refers to a schema outside itself ($ref not starting with #), which Postern does not fetch");
        }
        // Its results are checked against its outputSchema: one that cannot be used would refuse every result.
        Optional<JsonValue> output = definition.get().get("outputSchema");
        if (output.isPresent() && !(output.get() instanceof JsonValue.JsonObject)) {
            return Optional.of("its outputSchema is not an object");
        }
        if (output.isPresent() && refersOutside(JsonValues.node(output.get()))) {
            return Optional.of("its outputSchema refers to a schema outside itself ($ref not starting with #), which Postern does not fetch");
        }
        return Optional.empty();
    }

    private static Optional<Tool> offered(UpstreamServer server, UpstreamTool allowed, LiveTools live) {
        if (whyWithheld(server, allowed, live).isPresent()) {
            return Optional.empty();
        }
        JsonValue.JsonObject definition = definition(server, allowed, live).orElseThrow();
        ObjectNode input = narrowed((ObjectNode) JsonValues.node(definition.object("inputSchema").orElseThrow()), allowed);
        Optional<ObjectNode> output = definition.object("outputSchema").map(o -> (ObjectNode) JsonValues.node(o));
        ObjectNode annotations = definition.object("annotations").map(o -> (ObjectNode) JsonValues.node(o)).orElse(JSON.objectNode());
        String description = definition.string("description").orElse("");
        if (allowed.confirm()) {
            description = (description + ToolCatalog.WAITS_FOR_A_HUMAN.replace("Some calls (confirm in postern_targets) wait",
                    " Every call waits")).trim();
        }
        // Pinned and declared arguments are taken once per catalog, not per call.
        Optional<UpstreamCallAction.LiveDefinition> heard = liveDefinition(Optional.of(definition));
        return Optional.of(new Tool(UpstreamServer.exposedName(server.name(), allowed.name()), definition.string("title").orElse(""),
                description, input, output, annotations, args -> bind(server, allowed, heard, args)));
    }

    private static Optional<JsonValue.JsonObject> definition(UpstreamServer server, UpstreamTool allowed, LiveTools live) {
        LiveTools.Listing listing = live.of(server);
        return listing instanceof LiveTools.Listing.Listed l ? l.tool(allowed.name()) : Optional.empty();
    }

    private static Optional<UpstreamCallAction.LiveDefinition> liveDefinition(Optional<JsonValue.JsonObject> definition) {
        return definition.map(d -> new UpstreamCallAction.LiveDefinition(Pins.of(d), declared(d)));
    }

    private static Binding bind(UpstreamServer server, UpstreamTool allowed, Optional<UpstreamCallAction.LiveDefinition> live,
            JsonNode args) {
        if (!args.isObject()) {
            return new Binding.Invalid("", "the arguments must be an object");
        }
        return new Binding.ToAction(new UpstreamCallAction(server.name(), allowed.name(), JsonValues.object(args), live));
    }

    /** The argument names an input schema declares in its {@code properties}. */
    static Set<String> declared(JsonValue.JsonObject definition) {
        return definition.object("inputSchema").flatMap(s -> s.object("properties"))
                .map(p -> (Set<String>) new LinkedHashSet<>(p.members().keySet())).orElse(Set.of());
    }

    /**
     * The upstream's input schema with the operator's narrowing added to each narrowed property (a
     * keyword the property already has is added beside it under {@code allOf}, so both hold), and,
     * when the upstream says nothing of additional properties, {@code additionalProperties: false}:
     * an argument the upstream does not declare is refused unless its own schema allows it.
     */
    static ObjectNode narrowed(ObjectNode upstream, UpstreamTool allowed) {
        ObjectNode schema = upstream.deepCopy();
        if (!schema.has("additionalProperties")) {
            schema.put("additionalProperties", false);
        }
        ObjectNode properties = schema.with("properties");
        for (Map.Entry<String, ArgNarrowing> e : allowed.args().entrySet()) {
            JsonNode original = properties.get(e.getKey());
            ObjectNode property = original != null && original.isObject() ? (ObjectNode) original : JSON.objectNode();
            ObjectNode narrowing = keywords(e.getValue());
            Iterator<Map.Entry<String, JsonNode>> it = narrowing.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> k = it.next();
                if (property.has(k.getKey())) {
                    property.withArray("allOf").addObject().set(k.getKey(), k.getValue());
                } else {
                    property.set(k.getKey(), k.getValue());
                }
            }
            properties.set(e.getKey(), property);
        }
        return schema;
    }

    /** A narrowing as JSON Schema keywords; a pattern anchored, since the policy matches it whole. */
    static ObjectNode keywords(ArgNarrowing n) {
        ObjectNode k = JSON.objectNode();
        n.allowed().ifPresent(values -> {
            ArrayNode list = k.putArray("enum");
            values.forEach(v -> list.add(JsonValues.node(v)));
        });
        n.constant().ifPresent(c -> k.set("const", JsonValues.node(c)));
        n.pattern().ifPresent(p -> k.put("pattern", "^(?:" + p.pattern() + ")$"));
        n.maxLength().ifPresent(m -> k.put("maxLength", m));
        n.minimum().ifPresent(m -> k.put("minimum", m));
        n.maximum().ifPresent(m -> k.put("maximum", m));
        return k;
    }

    /** Whether a schema holds a {@code $ref} or {@code $dynamicRef} that does not start with {@code #}. */
    static boolean refersOutside(JsonNode node) {
        if (node.isObject()) {
            JsonNode ref = node.get("$ref");
            if (ref != null && (!ref.isTextual() || !ref.textValue().startsWith("#"))) {
                return true;
            }
            JsonNode dynamic = node.get("$dynamicRef");
            if (dynamic != null && (!dynamic.isTextual() || !dynamic.textValue().startsWith("#"))) {
                return true;
            }
            Iterator<JsonNode> values = node.elements();
            while (values.hasNext()) {
                if (refersOutside(values.next())) {
                    return true;
                }
            }
        } else if (node.isArray()) {
            for (JsonNode element : node) {
                if (refersOutside(element)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Servers by name with their allowlisted tools (the name to call, whether it is offered now, confirm); no command, no environment. */
    @Override
    public ArrayNode describeForAgent(Policy policy, LiveTools live) {
        ArrayNode servers = JSON.arrayNode();
        for (UpstreamServer s : policy.allowances(UpstreamServer.class)) {
            ObjectNode n = servers.addObject();
            n.put("name", s.name());
            RateLimitShown.toAgent(n, s);
            ArrayNode tools = n.putArray("tools");
            for (UpstreamTool t : s.tools()) {
                tools.addObject().put("name", UpstreamServer.exposedName(s.name(), t.name()))
                        .put("available", whyWithheld(s, t, live).isEmpty())
                        .put("confirm", t.confirm());
            }
        }
        return servers;
    }

    @Override
    public String describeForOperator(Policy policy) {
        StringBuilder b = new StringBuilder();
        for (UpstreamServer s : policy.allowances(UpstreamServer.class)) {
            b.append("upstream mcp server ").append(s.name()).append(": ").append(String.join(" ", s.command()))
                    .append(" (in ").append(s.cwd()).append("; environment ")
                    .append(s.env().isEmpty() ? "minimal" : "minimal + " + envText(s))
                    .append("; start within ").append(s.startTimeout().toMillis()).append(" ms, calls within ")
                    .append(s.timeout().toMillis()).append(" ms, at most ").append(s.maxResponseBytes()).append(" bytes)");
            RateLimitShown.toOperator(b, s);
            b.append('\n');
            for (UpstreamTool t : s.tools()) {
                b.append("  tool ").append(t.name()).append(" as ").append(UpstreamServer.exposedName(s.name(), t.name()))
                        .append(t.confirm() ? " (only with a human's approval)" : "").append(", pin ").append(t.pin()).append('\n');
                t.args().forEach((name, n) -> b.append("    ").append(name).append(": ").append(keywords(n)).append('\n'));
            }
        }
        return b.toString();
    }

    private static String envText(UpstreamServer s) {
        return s.env().entrySet().stream().map(e -> e.getKey() + (e.getValue() instanceof UpstreamServer.EnvValue.FromCredential c
                ? " from credential " + c.credential().name() : "")).collect(Collectors.joining(", "));
    }

    /** The upstream's result as it is; a failure has no partial of this kind. */
    @Override
    public ObjectNode render(UpstreamCallOutcome outcome) {
        return (ObjectNode) JsonValues.node(outcome.result());
    }

    @Override
    public KindResult result(UpstreamCallOutcome outcome) {
        return new KindResult.Whole(render(outcome));
    }

    @Override
    public String explain(AuthorizedUpstreamCall permit) {
        UpstreamServer s = permit.server();
        return "would call tool " + permit.tool().name() + " of upstream MCP server " + s.name() + " (" + String.join(" ", s.command())
                + (s.credentials().isEmpty() ? "" : "; environment from credential "
                + s.credentials().stream().map(c -> c.name()).collect(Collectors.joining(", ")))
                + ")\n  with arguments " + permit.arguments().canonical()
                + "\n  pinned to " + permit.tool().pin() + "; limits: timeout " + s.timeout().toMillis() + " ms, at most "
                + s.maxResponseBytes() + " bytes";
    }

    /** The server, the upstream tool, its pin and the arguments as canonical JSON (a digest with {@code redactArguments}). */
    @Override
    public void journalIntent(AuthorizedUpstreamCall permit, ObjectNode row, boolean redactArguments) {
        row.put("target", permit.server().name());
        row.put("tool", UpstreamServer.exposedName(permit.server().name(), permit.tool().name()));
        row.put("pin", permit.tool().pin());
        String arguments = permit.arguments().canonical();
        if (redactArguments) {
            row.put("preview", permit.tool().name());
            row.put("argumentsSha256", Sha256.of(arguments.getBytes(StandardCharsets.UTF_8)));
        } else {
            row.set("arguments", JsonValues.node(permit.arguments()));
            row.put("preview", permit.tool().name() + ' ' + arguments);
        }
    }

    @Override
    public void journalDenial(UpstreamCallAction a, ObjectNode row, boolean redactArguments) {
        row.put("tool", UpstreamServer.exposedName(a.server(), a.tool()));
        row.put("target", a.server());
        String arguments = a.arguments().canonical();
        if (redactArguments) {
            row.put("refused", a.tool());
            row.put("argumentsSha256", Sha256.of(arguments.getBytes(StandardCharsets.UTF_8)));
        } else {
            row.put("refused", a.tool() + ' ' + arguments);
        }
    }

    @Override
    public void journalOutcome(UpstreamCallOutcome outcome, ObjectNode row) {
        row.put("upstreamError", outcome.upstreamError());
        row.put("contentItems", outcome.result().get("content")
                .map(c -> c instanceof JsonValue.JsonArray a ? a.elements().size() : 0).orElse(0));
    }

    /**
     * Server, tool, the arguments as JSON text (numbers exactly as received, which a journal reader
     * that reads floating point would not keep), and the live definition the call was bound against:
     * its pin and declared arguments, so a replay judges the call as it was bound.
     */
    @Override
    public ObjectNode asked(UpstreamCallAction a) {
        ObjectNode n = JSON.objectNode();
        n.put("server", a.server());
        n.put("tool", a.tool());
        n.put("arguments", JsonValues.node(a.arguments()).toString());
        a.live().ifPresent(l -> {
            ObjectNode live = n.putObject("live");
            live.put("pin", l.pin());
            l.declaredArguments().stream().sorted().forEach(live.putArray("declaredArguments")::add);
        });
        return n;
    }

    @Override
    public Optional<UpstreamCallAction> actionOf(JsonNode asked) {
        Optional<String> server = AskedFields.text(asked, "server");
        Optional<String> tool = AskedFields.text(asked, "tool");
        Optional<String> arguments = AskedFields.text(asked, "arguments");
        if (server.isEmpty() || tool.isEmpty() || arguments.isEmpty()) {
            return Optional.empty();
        }
        JsonValue.JsonObject args;
        try {
            JsonNode parsed = new StrictJson(arguments.get().length() + 1).parse(arguments.get());
            if (!parsed.isObject()) {
                return Optional.empty();
            }
            args = JsonValues.object(parsed);
        } catch (JsonSyntaxError e) {
            return Optional.empty();
        }
        Optional<UpstreamCallAction.LiveDefinition> live = Optional.empty();
        JsonNode l = asked.get("live");
        if (l != null) {
            Optional<String> pin = AskedFields.text(l, "pin");
            JsonNode declared = l.get("declaredArguments");
            if (pin.isEmpty() || declared == null || !declared.isArray()) {
                return Optional.empty();
            }
            Set<String> names = new LinkedHashSet<>();
            for (JsonNode d : declared) {
                if (!d.isTextual()) {
                    return Optional.empty();
                }
                names.add(d.textValue());
            }
            live = Optional.of(new UpstreamCallAction.LiveDefinition(pin.get(), names));
        }
        return Optional.of(new UpstreamCallAction(server.get(), tool.get(), args, live));
    }
}
