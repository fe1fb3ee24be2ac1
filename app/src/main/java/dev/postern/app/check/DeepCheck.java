package dev.postern.app.check;

import dev.postern.app.config.CredentialSource;
import dev.postern.app.config.GatewayConfig;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * The checks of {@code check-config --deep} that need no connection: what a call would need at
 * call time and what the config only allows by accident. One method per finding kind; each returns
 * its findings and changes nothing (the journal probe creates and deletes one file). Messages name
 * credentials and variables, never a secret's value.
 */
public final class DeepCheck {
    /** Strings an option-shaped argument could take; a pattern that matches one of them admits options. */
    private static final List<String> OPTION_PROBES = List.of("-", "-x", "-rf", "--x", "--help", "-1");
    private static final Set<PosixFilePermission> NOT_PRIVATE = EnumSet.of(
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private final GatewayConfig config;
    private final UnaryOperator<String> environment;

    public DeepCheck(GatewayConfig config) {
        this(config, System::getenv);
    }

    DeepCheck(GatewayConfig config, UnaryOperator<String> environment) {
        this.config = config;
        this.environment = environment;
    }

    /** Which host names {@link #privateAddresses} resolves. */
    public enum Names {
        /** Only literal addresses and {@code localhost} (no DNS query: quick enough for start-up). */
        LITERAL,
        /** Only names that need a DNS query. */
        DNS,
        /** Both. */
        ALL;

        boolean covers(String host) {
            boolean literal = host.equalsIgnoreCase("localhost") || host.contains(":") || host.matches("[0-9.]+");
            return this == ALL || (this == LITERAL) == literal;
        }
    }

    /** Every local check, the journal's writability included: what {@code check-config --deep} runs. */
    public List<Finding> all() {
        List<Finding> out = new ArrayList<>();
        out.addAll(credentials());
        out.addAll(knownHostsFiles());
        out.addAll(journalWritable());
        out.addAll(privateAddresses(Names.ALL));
        out.addAll(optionShapedParameters());
        return out;
    }

    /**
     * The checks {@code mcp-stdio} runs before it serves, as warnings: no journal probe (opening the
     * journal is the real test there) and no DNS query (see {@link Names}; the caller may run
     * {@code privateAddresses(Names.DNS)} in the background).
     */
    public List<Finding> atStart() {
        List<Finding> out = new ArrayList<>();
        out.addAll(credentials());
        out.addAll(knownHostsFiles());
        out.addAll(privateAddresses(Names.LITERAL));
        out.addAll(optionShapedParameters());
        return out;
    }

    /** Each credential: its variable set, or its file present, readable, non-empty, private and this user's. */
    List<Finding> credentials() {
        List<Finding> out = new ArrayList<>();
        new TreeMap<>(byName(config.credentials())).forEach((name, source) -> {
            String where = "/credentials/" + name;
            if (source instanceof CredentialSource.Env env) {
                String value = environment.apply(env.variable());
                if (value == null || value.isEmpty()) {
                    out.add(Finding.error("credential-env-unset", where, "environment variable " + env.shownName()
                            + " is not set in the gateway's environment (set it in the client's \"env\" or the service unit)"));
                }
                return;
            }
            out.addAll(credentialFile(where, ((CredentialSource.File) source).path()));
        });
        return out;
    }

    private static List<Finding> credentialFile(String where, Path file) {
        List<Finding> out = new ArrayList<>();
        if (!Files.exists(file)) {
            out.add(Finding.error("credential-file-missing", where, "file " + file + " does not exist"));
            return out;
        }
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            out.add(Finding.error("credential-file-unreadable", where, file + " is not a file this user can read"));
            return out;
        }
        try {
            if (Files.size(file) == 0) {
                out.add(Finding.error("credential-file-unreadable", where, "file " + file + " is empty"));
            }
            if (Files.getFileStore(file).supportsFileAttributeView("posix")) {
                Set<PosixFilePermission> open = EnumSet.noneOf(PosixFilePermission.class);
                open.addAll(Files.getPosixFilePermissions(file));
                open.retainAll(NOT_PRIVATE);
                if (!open.isEmpty()) {
                    out.add(Finding.error("credential-file-not-private", where, "file " + file + " is open to group or others "
                            + open + "; the gateway refuses it at call time (chmod 600 " + file + ")"));
                }
                String owner = Files.getOwner(file).getName();
                String me = System.getProperty("user.name");
                if (!owner.equals(me)) {
                    out.add(Finding.warning("credential-file-foreign-owner", where, "file " + file + " is owned by " + owner
                            + ", not by " + me + " who runs the gateway"));
                }
            }
        } catch (IOException e) {
            out.add(Finding.error("credential-file-unreadable", where, "cannot inspect " + file + " (" + e.getClass().getSimpleName() + ")"));
        }
        return out;
    }

