package dev.postern.executor.http;

import dev.postern.policy.AuthorizedHttpRequest;
import dev.postern.policy.Decision;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.action.HeaderField;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.model.HttpAuth;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Origin;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.TrustStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Real permits for tests, from a real policy engine over a permissive one-target policy. */
final class Permits {
    static final Duration TIMEOUT = Duration.ofSeconds(5);
    static final long CAP = 1024 * 1024;

    private Permits() {
    }

    /** A target for {@code baseUrl} allowing GET, POST and HEAD under "/", a few headers, loopback. */
    static HttpTarget target(String baseUrl) {
        return target(baseUrl, Optional.empty(), TIMEOUT, CAP, true);
    }

    static HttpTarget target(String baseUrl, Optional<HttpAuth> auth, Duration timeout, long cap, boolean allowPrivate) {
        return target(baseUrl, auth, timeout, cap, allowPrivate, Optional.empty(), HttpTarget.OversizeResponse.TRUNCATE);
    }

    /** A loopback target with a byte cap and what to do with a longer body. */
    static HttpTarget target(String baseUrl, long cap, HttpTarget.OversizeResponse onOversize) {
        return target(baseUrl, Optional.empty(), TIMEOUT, cap, true, Optional.empty(), onOversize);
    }

    /** A loopback target that trusts only the given store (or the JVM default when empty). */
    static HttpTarget target(String baseUrl, Optional<TrustStore> trustStore) {
        return target(baseUrl, Optional.empty(), TIMEOUT, CAP, true, trustStore, HttpTarget.OversizeResponse.TRUNCATE);
    }

    static HttpTarget target(String baseUrl, Optional<HttpAuth> auth, Duration timeout, long cap, boolean allowPrivate,
                             Optional<TrustStore> trustStore, HttpTarget.OversizeResponse onOversize) {
        return new HttpTarget("svc", Origin.parseBaseUrl(baseUrl), Set.of("GET", "POST", "HEAD"), List.of("/"),
                Set.of("Accept", "X-Test", "Content-Type"), auth, timeout, cap, allowPrivate, trustStore, onOversize);
    }

    static AuthorizedHttpRequest get(HttpTarget target, String path) {
        return permit(target, new HttpRequestAction("GET", target.origin().toUrl() + path, List.of(), List.of(),
                Optional.empty()));
    }

    static AuthorizedHttpRequest permit(HttpTarget target, HttpRequestAction action) {
        Decision d = new PolicyEngine(Policy.of(List.of(target), List.of())).decide(action);
        if (d instanceof Decision.Permit p && p.permit() instanceof AuthorizedHttpRequest r) {
            return r;
        }
        throw new AssertionError("the test policy denied " + action + ": " + d);
    }

    static AuthorizedHttpRequest post(HttpTarget target, String path, List<HeaderField> headers, String body) {
        return permit(target, new HttpRequestAction("POST", target.origin().toUrl() + path, List.of(), headers,
                Optional.of(body)));
    }
}
