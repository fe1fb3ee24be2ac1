package dev.postern.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.postern.policy.model.ArgNarrowing;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.model.UpstreamTool;
import dev.postern.protocol.json.JsonValues;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Reads the {@code mcp} section (DESIGN §4 "Upstream MCP servers") into {@link UpstreamServer}
 * allowances: the schema has checked the shapes; this resolves {@code cwd} against the config's
 * directory (it must exist), checks that every credential named exists, and builds the kernel records,
 * whose own checks run too. Starts nothing: whether the command runs and lists its tools is
 * {@code check-config --deep --connect}'s business. Stateless.
 */
public final class UpstreamSection implements KindSection<UpstreamServer> {
    static final String POINTER = "/mcp/servers";

    @Override
    public Map<String, ApprovalChannel> approvalChannels(JsonNode entries) {
        Map<String, ApprovalChannel> out = new java.util.LinkedHashMap<>();
        entries.forEach(s -> s.path("tools").forEach(t -> Fields.confirmChannel(t.path("confirm")).ifPresent(channel ->
                out.put("mcp.tool:" + s.get("name").textValue() + "." + t.get("name").textValue(), channel))));
        return out;
    }

    @Override
    public String pointer() {
        return POINTER;
    }

    @Override
    public Class<UpstreamServer> allowanceType() {
        return UpstreamServer.class;
    }

    @Override
    public String schemaFragment() {
        return "/dev/postern/app/config/mcp.schema.json";
    }

    @Override
    public List<String> pathFields() {
        return List.of("/cwd");
    }

    @Override
    public UpstreamServer entry(Reading reading, String at, JsonNode s) throws ConfigException {
        Path cwd = s.has("cwd") ? reading.resolve(s.get("cwd")) : reading.dir();
        if (!Files.isDirectory(cwd)) {
            throw reading.error(at + "/cwd", "an existing directory, but " + cwd + " is not one");
        }
        List<String> command = new ArrayList<>();
        s.get("command").forEach(a -> command.add(a.textValue()));
        String program = command.get(0);
        if (program.contains("/") && !program.startsWith("/")) {
            throw reading.error(at + "/command/0", "an absolute path or a bare name found on PATH, not a relative path");
        }
        Map<String, UpstreamServer.EnvValue> env = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> vars = s.path("env").fields();
        while (vars.hasNext()) {
            Map.Entry<String, JsonNode> e = vars.next();
            JsonNode v = e.getValue();
            env.put(e.getKey(), v.isTextual() ? new UpstreamServer.EnvValue.Literal(v.textValue())
                    : new UpstreamServer.EnvValue.FromCredential(
                            reading.credential(at + "/env/" + e.getKey() + "/credential", v.get("credential"))));
        }
        List<UpstreamTool> tools = new ArrayList<>();
        JsonNode ts = s.get("tools");
        for (int i = 0; i < ts.size(); i++) {
            tools.add(tool(reading, at + "/tools/" + i, ts.get(i)));
        }
        try {
            return new UpstreamServer(s.get("name").textValue(), command, cwd.toString(), env,
                    Duration.ofMillis(s.path("startTimeoutMs").asLong(ConfigDefaults.MCP_START_TIMEOUT_MS)),
                    Duration.ofMillis(s.path("timeoutMs").asLong(ConfigDefaults.MCP_TIMEOUT_MS)),
                    s.path("maxResponseBytes").asLong(ConfigDefaults.MCP_MAX_RESPONSE_BYTES),
                    tools, Fields.rateLimit(s));
        } catch (IllegalArgumentException e) {
            throw reading.error(at, e.getMessage());
        }
    }

    private static UpstreamTool tool(Reading reading, String at, JsonNode t) throws ConfigException {
        Map<String, ArgNarrowing> args = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = t.path("args").fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode n = e.getValue();
            try {
                args.put(e.getKey(), new ArgNarrowing(
                        Optional.ofNullable(n.get("enum")).map(list -> {
                            List<dev.postern.policy.json.JsonValue> values = new ArrayList<>();
                            list.forEach(v -> values.add(JsonValues.of(v)));
                            return values;
                        }),
                        Optional.ofNullable(n.get("const")).map(JsonValues::of),
                        Optional.ofNullable(n.get("pattern")).map(p -> ArgNarrowing.compile(p.textValue())),
                        n.has("maxLength") ? OptionalInt.of(n.get("maxLength").intValue()) : OptionalInt.empty(),
                        Optional.ofNullable(n.get("minimum")).map(JsonNode::decimalValue),
                        Optional.ofNullable(n.get("maximum")).map(JsonNode::decimalValue)));
            } catch (IllegalArgumentException ex) {
                throw reading.error(at + "/args/" + e.getKey(), ex.getMessage());
            }
        }
        try {
            return new UpstreamTool(t.get("name").textValue(), t.get("pin").textValue(),
                    t.has("confirm") ? Fields.confirmed(t.get("confirm")) : ConfigDefaults.MCP_TOOL_CONFIRM, args);
        } catch (IllegalArgumentException e) {
            throw reading.error(at, e.getMessage());
        }
    }
}
