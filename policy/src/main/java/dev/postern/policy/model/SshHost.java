package dev.postern.policy.model;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One machine the agent may run commands on: where it is, who to log in as, how its host key is
 * verified (a known_hosts file or a pinned SHA256 fingerprint; at least one), the commands allowed
 * there, the limits the executor enforces, and how many calls it takes per period (applied
 * outside the kernel).
 */
public record SshHost(
        String name,
        String address,
        int port,
        String user,
        SshAuth auth,
        Optional<Path> knownHosts,
        Optional<String> hostKeyFingerprint,
        Duration timeout,
        long maxOutputBytes,
        List<SshCommandSpec> commands,
        Optional<RateLimit> rateLimit) implements Allowance {

    private static final Pattern FINGERPRINT = Pattern.compile("SHA256:[A-Za-z0-9+/]{43}=?");
    private static final Pattern USER = Pattern.compile("[A-Za-z_][A-Za-z0-9_.-]{0,63}");

    /** A host without a rate limit. */
    public SshHost(String name, String address, int port, String user, SshAuth auth, Optional<Path> knownHosts,
                   Optional<String> hostKeyFingerprint, Duration timeout, long maxOutputBytes, List<SshCommandSpec> commands) {
        this(name, address, port, user, auth, knownHosts, hostKeyFingerprint, timeout, maxOutputBytes, commands, Optional.empty());
    }

    public SshHost {
        Names.require("host name", name);
        Objects.requireNonNull(address, "address");
        if (address.isBlank()) {
            throw new IllegalArgumentException("host " + name + ": address must not be blank");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("host " + name + ": port must be 1..65535, got " + port);
        }
        if (user == null || !USER.matcher(user).matches()) {
            throw new IllegalArgumentException("host " + name + ": user must match " + USER.pattern());
        }
        Objects.requireNonNull(auth, "auth");
        Objects.requireNonNull(knownHosts, "knownHosts");
        Objects.requireNonNull(hostKeyFingerprint, "hostKeyFingerprint");
        if (knownHosts.isEmpty() && hostKeyFingerprint.isEmpty()) {
            throw new IllegalArgumentException("host " + name + ": needs knownHosts or hostKeyFingerprint; an unverified host is never trusted");
        }
        hostKeyFingerprint.ifPresent(f -> {
            if (!FINGERPRINT.matcher(f).matches()) {
                throw new IllegalArgumentException("host " + name + ": hostKeyFingerprint must look like SHA256:<base64>, got \"" + f + '"');
            }
        });
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("host " + name + ": timeout must be positive");
        }
        if (maxOutputBytes < 1) {
            throw new IllegalArgumentException("host " + name + ": maxOutputBytes must be positive");
        }
        commands = List.copyOf(Objects.requireNonNull(commands, "commands"));
        Set<String> seen = new HashSet<>();
        for (SshCommandSpec c : commands) {
            if (!seen.add(c.name())) {
                throw new IllegalArgumentException("host " + name + ": command \"" + c.name() + "\" is defined twice");
            }
        }
        Objects.requireNonNull(rateLimit, "rateLimit");
    }

    public Optional<SshCommandSpec> command(String commandName) {
        return commands.stream().filter(c -> c.name().equals(commandName)).findFirst();
    }

    @Override
    public String noun() {
        return "ssh host";
    }

    @Override
    public List<ToolClaim> toolClaims() {
        return commands.stream().flatMap(c -> c.tool().stream()
                .map(t -> new ToolClaim(t.name(), noun() + " " + name + ", command " + c.name()))).toList();
    }
}