    /** Each SSH host's known_hosts file: present and readable (a missing one rejects every host key). */
    List<Finding> knownHostsFiles() {
        List<Finding> out = new ArrayList<>();
        List<SshHost> hosts = config.policy().sshHosts();
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
     * The journal directory: writable by this user, proved by creating and deleting one probe file.
     * A directory that does not exist yet is not created (the gateway creates it on start); then
     * its nearest existing ancestor must be a writable directory.
     */
    public List<Finding> journalWritable() {
        Path dir = config.journalDirectory();
        if (!Files.exists(dir)) {
            Path ancestor = dir.getParent();
            while (ancestor != null && !Files.exists(ancestor)) {
                ancestor = ancestor.getParent();
            }
            if (ancestor == null || !Files.isDirectory(ancestor) || !Files.isWritable(ancestor)) {
                return List.of(Finding.error("journal-not-writable", "/journal/directory", dir + " does not exist and cannot be created"
                        + (ancestor == null ? "" : " (" + ancestor + " is not a writable directory)") + "; the gateway would not start"));
            }
            return List.of();
        }
        Path probe = dir.resolve(".postern-write-probe-" + ProcessHandle.current().pid());
        try {
            Files.deleteIfExists(probe);
            Files.createFile(probe);
            Files.delete(probe);
            return List.of();
        } catch (IOException e) {
            return List.of(Finding.error("journal-not-writable", "/journal/directory", "cannot create a file in " + dir
                    + " (" + e.getClass().getSimpleName() + "); the gateway would not start"));
        }
    }

    /**
     * Each HTTP target's host, resolved now: a loopback, private or link-local address without
     * {@code allowPrivateAddresses} is refused at connect time; an unresolvable name is a warning
     * (DNS may differ where the gateway runs). SSH hosts have no such rule; only their names are resolved.
     */
    public List<Finding> privateAddresses(Names names) {
        List<Finding> out = new ArrayList<>();
        List<HttpTarget> targets = config.policy().httpTargets();
        for (int i = 0; i < targets.size(); i++) {
            HttpTarget t = targets.get(i);
            String where = "/http/targets/" + i + "/baseUrl";
            if (!names.covers(t.origin().host())) {
                continue;
            }
            try {
                for (InetAddress a : InetAddress.getAllByName(t.origin().host())) {
                    if (!t.allowPrivateAddresses() && !isPublic(a)) {
                        out.add(Finding.error("private-address-without-opt-in", where, "target " + t.name() + ": "
                                + t.origin().host() + (t.origin().host().equals(a.getHostAddress()) ? " is" : " resolves to "
                                + a.getHostAddress() + ",") + " a non-public address; calls are refused"
                                + " at connect time unless the target says \"allowPrivateAddresses\": true"));
                        break;
                    }
                }
            } catch (UnknownHostException e) {
                out.add(Finding.warning("address-unresolved", where, "target " + t.name() + ": " + t.origin().host()
                        + " does not resolve here"));
            }
        }
        List<SshHost> hosts = config.policy().sshHosts();
        for (int i = 0; i < hosts.size(); i++) {
            SshHost h = hosts.get(i);
            if (!names.covers(unbracketed(h.address()))) {
                continue;
            }
            try {
                InetAddress.getAllByName(unbracketed(h.address()));
            } catch (UnknownHostException e) {
                out.add(Finding.warning("address-unresolved", "/ssh/hosts/" + i + "/address", "host " + h.name() + ": "
                        + h.address() + " does not resolve here"));
            }
        }
        return out;
    }

    /**
     * Each SSH parameter that begins an argv element and may take a value starting with {@code -}:
     * the remote program would read it as an option. A string parameter needs a {@code pattern} or
     * {@code enum} that rules that out; an integer parameter, a minimum of 0 or more.
     */
    List<Finding> optionShapedParameters() {
        List<Finding> out = new ArrayList<>();
        List<SshHost> hosts = config.policy().sshHosts();
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

    /** Not loopback, private, link-local, unique-local, carrier-grade NAT or the wildcard; an approximation of the executor's table. */
    static boolean isPublic(InetAddress a) {
        if (a.isLoopbackAddress() || a.isSiteLocalAddress() || a.isLinkLocalAddress() || a.isAnyLocalAddress() || a.isMulticastAddress()) {
            return false;
        }
        byte[] b = a.getAddress();
        if (b.length == 16) {
            return (b[0] & 0xfe) != 0xfc;
        }
        return !((b[0] & 0xff) == 100 && (b[1] & 0xc0) == 64) && (b[0] & 0xff) != 0;
    }

    private static String unbracketed(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    private static Map<String, CredentialSource> byName(Map<CredentialRef, CredentialSource> credentials) {
        Map<String, CredentialSource> out = new TreeMap<>();
        credentials.forEach((ref, source) -> out.put(ref.name(), source));
        return out;
    }

    /** Whether any finding is an error (check-config's exit status). */
    public static boolean anyError(List<Finding> findings) {
        return findings.stream().anyMatch(f -> f.severity() == Finding.Severity.ERROR);
    }
}
