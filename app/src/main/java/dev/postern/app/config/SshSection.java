package dev.postern.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.SshAuth;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.TypedTool;
import dev.postern.policy.model.SshHost;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads the {@code ssh} section (DESIGN §4) into {@link SshHost} allowances: exactly one of identity or
 * password, each a defined credential, commands and their params built by the kernel. Every host needs a
 * pin, except in {@link #lettingUnpinned}, what {@code trust-host} reads with. Immutable.
 */
public final class SshSection implements KindSection<SshHost> {
    static final String POINTER = "/ssh/hosts";

    private final Optional<String> mayLackPin;

    /** The section as the gateway reads it: every host pinned. */
    public SshSection() {
        this(Optional.empty());
    }

    private SshSection(Optional<String> mayLackPin) {
        this.mayLackPin = Objects.requireNonNull(mayLackPin, "mayLackPin");
    }

    /**
     * The section as {@code trust-host} reads it: the host named {@code hostName} may lack both
     * {@code knownHosts} and {@code hostKeyFingerprint}; such a host is left out of the allowances (its
     * credentials and commands are still checked) and found with {@link #unpinned}.
     */
    static SshSection lettingUnpinned(String hostName) {
        return new SshSection(Optional.of(hostName));
    }

    @Override
    public Map<String, ApprovalChannel> approvalChannels(JsonNode entries) {
        Map<String, ApprovalChannel> out = new java.util.LinkedHashMap<>();
        entries.forEach(h -> h.path("commands").forEach(c -> Fields.confirmChannel(c.path("confirm")).ifPresent(channel ->
                out.put("ssh.command:" + h.get("name").textValue() + "." + c.get("name").textValue(), channel))));
        return out;
    }

    @Override
    public String pointer() {
        return POINTER;
    }

    @Override
    public Class<SshHost> allowanceType() {
        return SshHost.class;
    }

    @Override
    public String schemaFragment() {
        return "/dev/postern/app/config/ssh.schema.json";
    }

    @Override
    public List<String> pathFields() {
        return List.of("/knownHosts");
    }

    @Override
    public List<SshHost> read(Reading reading, JsonNode entries) throws ConfigException {
        List<SshHost> hosts = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            JsonNode h = entries.get(i);
            String at = POINTER + "/" + i;
            if (lacksPinItMayLack(h)) {
                // No host is built (it has no pin), but its credentials and commands are checked as for any host.
                auth(reading, at, h);
                commands(reading, at, h);
            } else {
                hosts.add(entry(reading, at, h));
            }
        }
        return hosts;
    }

    /** The host this section lets lack a pin, when {@code root} (the whole config) has it without one. */
    Optional<ConfigLoader.UnpinnedHost> unpinned(JsonNode root) {
        for (JsonNode h : root.at(POINTER)) {
            if (lacksPinItMayLack(h)) {
                return Optional.of(new ConfigLoader.UnpinnedHost(h.get("name").textValue(), h.get("address").textValue(),
                        h.path("port").asInt(ConfigDefaults.SSH_PORT),
                        Duration.ofSeconds(h.path("timeoutSeconds").asLong(ConfigDefaults.SSH_TIMEOUT_SECONDS))));
            }
        }
        return Optional.empty();
    }

    private boolean lacksPinItMayLack(JsonNode h) {
        return mayLackPin.isPresent() && mayLackPin.get().equals(h.get("name").textValue())
                && !h.has("knownHosts") && !h.has("hostKeyFingerprint");
    }

    @Override
    public SshHost entry(Reading reading, String at, JsonNode h) throws ConfigException {
        SshAuth auth = auth(reading, at, h);
        List<SshCommandSpec> commands = commands(reading, at, h);
        try {
            return new SshHost(
                    h.get("name").textValue(),
                    h.get("address").textValue(),
                    h.path("port").asInt(ConfigDefaults.SSH_PORT),
                    h.get("user").textValue(),
                    auth,
                    Optional.ofNullable(h.get("knownHosts")).map(reading::resolve),
                    Optional.ofNullable(h.get("hostKeyFingerprint")).map(JsonNode::textValue),
                    Duration.ofSeconds(h.path("timeoutSeconds").asLong(ConfigDefaults.SSH_TIMEOUT_SECONDS)),
                    h.path("maxOutputBytes").asLong(ConfigDefaults.SSH_MAX_OUTPUT_BYTES),
                    commands,
                    Fields.rateLimit(h));
        } catch (IllegalArgumentException e) {
            throw reading.error(at, e.getMessage());
        }
    }

    private static SshAuth auth(Reading reading, String at, JsonNode h) throws ConfigException {
        if (h.has("identity") == h.has("password")) {
            throw reading.error(at, "exactly one of \"identity\" or \"password\"");
        }
        if (h.has("identity")) {
            Optional<CredentialRef> passphrase = h.has("passphrase")
                    ? Optional.of(reading.credential(at + "/passphrase", h.get("passphrase")))
                    : Optional.empty();
            return new SshAuth.Key(reading.credential(at + "/identity", h.get("identity")), passphrase);
        }
        if (h.has("passphrase")) {
            throw reading.error(at + "/passphrase", "no passphrase with password authentication");
        }
        return new SshAuth.Password(reading.credential(at + "/password", h.get("password")));
    }

    private static List<SshCommandSpec> commands(Reading reading, String at, JsonNode h) throws ConfigException {
        List<SshCommandSpec> commands = new ArrayList<>();
        JsonNode cs = h.get("commands");
        for (int i = 0; i < cs.size(); i++) {
            commands.add(command(reading, at + "/commands/" + i, cs.get(i)));
        }
        return commands;
    }

    private static SshCommandSpec command(Reading reading, String at, JsonNode c) throws ConfigException {
        Map<String, ParamSpec> params = new LinkedHashMap<>();
        var it = c.path("params").fields();
        while (it.hasNext()) {
            var e = it.next();
            JsonNode p = e.getValue();
            String pat = at + "/params/" + e.getKey();
            try {
                if (p.get("type").textValue().equals("integer")) {
                    params.put(e.getKey(), new ParamSpec.IntegerParam(p.get("minimum").asLong(), p.get("maximum").asLong()));
                } else {
                    params.put(e.getKey(), Fields.stringParam(reading, pat, p));
                }
            } catch (IllegalArgumentException ex) {
                throw reading.error(pat, ex.getMessage());
            }
        }
        Optional<TypedTool> tool = Fields.typedTool(reading, at, c);
        try {
            return new SshCommandSpec(c.get("name").textValue(), Fields.strings(c.get("argv")), params,
                    c.has("confirm") ? Fields.confirmed(c.get("confirm")) : ConfigDefaults.SSH_COMMAND_CONFIRM, tool);
        } catch (IllegalArgumentException e) {
            throw reading.error(at, e.getMessage());
        }
    }
}
