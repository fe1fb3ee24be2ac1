package dev.postern.app.cli;

import dev.postern.app.ExitStatus;
import dev.postern.app.Gateway;
import dev.postern.app.check.SshProbeLogging;
import dev.postern.app.config.ConfigException;
import dev.postern.app.config.ConfigLoader;
import dev.postern.app.config.GatewayConfig;
import dev.postern.executor.ssh.SshActionExecutor;
import dev.postern.policy.model.SshHost;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@code postern trust-host --config FILE HOST}: reads the key a configured SSH host offers and
 * prints its fingerprint and the known_hosts line to pin. Trusts nothing and writes nothing.
 */
final class TrustHostCommand implements Command {
    @Override
    public String name() {
        return "trust-host";
    }

    @Override
    public String summary() {
        return "trust-host --config FILE HOST\n"
                + "                               print an SSH host's key fingerprint to pin; trusts nothing";
    }

    @Override
    public String help() {
        return String.join("\n",
                "usage: postern trust-host --config FILE HOST",
                "",
                "Connects to the SSH host named HOST in FILE (its address and port), reads the host key",
                "it offers, and prints the key's SHA256 fingerprint, the known_hosts line and the",
                "hostKeyFingerprint value that would pin it. It trusts nothing by itself: it refuses the",
                "key during the key exchange, never logs in, and writes no file. Compare the fingerprint",
                "with one taken on the host itself (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub) before",
                "pinning it. When the host already has a pinned fingerprint, says whether it matches.",
                "The host needs no knownHosts or hostKeyFingerprint yet: trust-host is how you get one.",
                "stdout carries only \"# FINGERPRINT\" and the known_hosts line, both valid in a known_hosts",
                "file (append them with >>); the explanation goes to stderr.",
                "",
                "Exit status 0 when a key was read (and matches any pin), 6 when the host could not be",
                "reached or the key differs from the pin, 4 when the config does not load, 1 on a usage",
                "error.");
    }

    @Override
    public ExitStatus run(List<String> args, Io io) {
        String file;
        String hostName;
        try {
            Options o = Options.parse(args, Set.of("--config"));
            file = ConfigArgument.file(o);
            if (o.positional().size() != 1) {
                throw new Options.UsageException(o.positional().isEmpty() ? "missing HOST" : "unexpected argument " + o.positional().get(1));
            }
            hostName = o.positional().get(0);
        } catch (Options.UsageException e) {
            io.stderr().println("postern trust-host: " + e.getMessage() + "\n\n" + help());
            return ExitStatus.USAGE;
        }
        ConfigLoader.ForTrustHost loaded;
        try {
            loaded = Gateway.configLoader().loadForTrustHost(Path.of(file), hostName);
        } catch (ConfigException e) {
            io.stderr().println("postern: invalid configuration: " + e.getMessage());
            return ExitStatus.CONFIG_ERROR;
        }
        GatewayConfig config = loaded.config();
        Optional<Endpoint> endpoint = config.policy().allowances(SshHost.class).stream().filter(h -> h.name().equals(hostName)).findFirst()
                .map(h -> new Endpoint(h.name(), h.address(), h.port(), h.timeout(), h.hostKeyFingerprint()))
                .or(() -> loaded.unpinned().map(h -> new Endpoint(h.name(), h.address(), h.port(), h.timeout(), Optional.empty())));
        if (endpoint.isEmpty()) {
            String known = config.policy().allowances(SshHost.class).stream().map(SshHost::name).collect(Collectors.joining(", "));
            io.stderr().println("postern trust-host: no SSH host named \"" + hostName + "\" in " + config.file()
                    + (known.isEmpty() ? " (it configures none)" : "; configured hosts: " + known));
            return ExitStatus.USAGE;
        }
        return probe(endpoint.get(), io);
    }

    /** Where to probe: a configured host, pinned or (before its first pin) not. */
    private record Endpoint(String name, String address, int port, Duration timeout, Optional<String> pinned) {
    }

    /**
     * Prints only the result on stdout (the fingerprint and the known_hosts line); what it means
     * goes to stderr. The SSH library's own warning about the refused key is silenced
     * ({@link SshProbeLogging}): refusing it is the point.
     */
    private static ExitStatus probe(Endpoint host, Io io) {
        SshProbeLogging.quiet();
        SshActionExecutor.OfferedKey key;
        try {
            key = SshActionExecutor.probeHostKey(host.address(), host.port(), host.timeout());
        } catch (IOException e) {
            io.stderr().println("postern trust-host: " + host.name() + ": " + e.getMessage());
            return ExitStatus.CHECK_FAILED;
        }
        PrintStream out = io.report();
        PrintStream err = io.stderr();
        err.println("postern trust-host: host " + host.name() + " offered a " + key.type() + " key");
        // Both lines are valid in a known_hosts file (the first is a comment), so `>> known_hosts` pins it.
        out.println("# " + key.fingerprint());
        out.println(key.knownHostsLine());
        ExitStatus status = ExitStatus.OK;
        if (host.pinned().isPresent()) {
            String pinned = unpadded(host.pinned().get());
            if (pinned.equals(key.fingerprint())) {
                err.println("this matches the fingerprint the config already pins");
            } else {
                err.println("WARNING: this differs from the fingerprint the config pins (" + pinned
                        + "); the gateway will refuse this host until you find out why");
                status = ExitStatus.CHECK_FAILED;
            }
        } else {
            err.println("To pin it, add the known_hosts line to the file the host's \"knownHosts\" names, or set"
                    + " \"hostKeyFingerprint\": \"" + key.fingerprint() + "\" on the host.");
        }
        err.println("Nothing was trusted: the key was refused during the key exchange, no login was attempted and no file"
                + " was written. Check the fingerprint on the host itself before pinning it.");
        return status;
    }

    private static String unpadded(String fingerprint) {
        return fingerprint.replaceAll("=+$", "");
    }
}
