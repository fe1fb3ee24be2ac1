package dev.postern.policy;

import dev.postern.policy.action.HeaderField;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.HttpTarget;
import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A permitted HTTP request: the canonical URI to request (query parameters already encoded), the
 * headers the agent set (all allowed by the target), the body, and the target whose limits,
 * credential and address rule the executor enforces. Immutable.
 */
public final class AuthorizedHttpRequest extends AuthorizedAction {
    private final HttpRequestAction action;
    private final HttpTarget target;
    private final URI uri;
    private final List<HeaderField> headers;

    AuthorizedHttpRequest(HttpRequestAction action, HttpTarget target, URI uri, List<HeaderField> headers, String rule) {
        super(rule);
        this.action = Objects.requireNonNull(action, "action");
        this.target = Objects.requireNonNull(target, "target");
        this.uri = Objects.requireNonNull(uri, "uri");
        this.headers = List.copyOf(headers);
    }

    @Override
    public HttpRequestAction action() {
        return action;
    }

    public HttpTarget target() {
        return target;
    }

    public String method() {
        return action.method();
    }

    public URI uri() {
        return uri;
    }

    public List<HeaderField> headers() {
        return headers;
    }

    public Optional<String> body() {
        return action.body();
    }

    @Override
    public Allowance allowance() {
        return target;
    }

    @Override
    public String toString() {
        return "AuthorizedHttpRequest[" + action.method() + ' ' + uri + " via " + target.name() + ", rule=" + rule() + ']';
    }
}
