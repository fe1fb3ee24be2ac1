package dev.postern.executor.http.archfixtures;

import dev.postern.policy.AuthorizedHttpRequest;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.ActionExecutor;
import dev.postern.policy.port.Cancellation;
import org.apache.hc.client5.http.classic.methods.HttpGet;

/** Compliant: an HTTP adapter that knows its permit, the kernel and HttpClient. Never run. */
public final class HttpExecutor implements ActionExecutor<AuthorizedHttpRequest> {
    @Override
    public Class<AuthorizedHttpRequest> permitType() {
        return AuthorizedHttpRequest.class;
    }

    @Override
    public Outcome execute(AuthorizedHttpRequest permit, Cancellation cancellation) {
        HttpGet request = new HttpGet(permit.uri());
        throw new UnsupportedOperationException(request.getMethod());
    }

    @Override
    public void close() {
    }
}
