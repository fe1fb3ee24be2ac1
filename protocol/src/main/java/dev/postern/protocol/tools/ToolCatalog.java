package dev.postern.protocol.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.action.HeaderField;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.action.QueryParameter;
import dev.postern.policy.action.SshArgument;
import dev.postern.policy.action.SshCommandAction;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The tools a policy offers, in a fixed order: {@code http_request} when HTTP targets exist,
 * {@code ssh_exec} when SSH hosts exist, and always {@code postern_targets}. Validates arguments
 * against each tool's input schema before its binder runs. Immutable; thread-safe.
 */
public final class ToolCatalog {
    static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    public static final String HTTP_REQUEST = "http_request";
    public static final String SSH_EXEC = "ssh_exec";
    public static final String POSTERN_TARGETS = "postern_targets";

    /** Bounds on every string and map of {@code http_request}. */
    static final int MAX_URL = HttpRequestAction.MAX_URL_LENGTH;
    static final int MAX_BODY = 1_048_576;
    static final int MAX_ENTRIES = 64;
    static final int MAX_VALUE = 8192;

    private final Map<String, Tool> tools = new LinkedHashMap<>();
    private final Map<String, ArgumentValidator> validators = new LinkedHashMap<>();

    public ToolCatalog(Policy policy) {
        if (!policy.httpTargets().isEmpty()) {
            add(httpRequest());
        }
        if (!policy.sshHosts().isEmpty()) {
            add(sshExec(policy));
        }
        add(targets(policy));
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

    // ---- http_request ----

    private static Tool httpRequest() {
        ObjectNode in = objectSchema();
        ObjectNode p = in.putObject("properties");
        p.putObject("method").put("type", "string").put("pattern", "^[A-Z]{1,16}$")
                .put("description", "HTTP method, upper case");
        p.putObject("url").put("type", "string").put("minLength", 1).put("maxLength", MAX_URL)
                .put("description", "Absolute http(s) URL under a configured target");
        p.set("query", stringMap("Extra query parameters, encoded by Postern", 4096)
                .set("propertyNames", JSON.objectNode().put("minLength", 1).put("maxLength", 256)));
        p.set("headers", stringMap("Request headers the target allows", MAX_VALUE)
                .set("propertyNames", JSON.objectNode().put("pattern", "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$")));
        p.putObject("body").put("type", "string").put("maxLength", MAX_BODY).put("description", "Request body, as text");
        in.putArray("required").add("method").add("url");

        ObjectNode out = objectSchema();
        ObjectNode o = out.putObject("properties");
        o.putObject("target").put("type", "string");
        o.putObject("status").put("type", "integer");
        ObjectNode header = JSON.objectNode().put("type", "object").put("additionalProperties", false);
        header.putObject("properties").<ObjectNode>set("name", JSON.objectNode().put("type", "string"))
                .set("value", JSON.objectNode().put("type", "string"));
        header.putArray("required").add("name").add("value");
        o.putObject("headers").put("type", "array").set("items", header);
        o.putObject("body").put("type", "string");
        o.putObject("bodyEncoding").put("type", "string").putArray("enum").add("text").add("base64");
        o.putObject("truncated").put("type", "boolean");
        out.putArray("required").add("target").add("status").add("headers").add("body").add("bodyEncoding").add("truncated");

        return new Tool(HTTP_REQUEST, "HTTP request",
                "Send one HTTP request to a target the operator allows. Postern adds credentials itself; "
                        + "redirects are returned, not followed. Call postern_targets to see what is allowed.",
                in, out, annotations(false, true, false, true), ToolCatalog::bindHttp);
    }

    private static Binding bindHttp(JsonNode args) {
        List<QueryParameter> query = new ArrayList<>();
        pairs(args.get("query")).forEach((k, v) -> query.add(new QueryParameter(k, v)));
        List<HeaderField> headers = new ArrayList<>();
        pairs(args.get("headers")).forEach((k, v) -> headers.add(new HeaderField(k, v)));
        Optional<String> body = Optional.ofNullable(args.get("body")).map(JsonNode::textValue);
        return new Binding.ToAction(new HttpRequestAction(
                args.get("method").textValue(), args.get("url").textValue(), query, headers, body));
    }

    // ---- ssh_exec ----

    private static Tool sshExec(Policy policy) {
        ObjectNode in = objectSchema();
        ObjectNode p = in.putObject("properties");
        ArrayNode hosts = p.putObject("host").put("type", "string").put("description", "A configured host").putArray("enum");
        TreeSet<String> commands = new TreeSet<>();
        StringBuilder help = new StringBuilder("Run one configured command on one configured host. Commands: ");
        for (SshHost h : policy.sshHosts()) {
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
        return new Tool(SSH_EXEC, "SSH command", help.toString().trim(), in, out,
                annotations(false, true, false, true), ToolCatalog::bindSsh);
    }

    private static Binding bindSsh(JsonNode args) {
        Map<String, SshArgument> values = new LinkedHashMap<>();
        JsonNode a = args.get("args");
        if (a != null) {
            Iterator<Map.Entry<String, JsonNode>> it = a.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode v = e.getValue();
                if (v.isTextual()) {
                    values.put(e.getKey(), new SshArgument.Text(v.textValue()));
                } else if (v.isIntegralNumber() && v.canConvertToLong()) {
                    values.put(e.getKey(), new SshArgument.Whole(v.longValue()));
                } else {
                    return new Binding.Invalid("/args/" + SchemaErrors.escape(e.getKey()),
                            "must be a string or an integer within 64 bits");
                }
            }
        }
        return new Binding.ToAction(new SshCommandAction(args.get("host").textValue(), args.get("command").textValue(), values));
    }

    // ---- postern_targets ----

    private static Tool targets(Policy policy) {
        ObjectNode in = objectSchema();
        in.putObject("properties");
        ObjectNode out = objectSchema();
        ObjectNode o = out.putObject("properties");
        o.putObject("http").put("type", "array").putObject("items").put("type", "object");
        o.putObject("ssh").put("type", "array").putObject("items").put("type", "object");
        out.putArray("required").add("http").add("ssh");
        ObjectNode answer = describePolicy(policy);
        return new Tool(POSTERN_TARGETS, "Allowed targets",
                "List what this gateway allows: HTTP targets (origin, methods, path prefixes, headers) and SSH hosts "
                        + "with their commands and argument rules. Read-only; shows no secrets.",
                in, out, annotations(true, false, true, false), args -> new Binding.Answer(answer.deepCopy()));
    }

    /** What an agent may know of the policy: no credentials, no addresses of SSH hosts. */
    static ObjectNode describePolicy(Policy policy) {
        ObjectNode root = JSON.objectNode();
        ArrayNode http = root.putArray("http");
        for (HttpTarget t : policy.httpTargets()) {
            ObjectNode n = http.addObject();
            n.put("name", t.name());
            n.put("baseUrl", t.origin().toUrl());
            t.methods().stream().sorted().forEach(n.putArray("methods")::add);
            t.pathPrefixes().forEach(n.putArray("pathPrefixes")::add);
            t.headers().stream().sorted().forEach(n.putArray("headers")::add);
            n.put("authenticated", t.auth().isPresent());
            n.put("timeoutMs", t.timeout().toMillis());
            n.put("maxResponseBytes", t.maxResponseBytes());
            n.put("onOversizeResponse", t.onOversizeResponse().name().toLowerCase(java.util.Locale.ROOT));
        }
        ArrayNode ssh = root.putArray("ssh");
        for (SshHost h : policy.sshHosts()) {
            ObjectNode n = ssh.addObject();
            n.put("name", h.name());
            ArrayNode commands = n.putArray("commands");
            for (SshCommandSpec c : h.commands()) {
                ObjectNode cn = commands.addObject();
                cn.put("name", c.name());
                c.argv().forEach(cn.putArray("argv")::add);
                ObjectNode params = cn.putObject("params");
                new java.util.TreeMap<>(c.params()).forEach((name, spec) -> params.set(name, describe(spec)));
            }
        }
        return root;
    }

    private static ObjectNode describe(ParamSpec spec) {
        ObjectNode n = JSON.objectNode();
        if (spec instanceof ParamSpec.IntegerParam i) {
            n.put("type", "integer").put("minimum", i.minimum()).put("maximum", i.maximum());
        } else {
            ParamSpec.StringParam s = (ParamSpec.StringParam) spec;
            n.put("type", "string").put("maxLength", s.maxLength());
            s.pattern().ifPresent(p -> n.put("pattern", p.pattern()));
            s.allowed().ifPresent(values -> values.forEach(n.putArray("enum")::add));
        }
        return n;
    }

    // ---- helpers ----

    private static ObjectNode objectSchema() {
        ObjectNode n = JSON.objectNode();
        n.put("type", "object");
        n.put("additionalProperties", false);
        return n;
    }

    private static ObjectNode stringMap(String description, int maxValue) {
        ObjectNode n = JSON.objectNode();
        n.put("type", "object").put("maxProperties", MAX_ENTRIES).put("description", description);
        n.putObject("additionalProperties").put("type", "string").put("maxLength", maxValue);
        return n;
    }

    private static ObjectNode annotations(boolean readOnly, boolean destructive, boolean idempotent, boolean openWorld) {
        ObjectNode n = JSON.objectNode();
        n.put("readOnlyHint", readOnly);
        n.put("destructiveHint", destructive);
        n.put("idempotentHint", idempotent);
        n.put("openWorldHint", openWorld);
        return n;
    }

    private static Map<String, String> pairs(JsonNode node) {
        Map<String, String> m = new LinkedHashMap<>();
        if (node != null) {
            node.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().textValue()));
        }
        return m;
    }
}
