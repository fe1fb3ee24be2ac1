package dev.postern.protocol.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.model.Policy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The tools a policy offers, in a fixed order: each registered kind's tool (in registration order:
 * {@code http_request}, {@code ssh_exec}) when the policy has an allowance of that kind, and always
 * {@code postern_targets}. Validates arguments
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
    private final Map<String, Tool> tools = new LinkedHashMap<>();
    private final Map<String, ArgumentValidator> validators = new LinkedHashMap<>();

    public ToolCatalog(EffectKinds kinds, Policy policy) {
        this.kinds = Objects.requireNonNull(kinds, "kinds");
        for (EffectKind<?, ?, ?> kind : kinds.all()) {
            if (kind.offeredBy(policy)) {
                add(kind.tool(policy));
            }
        }
        add(targets(policy));
    }

    /** The kinds of effect this catalog presents, in registration order. */
    public EffectKinds kinds() {
        return kinds;
    }

    private void add(Tool tool) {
        tools.put(tool.name(), tool);
        validators.put(tool.name(), new ArgumentValidator(tool.inputSchema()));
    }

    public Optional<Tool> find(String name) {
        return Optional.ofNullable(tools.get(name));
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
            root.set(kind.targetsField(), kind.describeForAgent(policy));
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
