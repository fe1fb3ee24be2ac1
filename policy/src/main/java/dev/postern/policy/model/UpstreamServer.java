package dev.postern.policy.model;

import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One of the operator's own stdio MCP servers behind the gateway: how to start it (argv, no shell;
 * working directory; the variables added to its minimal environment, some from credentials), the
 * limits its calls run under, and its allowlist of tools, each pinned to the definition the operator
 * reviewed. Only the tools listed here can ever be called; what the server lists besides is ignored.
 */
public record UpstreamServer(
        String name,
        List<String> command,
        String cwd,
        Map<String, EnvValue> env,
        Duration startTimeout,
        Duration timeout,
        long maxResponseBytes,
        List<UpstreamTool> tools,
        Optional<RateLimit> rateLimit) implements Allowance {

    /** A server's name: also the first half of each of its tools' names ({@code name__tool}), so no {@code __} in it. */
    public static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]{0,31}");
    /** Variables a child gets from the gateway's own environment (DESIGN §4); nothing else of it. */
    public static final List<String> INHERITED_ENV = List.of("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG");
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

    /** A value of a variable in the child's environment: a literal string or a credential's value. */
    public sealed interface EnvValue {
        record Literal(String value) implements EnvValue {
            public Literal {
                Objects.requireNonNull(value, "value");
                if (value.indexOf('\0') >= 0) {
                    throw new IllegalArgumentException("an environment value cannot hold a NUL character");
                }
            }
        }

        record FromCredential(CredentialRef credential) implements EnvValue {
            public FromCredential {
                Objects.requireNonNull(credential, "credential");
            }
        }
    }

    public UpstreamServer {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("upstream server name must match " + NAME.pattern() + ", got " + Names.quote(name));
        }
        command = List.copyOf(Objects.requireNonNull(command, "command"));
        if (command.isEmpty() || command.get(0).isEmpty()) {
            throw new IllegalArgumentException("upstream server " + name + ": command needs a program");
        }
        if (command.stream().anyMatch(a -> a.indexOf('\0') >= 0)) {
            throw new IllegalArgumentException("upstream server " + name + ": command cannot hold a NUL character");
        }
        Objects.requireNonNull(cwd, "cwd");
        if (!cwd.startsWith("/")) {
            throw new IllegalArgumentException("upstream server " + name + ": cwd must be an absolute path");
        }
        Objects.requireNonNull(env, "env");
        LinkedHashMap<String, EnvValue> copy = new LinkedHashMap<>();
        env.forEach((k, v) -> {
            if (k == null || !ENV_NAME.matcher(k).matches()) {
                throw new IllegalArgumentException("upstream server " + name + ": environment variable name must match "
                        + ENV_NAME.pattern() + ", got " + Names.quote(k));
            }
            copy.put(k, Objects.requireNonNull(v, "env " + k));
        });
        env = java.util.Collections.unmodifiableMap(copy);
        requirePositive("startTimeout", startTimeout);
        requirePositive("timeout", timeout);
        if (maxResponseBytes < 1) {
            throw new IllegalArgumentException("upstream server " + name + ": maxResponseBytes must be positive");
        }
        tools = List.copyOf(Objects.requireNonNull(tools, "tools"));
        Set<String> seen = new HashSet<>();
        for (UpstreamTool t : tools) {
            if (!seen.add(t.name())) {
                throw new IllegalArgumentException("upstream server " + name + " lists tool " + t.name() + " twice");
            }
            String exposed = exposedName(name, t.name());
            if (exposed.length() > UpstreamTool.MAX_EXPOSED_NAME) {
                throw new IllegalArgumentException("upstream server " + name + ": tool " + t.name() + " would be offered as "
                        + exposed + ", longer than " + UpstreamTool.MAX_EXPOSED_NAME + " characters (the limit clients enforce)");
            }
        }
        Objects.requireNonNull(rateLimit, "rateLimit");
    }

    private static void requirePositive(String what, Duration d) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive");
        }
    }

    /** The name the agent calls a server's tool by: {@code server__tool}. */
    public static String exposedName(String server, String tool) {
        return server + "__" + tool;
    }

    @Override
    public String noun() {
        return "upstream MCP server";
    }

    @Override
    public List<ToolClaim> toolClaims() {
        return tools.stream().map(t -> new ToolClaim(exposedName(name, t.name()), noun() + " " + name + ", tool " + t.name())).toList();
    }

    public Optional<UpstreamTool> tool(String toolName) {
        return tools.stream().filter(t -> t.name().equals(toolName)).findFirst();
    }

    /** The credentials this server's environment names, in order: what its results and stderr are masked against. */
    public List<CredentialRef> credentials() {
        return env.values().stream().filter(EnvValue.FromCredential.class::isInstance)
                .map(v -> ((EnvValue.FromCredential) v).credential()).distinct().toList();
    }
}
