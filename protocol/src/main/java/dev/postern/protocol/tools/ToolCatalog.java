package dev.postern.protocol.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.model.LiveTools;
import dev.postern.policy.model.Policy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The tools a policy offers, in a fixed order: each registered kind's tools (in registration order:
 * {@code http_request}, {@code ssh_exec}, {@code sql_query} when the policy has an allowance of that
 * kind, each followed by the typed tools of its operations that ask for one, then each upstream server's
 * pinned tools as listed), and always {@code postern_targets}; plus
 * the withheld tools, callable but not listed. A run-time listing that changes makes a new catalog. Validates arguments
 * against each tool's input schema before its binder runs. Immutable; thread-safe.
 */
public final class ToolCatalog {
    static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    public static final String POSTERN_TARGETS = "postern_targets";

    /** Bounds on every string and map of {@code http_request}. */
    static final int MAX_URL = HttpRequestAction.MAX_URL_LENGTH;
    static final int MAX_BODY = 1_048_576;
    static final int MAX_ENTRIES = 64;
    static final int MAX_VALUE = 8192;
    /** Told to the agent in a tool's description when some rule of that tool needs a human's approval. */
    static final String WAITS_FOR_A_HUMAN = " Some calls (confirm in postern_targets) wait for a human to approve the exact"
            + " action before anything runs; a call that is declined, unanswered or unapprovable fails with an approval.* rule"
            + " and nothing runs.";

    private final EffectKinds kinds;
    private final Policy policy;
    private final LiveTools live;
    private final Map<String, Tool> tools = new LinkedHashMap<>();
    private final Map<String, Tool> withheld = new LinkedHashMap<>();
    private final Map<String, ArgumentValidator> validators = new LinkedHashMap<>();

    /** The catalog of a policy whose kinds' tools are all fixed by the config (no run-time listings yet). */
    public ToolCatalog(EffectKinds kinds, Policy policy) {
        this(kinds, policy, LiveTools.none());
    }

    /** The catalog of a policy given what the run-time sources have listed so far; a newer listing makes a new catalog. */
    public ToolCatalog(EffectKinds kinds, Policy policy, LiveTools live) {
        this.kinds = Objects.requireNonNull(kinds, "kinds");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.live = Objects.requireNonNull(live, "live");
        for (EffectKind<?, ?, ?> kind : kinds.all()) {
            kind.tools(policy, live).forEach(this::add);
        }
        add(targets(policy));
        for (EffectKind<?, ?, ?> kind : kinds.all()) {
            for (Tool t : kind.withheldTools(policy, live)) {
                if (tools.containsKey(t.name()) || withheld.put(t.name(), t) != null) {
                    throw new IllegalArgumentException("tool " + t.name() + " is offered twice");
                }
                validators.put(t.name(), new ArgumentValidator(t.inputSchema()));
            }
        }
    }

    /** The same policy with a newer run-time listing. */
    public ToolCatalog withLive(LiveTools newer) {
        return new ToolCatalog(kinds, policy, newer);
    }

    public Policy policy() {
        return policy;
    }

    public LiveTools live() {
        return live;
    }

    /** The kinds of effect this catalog presents, in registration order. */
    public EffectKinds kinds() {
        return kinds;
    }

    private void add(Tool tool) {
        if (tools.put(tool.name(), tool) != null) {
            throw new IllegalArgumentException("tool " + tool.name() + " is offered twice");
        }
        validators.put(tool.name(), new ArgumentValidator(tool.inputSchema()));
    }

    /** A listed tool, or a withheld one (callable, so that its refusal is decided and journaled). */
    public Optional<Tool> find(String name) {
        Tool t = tools.get(name);
        return Optional.ofNullable(t != null ? t : withheld.get(name));
    }

    public List<Tool> tools() {
        return List.copyOf(tools.values());
    }

    public ArrayNode describeAll() {
        ArrayNode list = JSON.arrayNode();
        tools.values().forEach(t -> list.add(t.describe()));
        return list;
    }

    /** Validates {@code arguments} against the tool's schema, then binds them. */
    public Binding bind(Tool tool, JsonNode arguments) {
        Optional<Binding.Invalid> invalid = validators.get(tool.name()).validate(arguments);
        if (invalid.isPresent()) {
            return invalid.get();
        }
        return tool.binder().apply(arguments);
    }

    // ---- postern_targets ----

    private Tool targets(Policy policy) {
        ObjectNode in = objectSchema();
        in.putObject("properties");
        ObjectNode out = objectSchema();
        ObjectNode o = out.putObject("properties");
        ArrayNode required = out.putArray("required");
        for (EffectKind<?, ?, ?> kind : kinds.all()) {
            o.putObject(kind.targetsField()).put("type", "array").putObject("items").put("type", "object");
            required.add(kind.targetsField());
        }
        // The policy is fixed for the catalog's life, so is the answer: rendered once, shared by every call.
        Binding.Answer answer = new Binding.Answer(new FixedResult(describePolicy(policy)));
        String allowed = EffectKinds.inWords(kinds.all().stream().map(EffectKind::allowancesSummary).toList());
        return new Tool(POSTERN_TARGETS, "Allowed targets",
                "List what this gateway allows: " + allowed + ". Read-only; shows no secrets.",
                in, out, annotations(true, false, true, false), args -> answer);
    }

    /** What an agent may know of the policy, kind by kind: no credentials, no addresses of SSH hosts. */
    ObjectNode describePolicy(Policy policy) {
        ObjectNode root = JSON.objectNode();
        for (EffectKind<?, ?, ?> kind : kinds.all()) {
            root.set(kind.targetsField(), kind.describeForAgent(policy, live));
        }
        return root;
    }

    // ---- helpers ----

    static ObjectNode objectSchema() {
        ObjectNode n = JSON.objectNode();
        n.put("type", "object");
        n.put("additionalProperties", false);
        return n;
    }

    static ObjectNode stringMap(String description, int maxValue) {
        ObjectNode n = JSON.objectNode();
        n.put("type", "object").put("maxProperties", MAX_ENTRIES).put("description", description);
        n.putObject("additionalProperties").put("type", "string").put("maxLength", maxValue);
        return n;
    }

    static ObjectNode annotations(boolean readOnly, boolean destructive, boolean idempotent, boolean openWorld) {
        ObjectNode n = JSON.objectNode();
        n.put("readOnlyHint", readOnly);
        n.put("destructiveHint", destructive);
        n.put("idempotentHint", idempotent);
        n.put("openWorldHint", openWorld);
        return n;
    }

    static Map<String, String> pairs(JsonNode node) {
        Map<String, String> m = new LinkedHashMap<>();
        if (node != null) {
            node.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().textValue()));
        }
        return m;
    }
}
