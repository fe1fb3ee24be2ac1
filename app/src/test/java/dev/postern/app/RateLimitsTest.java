package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.Decision;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.action.Action;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.action.SshCommandAction;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Origin;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.RateLimit;
import dev.postern.policy.model.SshAuth;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import dev.postern.policy.outcome.FailureCode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A policy's rate limits applied to real permits: per HTTP target and per SSH host, each by its own name, unlimited ones never refused. */
class RateLimitsTest {
    private final AtomicLong now = new AtomicLong();

    private static HttpTarget target(String name, Optional<RateLimit> limit) {
        return new HttpTarget(name, Origin.parseBaseUrl("http://" + name + ".example:8080"), Set.of("GET"), List.of("/"), Set.of(),
                Optional.empty(), Duration.ofSeconds(5), 1024, false, Optional.empty(), HttpTarget.OversizeResponse.TRUNCATE, limit);
    }

    private static SshHost host(String name, Optional<RateLimit> limit) {
        return new SshHost(name, "127.0.0.1", 22, "deploy", new SshAuth.Key(new CredentialRef("key"), Optional.empty()), Optional.empty(),
                Optional.of("SHA256:" + "A".repeat(43)), Duration.ofSeconds(5), 1024, List.of(new SshCommandSpec("df", List.of("df"), Map.of())),
                limit);
    }

    private final Policy policy = Policy.of(
            List.of(target("api", Optional.of(RateLimit.perSeconds(2, 60))), target("free", Optional.empty())),
            // An SSH host may share an HTTP target's name; they are limited apart.
            List.of(host("api", Optional.of(RateLimit.perSeconds(1, 10)))));
    private final PolicyEngine engine = new PolicyEngine(policy);
    private final RateLimits limits = RateLimits.of(policy, now::get);

    private AuthorizedAction permit(Action action) {
        return ((Decision.Permit) engine.decide(action)).permit();
    }

    private AuthorizedAction http(String target) {
        return permit(new HttpRequestAction("GET", "http://" + target + ".example:8080/x", List.of(), List.of(), Optional.empty()));
    }

    private AuthorizedAction ssh() {
        return permit(new SshCommandAction("api", "df", Map.of()));
    }

    @Test
    void eachTargetAndHostIsLimitedByItsOwnRateAndTheRefusalSaysHowLongToWait() {
        assertTrue(limits.admit(http("api")).isEmpty());
        assertTrue(limits.admit(http("api")).isEmpty());
        RateLimits.Refusal third = limits.admit(http("api")).orElseThrow();
        assertEquals("rate-limit:api", third.rule());
        assertEquals(FailureCode.RATE_LIMITED, third.answer().code());
        assertEquals("http target api allows 2 calls per 60 s; this call was not made; try again in 30 s", third.answer().message());

        assertTrue(limits.admit(ssh()).isEmpty(), "the SSH host named api has its own bucket");
        assertEquals("ssh host api allows 1 call per 10 s; this call was not made; try again in 10 s",
                limits.admit(ssh()).orElseThrow().answer().message());

        for (int i = 0; i < 100; i++) {
            assertTrue(limits.admit(http("free")).isEmpty(), "a target without rateLimit is never refused");
        }
        now.addAndGet(Duration.ofSeconds(30).toNanos());
        assertTrue(limits.admit(http("api")).isEmpty(), "a token is back after 60/2 s");
    }
}
