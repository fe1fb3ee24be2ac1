package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.postern.fixtures.RecordingExecutor;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.AuthorizedHttpRequest;
import dev.postern.policy.AuthorizedSshCommand;
import dev.postern.policy.Decision;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.HttpResponseOutcome;
import dev.postern.policy.port.Cancellation;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DispatcherTest {
    private final AtomicInteger httpBuilt = new AtomicInteger();
    private final AtomicInteger sshBuilt = new AtomicInteger();
    private final RecordingExecutor<AuthorizedHttpRequest> http = RecordingExecutor.http();
    private final RecordingExecutor<AuthorizedSshCommand> ssh = RecordingExecutor.ssh();

    private Dispatcher lazyDispatcher() {
        return Dispatcher.onFirstUse(List.of(
                Dispatcher.OnFirstUse.of(AuthorizedHttpRequest.class, () -> {
                    httpBuilt.incrementAndGet();
                    return http;
                }),
                Dispatcher.OnFirstUse.of(AuthorizedSshCommand.class, () -> {
                    sshBuilt.incrementAndGet();
                    return ssh;
                })));
    }

    private static AuthorizedAction httpPermit() {
        Decision d = new PolicyEngine(SessionHarness.policy())
                .decide(new HttpRequestAction("GET", "http://127.0.0.1:9/v1/x", List.of(), List.of(), Optional.empty()));
        return assertInstanceOf(Decision.Permit.class, d).permit();
    }

    @Test
    void anExecutorIsBuiltOnceOnTheFirstPermitOfItsTypeAndNeverForAnUnusedType() {
        try (Dispatcher dispatcher = lazyDispatcher()) {
            assertEquals(0, httpBuilt.get());
            assertInstanceOf(HttpResponseOutcome.class, dispatcher.dispatch(httpPermit(), new Cancellation()));
            assertInstanceOf(HttpResponseOutcome.class, dispatcher.dispatch(httpPermit(), new Cancellation()));
            assertEquals(1, httpBuilt.get());
            assertEquals(2, http.count());
        }
        assertEquals(0, sshBuilt.get());
    }

    @Test
    void afterCloseNoExecutorIsBuiltAndAPermitFailsWithoutReachingOne() {
        Dispatcher dispatcher = lazyDispatcher();
        dispatcher.close();
        ExecutionFailure failure = assertInstanceOf(ExecutionFailure.class, dispatcher.dispatch(httpPermit(), new Cancellation()));
        assertEquals(FailureCode.EXECUTOR_FAILED, failure.code());
        assertEquals(0, httpBuilt.get());
        http.assertNoAttempts();
    }

    @Test
    void aFactoryThatFailsYieldsExecutorFailedAndTheSessionGoesOn() {
        try (Dispatcher dispatcher = Dispatcher.onFirstUse(List.of(Dispatcher.OnFirstUse.of(AuthorizedHttpRequest.class, () -> {
            throw new IllegalStateException("no TLS provider");
        })))) {
            ExecutionFailure failure = assertInstanceOf(ExecutionFailure.class, dispatcher.dispatch(httpPermit(), new Cancellation()));
            assertEquals(FailureCode.EXECUTOR_FAILED, failure.code());
        }
    }
}
