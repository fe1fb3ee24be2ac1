package dev.postern.policy.model;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * One HTTP service the agent may call: its origin, the methods, path prefixes and request headers
 * it allows, how the executor authenticates, and the limits the executor enforces.
 */
public record HttpTarget(
        String name,
        Origin origin,
        Set<String> methods,
        List<String> pathPrefixes,
        Set<String> headers,
        Optional<HttpAuth> auth,
        Duration timeout,
        long maxResponseBytes,
        boolean allowPrivateAddresses) {

    private static final Pattern METHOD = Pattern.compile("[A-Z]{1,16}");
    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

    public HttpTarget {
        Names.require("target name", name);
        Objects.requireNonNull(origin, "origin");
        methods = Set.copyOf(Objects.requireNonNull(methods, "methods"));
        if (methods.isEmpty()) {
            throw new IllegalArgumentException("target " + name + ": methods must not be empty");
        }
        for (String m : methods) {
            if (!METHOD.matcher(m).matches()) {
                throw new IllegalArgumentException("target " + name + ": method must be upper-case letters, got \"" + m + '"');
            }
        }
        pathPrefixes = List.copyOf(Objects.requireNonNull(pathPrefixes, "pathPrefixes"));
        if (pathPrefixes.isEmpty()) {
            throw new IllegalArgumentException("target " + name + ": pathPrefixes must not be empty");
        }
        for (String p : pathPrefixes) {
            if (!p.startsWith("/") || p.contains("//") || p.contains("/./") || p.contains("/../")
                    || p.endsWith("/.") || p.endsWith("/..") || p.contains("%") || p.contains("\\")) {
                throw new IllegalArgumentException("target " + name + ": path prefix must be a plain absolute path, got \"" + p + '"');
            }
        }
        headers = Objects.requireNonNull(headers, "headers").stream()
                .map(h -> {
                    if (!TOKEN.matcher(h).matches()) {
                        throw new IllegalArgumentException("target " + name + ": header name must be a token, got \"" + h + '"');
                    }
                    return h.toLowerCase(Locale.ROOT);
                })
                .collect(Collectors.toUnmodifiableSet());
        Objects.requireNonNull(auth, "auth");
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("target " + name + ": timeout must be positive");
        }
        if (maxResponseBytes < 1) {
            throw new IllegalArgumentException("target " + name + ": maxResponseBytes must be positive");
        }
    }
}
