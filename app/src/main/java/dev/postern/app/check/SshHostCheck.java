package dev.postern.app.check;

import dev.postern.app.config.GatewayConfig;
import dev.postern.executor.ssh.SshActionExecutor;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The deep checks of {@code ssh_exec} hosts: each known_hosts file present and naming its host, each
 * parameter that could reach the remote program as an option, each address resolvable (SSH hosts have
 * no private-address rule); with {@code --connect}, the host key each host offers, read through
 * {@link SshActionExecutor#probeHostKey} and compared with its pin. Logs in nowhere. Stateless.
 */
public final class SshHostCheck implements KindCheck {
    /** Strings an option-shaped argument could take; a pattern that matches one of them admits options. */
    private static final List<String> OPTION_PROBES = List.of("-", "-x", "-rf", "--x", "--help", "-1");

    @Override
    public Class<? extends Allowance> allowanceType() {
        return SshHost.class;
    }

    @Override
    public List<Finding> local(GatewayConfig config) {
        List<Finding> out = new ArrayList<>(knownHostsFiles(config));
        out.addAll(optionShapedParameters(config));
        return out;
    }

    /** Each SSH host's known_hosts file: present and readable (a missing one rejects every host key). */
    private static List<Finding> knownHostsFiles(GatewayConfig config) {
        List<Finding> out = new ArrayList<>();
        List<SshHost> hosts = config.policy().allowances(SshHost.class);
        for (int i = 0; i < hosts.size(); i++) {
            SshHost h = hosts.get(i);
            int index = i;
            h.knownHosts().ifPresent(file -> {
                String trustHost = " (postern trust-host --config " + config.file() + ' ' + h.name() + " prints the line to put there)";
                if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
                    out.add(Finding.error("known-hosts-missing", "/ssh/hosts/" + index + "/knownHosts", "host " + h.name()
                            + ": " + file + " is not a readable file, so every host key would be rejected" + trustHost));
                } else if (!KnownHosts.namesHost(file, h.address(), h.port())) {
                    out.add(Finding.warning("known-hosts-lacks-host", "/ssh/hosts/" + index + "/knownHosts", "host " + h.name()
                            + ": " + file + " has no line for " + KnownHosts.pattern(h.address(), h.port())
                            + ", so its key would be rejected" + trustHost));
                }
            });
        }
        return out;
    }

    /**
     * Each SSH parameter that begins an argv element and may take a value starting with {@code -}:
     * the remote program would read it as an option. A string parameter needs a {@code pattern} or
     * {@code enum} that rules that out; an integer parameter, a minimum of 0 or more.
     */
    private static List<Finding> optionShapedParameters(GatewayConfig config) {
        List<Finding> out = new ArrayList<>();
        List<SshHost> hosts = config.policy().allowances(SshHost.class);
        for (int i = 0; i < hosts.size(); i++) {
            SshHost h = hosts.get(i);
            for (int j = 0; j < h.commands().size(); j++) {
                SshCommandSpec c = h.commands().get(j);
                for (Map.Entry<String, ParamSpec> p : new TreeMap<>(c.params()).entrySet()) {
                    String why = optionShaped(p.getValue());
                    if (why != null && beginsAnArgument(c, p.getKey())) {
                        out.add(Finding.warning("param-may-start-with-dash", "/ssh/hosts/" + i + "/commands/" + j + "/params/" + p.getKey(),
                                "host " + h.name() + ", command " + c.name() + ": {" + p.getKey() + "} " + why
                                        + ", and " + c.argv().get(0) + " would read such a value as an option; "
                                        + (p.getValue() instanceof ParamSpec.IntegerParam ? "set \"minimum\" to 0 or more"
                                        : "add a pattern such as \"^[A-Za-z0-9_/][A-Za-z0-9_./-]*$\"")));
                    }
                }
            }
        }
        return out;
    }

    /** Why a parameter admits a value starting with "-", or null when it does not. */
    static String optionShaped(ParamSpec spec) {
        if (spec instanceof ParamSpec.IntegerParam i) {
            return i.minimum() < 0 ? "may be negative (minimum " + i.minimum() + ")" : null;
        }
        ParamSpec.StringParam s = (ParamSpec.StringParam) spec;
        if (s.allowed().isPresent()) {
            return null; // the operator listed every value, a leading "-" included if one has it
        }
        if (s.pattern().isEmpty()) {
            return "is a string with no pattern or enum";
        }
        Pattern pattern = s.pattern().get();
        for (String probe : OPTION_PROBES) {
            if (pattern.matcher(probe).matches()) {
                return "has a pattern that accepts \"" + probe + "\"";
            }
        }
        return null;
    }

    /** Whether {@code {name}} starts some argv element after the program name (so the value starts that argument). */
    private static boolean beginsAnArgument(SshCommandSpec c, String name) {
        for (int k = 1; k < c.argv().size(); k++) {
            if (c.argv().get(k).startsWith("{" + name + "}")) {
                return true;
            }
        }
        return c.argv().get(0).startsWith("{" + name + "}");
    }

    @Override
    public List<Finding> addresses(GatewayConfig config, HostNames names) {
        List<Finding> out = new ArrayList<>();
        List<SshHost> hosts = config.policy().allowances(SshHost.class);
        for (int i = 0; i < hosts.size(); i++) {
            SshHost h = hosts.get(i);
            out.addAll(AddressFindings.resolvable(h.address(), names, "/ssh/hosts/" + i + "/address", "host " + h.name()));
        }
        return out;
    }

    @Override
    public List<Finding> connect(GatewayConfig config) {
        SshProbeLogging.quiet();
        List<Finding> out = new ArrayList<>();
        List<SshHost> hosts = config.policy().allowances(SshHost.class);
        for (int i = 0; i < hosts.size(); i++) {
            SshHost h = hosts.get(i);
            String where = "/ssh/hosts/" + i;
            SshActionExecutor.OfferedKey key;
            try {
                key = SshActionExecutor.probeHostKey(h.address(), h.port(), h.timeout());
            } catch (IOException e) {
                out.add(Finding.error("ssh-unreachable", where + "/address", "host " + h.name() + ": " + e.getMessage()));
                continue;
            }
            if (!pinned(h, key)) {
                out.add(Finding.error("host-key-not-pinned", where, "host " + h.name() + " offered " + key.fingerprint()
                        + ", which " + h.hostKeyFingerprint().map(f -> "is not the pinned " + f)
                        .orElseGet(() -> "the known_hosts file " + h.knownHosts().orElseThrow() + " does not list for it")
                        + "; the gateway would refuse it (postern trust-host shows the line; check it on the host)"));
            }
        }
        return out;
    }

    /** Whether the offered key is the pinned fingerprint, or listed for this host in its known_hosts file. */
    private static boolean pinned(SshHost h, SshActionExecutor.OfferedKey key) {
        if (h.hostKeyFingerprint().isPresent()) {
            return h.hostKeyFingerprint().get().replaceAll("=+$", "").equals(key.fingerprint());
        }
        String[] offered = key.knownHostsLine().split(" ", 2);
        return KnownHosts.lists(h.knownHosts().orElseThrow(), offered[0], offered[1]);
    }
}
