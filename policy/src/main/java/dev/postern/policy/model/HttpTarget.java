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
 * it allows, how the executor authenticates, which authorities it trusts (the JVM's, or only those
 * of its own trust store), and the limits the executor enforces, including what happens to a
 * response body over the cap. Immutable.
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
        boolean allowPrivateAddresses,
        Optional<TrustStore> trustStore,
        OversizeResponse onOversizeResponse) implements Allowance {

    /** What the executor does with a response body longer than {@code maxResponseBytes}. */
    public enum OversizeResponse {
        /** Return the first {@code maxResponseBytes} bytes, flagged {@code truncated}. */
        TRUNCATE,
        /** Return no body at all: the call fails with {@code RESPONSE_TOO_LARGE}. */
        REFUSE
    }

    private static final Pattern METHOD = Pattern.compile("[A-Z]{1,16}");
    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

    /** A target with the JVM's default trust that truncates oversize responses. */
    public HttpTarget(String name, Origin origin, Set<String> methods, List<String> pathPrefixes, Set<String> headers,
                      Optional<HttpAuth> auth, Duration timeout, long maxResponseBytes, boolean allowPrivateAddresses) {
        this(name, origin, methods, pathPrefixes, headers, auth, timeout, maxResponseBytes, allowPrivateAddresses,
                Optional.empty(), OversizeResponse.TRUNCATE);
    }

    public HttpTarget {
        Names.require("target name", name);
        Objects.requireNonNull(origin, "origin");
        methods = Set.copyOf(Objects.requireNonNull(methods, "methods"));
        if (methods.isEmpty()) {
            throw new IllegalArgumentException("target " + name + ": methods must not be empty");
        }
        for (String m : methods) {
            if (!METHOD.matcher(m).matches()) {
                throw new IllegalArgumentException("target " + name + ": methods: each must be upper-case letters, got \"" + m + '"');
            }
        }
        pathPrefixes = List.copyOf(Objects.requireNonNull(pathPrefixes, "pathPrefixes"));
        if (pathPrefixes.isEmpty()) {
            throw new IllegalArgumentException("target " + name + ": pathPrefixes must not be empty");
        }
        for (String p : pathPrefixes) {
            if (!isPlainPath(p)) {
                throw new IllegalArgumentException("target " + name + ": pathPrefixes: each must be a plain absolute path"
                        + " (no empty, . or .. segments; no %, \\, ?, #, ;, spaces or control characters), got \""
                        + printable(p) + '"');
            }
        }
        headers = Objects.requireNonNull(headers, "headers").stream()
                .map(h -> {
                    if (!TOKEN.matcher(h).matches()) {
                        throw new IllegalArgumentException("target " + name + ": headers: each must be a header name (an RFC 9110 token), got \"" + h + '"');
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
        Objects.requireNonNull(trustStore, "trustStore");
        if (trustStore.isPresent() && !origin.scheme().equals("https")) {
            throw new IllegalArgumentException("target " + name + ": trustStore needs an https baseUrl, got " + origin.toUrl());
        }
        Objects.requireNonNull(onOversizeResponse, "onOversizeResponse");
    }

    /**
     * A prefix a canonical request path can lie under: absolute, no empty or dot segments, nothing
     * percent-encoded, and none of the characters that end a path ({@code ?}, {@code #}), start a
     * path parameter that servers strip before routing ({@code ;}), or never survive URI parsing
     * (spaces, control characters) — a prefix holding one could never match, or match ambiguously.
     */
    private static boolean isPlainPath(String p) {
        if (!p.startsWith("/") || p.contains("//") || p.contains("/./") || p.contains("/../")
                || p.endsWith("/.") || p.endsWith("/..")) {
            return false;
        }
        for (int i = 0; i < p.length(); i++) {
            char c = p.charAt(i);
            if (c == '%' || c == '\\' || c == '?' || c == '#' || c == ';' || Character.isISOControl(c) || Character.isSpaceChar(c)) {
                return false;
            }
        }
        return true;
    }

    /** The value with control characters shown as escapes, so an error message stays on one line. */
    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            b.append(Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        return b.toString();
    }

    @Override
    public String noun() {
        return "http target";
    }
}
