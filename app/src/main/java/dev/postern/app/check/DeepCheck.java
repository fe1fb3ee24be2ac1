package dev.postern.app.check;

import dev.postern.app.config.CredentialSource;
import dev.postern.app.config.GatewayConfig;
import dev.postern.app.credentials.CredentialCommand;
import dev.postern.journal.PrivateFiles;
import dev.postern.policy.model.CredentialRef;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * {@code check-config --deep}: what a call would need at call time and what the config only allows
 * by accident. The kind-neutral checks are here (credentials, the journal directory); each registered
 * kind adds its own through its {@link KindCheck}, in registration order. Every check returns its
 * findings and changes nothing (the journal probe creates and deletes one file). Messages name
 * credentials and variables, never a secret's value.
 */
public final class DeepCheck {
    private static final Set<PosixFilePermission> NOT_PRIVATE = EnumSet.of(
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private final GatewayConfig config;
    private final List<KindCheck> kinds;
    private final UnaryOperator<String> environment;

    /** The checks of {@code config}, with {@code kinds} the registered kinds' checks. */
    public DeepCheck(GatewayConfig config, List<KindCheck> kinds) {
        this(config, kinds, System::getenv);
    }

    DeepCheck(GatewayConfig config, List<KindCheck> kinds, UnaryOperator<String> environment) {
        this.config = config;
        this.kinds = List.copyOf(kinds);
        this.environment = environment;
    }

    /** Every check that needs no connection, the journal's writability included: what {@code check-config --deep} runs. */
    public List<Finding> all() {
        List<Finding> out = new ArrayList<>();
        out.addAll(credentials(true));
        out.addAll(journalWritable());
        for (KindCheck kind : kinds) {
            out.addAll(kind.local(config));
            out.addAll(kind.addresses(config, HostNames.ALL));
        }
        return out;
    }

    /**
     * The checks {@code mcp-stdio} runs before it serves, as warnings: no journal probe (opening the
     * journal is the real test there) and no DNS query (see {@link HostNames}; the caller may run
     * {@code addresses(HostNames.DNS)} in the background).
     */
    public List<Finding> atStart() {
        List<Finding> out = new ArrayList<>();
        out.addAll(credentials(false));
        for (KindCheck kind : kinds) {
            out.addAll(kind.local(config));
            out.addAll(kind.addresses(config, HostNames.LITERAL));
        }
        return out;
    }

    /** Every kind's address findings for the names {@code names} covers. */
    public List<Finding> addresses(HostNames names) {
        List<Finding> out = new ArrayList<>();
        kinds.forEach(kind -> out.addAll(kind.addresses(config, names)));
        return out;
    }

    /** {@code --connect}: every kind's connection checks, in registration order. */
    public List<Finding> connections() {
        List<Finding> out = new ArrayList<>();
        kinds.forEach(kind -> out.addAll(kind.connect(config)));
        config.telemetry().ifPresent(t -> telemetryEndpoint(t).ifPresent(out::add));
        return out;
    }

    /**
     * The telemetry endpoint: one TCP connection to its host and port within its {@code timeoutMs}
     * (no OTLP request is sent, and nothing of OpenTelemetry is loaded). A warning, never an error:
     * a collector that cannot be reached costs the gateway only counted drops.
     */
    static java.util.Optional<Finding> telemetryEndpoint(dev.postern.app.config.TelemetrySettings t) {
        java.net.URI endpoint = t.endpoint();
        int port = endpoint.getPort() > 0 ? endpoint.getPort() : "https".equals(endpoint.getScheme()) ? 443 : 80;
        int timeout = (int) Math.min(Integer.MAX_VALUE, t.timeout().toMillis());
        try (java.net.Socket raw = new java.net.Socket()) {
            raw.connect(new java.net.InetSocketAddress(java.net.InetAddress.getByName(endpoint.getHost()), port), timeout);
            return java.util.Optional.empty();
        } catch (java.io.IOException | RuntimeException e) {
            String why = ConnectFailures.reason(e, ConnectFailures.Step.CONNECT, endpoint.getHost(), timeout, "").map(r -> ": " + r).orElse("");
            return java.util.Optional.of(Finding.warning("telemetry-unreachable", "/telemetry/endpoint", "connecting to the collector at "
                    + endpoint.getHost() + ":" + port + " failed" + why + "; the gateway runs, and what it cannot send is dropped and counted"));
        }
    }

    /**
     * Each credential: its variable set, or its file present, readable, non-empty, private and this
     * user's, or its command's program found; with {@code runCommands} each command is also run once
     * (its value dropped), as a call would run it: {@code --deep} does, the start-up check does not
     * (the gateway runs them itself).
     */
    List<Finding> credentials(boolean runCommands) {
        List<Finding> out = new ArrayList<>();
        new TreeMap<>(byName(config.credentials())).forEach((name, source) -> {
            String where = "/credentials/" + name;
            if (source instanceof CredentialSource.Command command) {
                credentialCommand(name, command, runCommands).ifPresent(out::add);
                return;
            }
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

    /**
     * A command credential's finding, if any: its program not found or not executable, or (when run)
     * a non-zero exit, no output or too much, or its timeout passed. Never a byte of its output.
     */
    private Optional<Finding> credentialCommand(String name, CredentialSource.Command command, boolean run) {
        String where = "/credentials/" + name;
        CredentialCommand runner = new CredentialCommand(environment);
        if (runner.program(command.program()).isEmpty()) {
            return Optional.of(Finding.error("credential-command-not-found", where + "/command/0", "command "
                    + command.program() + (command.program().startsWith("/") ? " is not an executable file" : " is not found on PATH")));
        }
        if (!run) {
            return Optional.empty();
        }
        try {
            runner.run(new CredentialRef(name), command);
            return Optional.empty();
        } catch (CredentialCommand.Failed e) {
            String said = e.detail().replaceFirst("^credential " + Pattern.quote(name) + ": ", "");
            String id = switch (e.reason()) {
                case NOT_FOUND -> "credential-command-not-found";
                case TIMED_OUT -> "credential-command-timeout";
                case FAILED -> "credential-command-failed";
            };
            return Optional.of(Finding.error(id, where + (e.reason() == CredentialCommand.Reason.NOT_FOUND ? "/command/0" : ""), said));
        }
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
            Files.createFile(probe, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.delete(probe);
            return journalPrivate(dir);
        } catch (IOException e) {
            return List.of(Finding.error("journal-not-writable", "/journal/directory", "cannot create a file in " + dir
                    + " (" + e.getClass().getSimpleName() + "); the gateway would not start"));
        }
    }

    /**
     * The journal directory and the files Postern keeps in it, under {@link PrivateFiles}' rule: one
     * group or others can write is an error (the gateway refuses it), one they can only read a
     * warning (the gateway makes it private when it starts).
     */
    private static List<Finding> journalPrivate(Path dir) throws IOException {
        List<Finding> out = new ArrayList<>();
        List<Path> all = new ArrayList<>();
        all.add(dir);
        all.addAll(PrivateFiles.journalFiles(dir));
        for (Path p : all) {
            Set<PosixFilePermission> permissions = p.equals(dir) ? Files.getPosixFilePermissions(p)
                    : Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS);
            String mode = PosixFilePermissions.toString(permissions);
            String fix = (p.equals(dir) ? "chmod 700 " : "chmod 600 ") + p;
            switch (PrivateFiles.standing(permissions)) {
                case WRITABLE_BY_OTHERS:
                    out.add(Finding.error("journal-writable-by-others", "/journal/directory", p + " is writable by group or others ("
                            + mode + "); the gateway would not start (" + fix + ")"));
                    break;
                case READABLE_BY_OTHERS:
                    out.add(Finding.warning("journal-readable-by-others", "/journal/directory", p + " is readable by group or others ("
                            + mode + "); the gateway makes it private when it starts (" + fix + ")"));
                    break;
                default:
                    break;
            }
        }
        return out;
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
