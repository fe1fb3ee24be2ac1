package dev.postern.executor.http;

import dev.postern.fixtures.FakeHttpService;
import dev.postern.fixtures.FakeHttpService.Reply;
import dev.postern.fixtures.contract.ActionExecutorContract;
import dev.postern.fixtures.contract.ExpectedFailure;
import dev.postern.policy.AuthorizedHttpRequest;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.action.QueryParameter;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.HttpAuth;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Origin;
import dev.postern.policy.model.Policy;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.port.ActionExecutor;
import dev.postern.policy.port.CredentialStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;

/** {@link HttpActionExecutor} honours every clause of docs/executor-contract.md, against a loopback service. */
class HttpActionExecutorContractTest extends ActionExecutorContract<AuthorizedHttpRequest> {
    private static final long CAP = 64 * 1024;
    private final FakeHttpService service = FakeHttpService.start();

    HttpActionExecutorContractTest() {
        service.respond("/echo", HttpActionExecutorContractTest::echo);
        service.stall("/stall", Duration.ofMinutes(1));
        service.stream("/large", 4 * CAP, Duration.ZERO);
        service.respond("/secret", request -> new Reply(200, Map.of("X-Echo", secretValue()),
                ("token=" + secretValue()).getBytes(StandardCharsets.UTF_8)));
        service.respond("/together", request -> {
            rendezvous();
            return echo(request);
        });
    }

    @AfterEach
    void stopTheService() {
        service.close();
    }

    @Override
    protected ActionExecutor<AuthorizedHttpRequest> createExecutor(CredentialStore credentials) {
        return new HttpActionExecutor(credentials);
    }

    @Override
    protected AuthorizedHttpRequest normalPermit(String marker) {
        return get(target(Duration.ofSeconds(5), Optional.empty(), true), "/echo", marker);
    }

    @Override
    protected AuthorizedHttpRequest stallingPermit() {
        return get(target(Duration.ofSeconds(2), Optional.empty(), true), "/stall", "stall");
    }

    @Override
    protected Duration deadlineOf(AuthorizedHttpRequest permit) {
        return permit.target().timeout();
    }

    @Override
    protected AuthorizedHttpRequest largeOutputPermit() {
        return get(target(Duration.ofSeconds(5), Optional.empty(), true), "/large", "large");
    }

    @Override
    protected long outputCapOf(AuthorizedHttpRequest permit) {
        return permit.target().maxResponseBytes();
    }

    @Override
    protected OversizeOutput oversizeOutput() {
        return OversizeOutput.CUT_AND_FLAGGED;
    }

    @Override
    protected AuthorizedHttpRequest secretEchoingPermit() {
        return get(target(Duration.ofSeconds(5), Optional.of(bearer(CREDENTIAL)), true), "/secret", "secret");
    }

    @Override
    protected List<ExpectedFailure<AuthorizedHttpRequest>> failingPermits() {
        return List.of(
                new ExpectedFailure<>(get(target(Duration.ofSeconds(5), Optional.of(bearer("unset")), true), "/echo", "x"),
                        FailureCode.CREDENTIAL_UNAVAILABLE, "a target whose credential is not in the store"),
                new ExpectedFailure<>(get(target(Duration.ofSeconds(5), Optional.empty(), false), "/echo", "x"),
                        FailureCode.ADDRESS_REFUSED, "a loopback target that may not reach private addresses"));
    }

    @Override
    protected AuthorizedHttpRequest concurrentPermit(String marker) {
        return get(target(Duration.ofSeconds(5), Optional.empty(), true), "/together", marker);
    }

    @Override
    protected int effectsObserved() {
        return service.requestCount();
    }

    private HttpTarget target(Duration timeout, Optional<HttpAuth> auth, boolean allowPrivateAddresses) {
        return new HttpTarget("svc", Origin.parseBaseUrl(service.baseUri().toString()), Set.of("GET"), List.of("/"),
                Set.of(), auth, timeout, CAP, allowPrivateAddresses);
    }

    private static HttpAuth bearer(String credential) {
        return new HttpAuth(new CredentialRef(credential), HttpAuth.Scheme.BEARER, Optional.empty());
    }

    private static AuthorizedHttpRequest get(HttpTarget target, String path, String marker) {
        HttpRequestAction action = new HttpRequestAction("GET", target.origin().toUrl() + path,
                List.of(new QueryParameter("m", marker)), List.of(), Optional.empty());
        return decide(Policy.of(List.of(target), List.of()), action, AuthorizedHttpRequest.class);
    }

    private static Reply echo(FakeHttpService.RecordedRequest request) {
        return new Reply(200, Map.of("Content-Type", "text/plain"), request.path().getBytes(StandardCharsets.UTF_8));
    }
}
