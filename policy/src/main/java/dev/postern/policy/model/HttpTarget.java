package dev.postern.policy.model;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * One HTTP service the agent may call: its origin, the methods, path prefixes and request headers
 * it allows, how the executor authenticates, which authorities it trusts (the JVM's, or only those
 * of its own trust store), the limits the executor enforces, including what happens to a
 * response body over the cap, and the methods ({@code confirm}, a subset of {@code methods}) whose
 * calls also need a human's approval of the exact request, how many calls it takes per period
 * (applied outside the kernel), and the name it is also offered under as a tool of its own, if the
 * operator asked, and whether its requests carry the call's W3C trace context ({@code traceparent})
 * while telemetry exports traces. Immutable.
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
        OversizeResponse onOversizeResponse,
        Set<String> confirm,
        Optional<RateLimit> rateLimit,
        Optional<TypedTool> tool,
        boolean propagateTraceContext) implements Allowance {

    /** What the executor does with a response body longer than {@code maxResponseBytes}. */
    public enum OversizeResponse {
        /** Return the first {@code maxResponseBytes} bytes, flagged {@code truncated}. */
        TRUNCATE,
        /** Return no body at all: the call fails with {@code RESPONSE_TOO_LARGE}. */
        REFUSE
    }

    /** A target with the JVM's default trust that truncates oversize responses. */
    public HttpTarget(String name, Origin origin, Set<String> methods, List<String> pathPrefixes, Set<String> headers,
                      Optional<HttpAuth> auth, Duration timeout, long maxResponseBytes, boolean allowPrivateAddresses) {
        this(name, origin, methods, pathPrefixes, headers, auth, timeout, maxResponseBytes, allowPrivateAddresses,
                Optional.empty(), OversizeResponse.TRUNCATE, Set.of(), Optional.empty());
    }

    /** A target no call of which needs a human's approval, without a rate limit. */
    public HttpTarget(String name, Origin origin, Set<String> methods, List<String> pathPrefixes, Set<String> headers,
                      Optional<HttpAuth> auth, Duration timeout, long maxResponseBytes, boolean allowPrivateAddresses,
                      Optional<TrustStore> trustStore, OversizeResponse onOversizeResponse) {
        this(name, origin, methods, pathPrefixes, headers, auth, timeout, maxResponseBytes, allowPrivateAddresses,
                trustStore, onOversizeResponse, Set.of(), Optional.empty());
    }

    /** A target whose {@code confirm} methods need a human's approval, without a rate limit. */
    public HttpTarget(String name, Origin origin, Set<String> methods, List<String> pathPrefixes, Set<String> headers,
                      Optional<HttpAuth> auth, Duration timeout, long maxResponseBytes, boolean allowPrivateAddresses,
                      Optional<TrustStore> trustStore, OversizeResponse onOversizeResponse, Set<String> confirm) {
        this(name, origin, methods, pathPrefixes, headers, auth, timeout, maxResponseBytes, allowPrivateAddresses,
                trustStore, onOversizeResponse, confirm, Optional.empty());
    }

    /** A target no call of which needs a human's approval, with {@code rateLimit}. */
    public HttpTarget(String name, Origin origin, Set<String> methods, List<String> pathPrefixes, Set<String> headers,
                      Optional<HttpAuth> auth, Duration timeout, long maxResponseBytes, boolean allowPrivateAddresses,
                      Optional<TrustStore> trustStore, OversizeResponse onOversizeResponse, Optional<RateLimit> rateLimit) {
        this(name, origin, methods, pathPrefixes, headers, auth, timeout, maxResponseBytes, allowPrivateAddresses,
                trustStore, onOversizeResponse, Set.of(), rateLimit);
    }

    /** A target offered only through the generic {@code http_request} tool. */
    public HttpTarget(String name, Origin origin, Set<String> methods, List<String> pathPrefixes, Set<String> headers,
                      Optional<HttpAuth> auth, Duration timeout, long maxResponseBytes, boolean allowPrivateAddresses,
                      Optional<TrustStore> trustStore, OversizeResponse onOversizeResponse, Set<String> confirm,
                      Optional<RateLimit> rateLimit) {
        this(name, origin, methods, pathPrefixes, headers, auth, timeout, maxResponseBytes, allowPrivateAddresses,
                trustStore, onOversizeResponse, confirm, rateLimit, Optional.empty());
    }

    /** A target that sends no {@code traceparent} header. */
    public HttpTarget(String name, Origin origin, Set<String> methods, List<String> pathPrefixes, Set<String> headers,
                      Optional<HttpAuth> auth, Duration timeout, long maxResponseBytes, boolean allowPrivateAddresses,
                      Optional<TrustStore> trustStore, OversizeResponse onOversizeResponse, Set<String> confirm,
                      Optional<RateLimit> rateLimit, Optional<TypedTool> tool) {
        this(name, origin, methods, pathPrefixes, headers, auth, timeout, maxResponseBytes, allowPrivateAddresses,
                trustStore, onOversizeResponse, confirm, rateLimit, tool, false);
    }

    /** This target with {@code confirm} as the methods that need a human's approval. */
    public HttpTarget withConfirm(Set<String> confirm) {
        return new HttpTarget(name, origin, methods, pathPrefixes, headers, auth, timeout, maxResponseBytes,
                allowPrivateAddresses, trustStore, onOversizeResponse, confirm, rateLimit, tool, propagateTraceContext);
    }

    /** This target also offered as a tool of its own named {@code tool}. */
    public HttpTarget withTool(TypedTool tool) {
        return new HttpTarget(name, origin, methods, pathPrefixes, headers, auth, timeout, maxResponseBytes,
                allowPrivateAddresses, trustStore, onOversizeResponse, confirm, rateLimit, Optional.of(tool), propagateTraceContext);
    }

    /**
     * This target with {@code propagate} saying whether each request carries the call's W3C
     * {@code traceparent} (and {@code tracestate}) header while telemetry exports traces.
     */
    public HttpTarget withTraceContextPropagation(boolean propagate) {
        return new HttpTarget(name, origin, methods, pathPrefixes, headers, auth, timeout, maxResponseBytes,
                allowPrivateAddresses, trustStore, onOversizeResponse, confirm, rateLimit, tool, propagate);
    }

    public HttpTarget {
        Objects.requireNonNull(tool, "tool");
        Names.require("target name", name);
        Objects.requireNonNull(origin, "origin");
        methods = Set.copyOf(Objects.requireNonNull(methods, "methods"));
        if (methods.isEmpty()) {
            throw new IllegalArgumentException("target " + name + ": methods must not be empty");
        }
        for (String m : methods) {
            if (!HttpSyntax.isMethod(m)) {
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
                        + Printable.escaped(p) + '"');
            }
        }
        headers = Objects.requireNonNull(headers, "headers").stream()
                .map(h -> {
                    if (!HttpSyntax.isToken(h)) {
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
        Objects.requireNonNull(rateLimit, "rateLimit");
        confirm = Set.copyOf(Objects.requireNonNull(confirm, "confirm"));
        for (String m : confirm) {
            if (!methods.contains(m)) {
                throw new IllegalArgumentException("target " + name + ": confirm: each must be one of the target's methods "
                        + methods.stream().sorted().toList() + ", got \"" + Printable.escaped(m) + '"');
            }
        }
    }

    /** Whether a call with this method needs a human's approval before it may run. */
    public boolean needsApproval(String method) {
        return confirm.contains(method);
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

    @Override
    public String noun() {
        return "http target";
    }

    @Override
    public List<ToolClaim> toolClaims() {
        return tool.map(t -> List.of(new ToolClaim(t.name(), noun() + " " + name))).orElse(List.of());
    }
}
