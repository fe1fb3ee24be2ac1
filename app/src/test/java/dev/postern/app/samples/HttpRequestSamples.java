package dev.postern.app.samples;

import dev.postern.policy.action.HeaderField;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Origin;
import dev.postern.policy.outcome.HttpResponseOutcome;
import dev.postern.policy.outcome.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The HTTP request kind's samples: a GET-only API target, a binary body, a body of 100,000 bytes. */
public final class HttpRequestSamples implements KindSamples {

    @Override
    public Allowance exampleAllowance() {
        return new HttpTarget("github", Origin.parseBaseUrl("https://api.github.com"), Set.of("GET"),
                List.of("/repos/", "/user"), Set.of("Accept"), Optional.empty(), Duration.ofSeconds(10), 1_048_576, false);
    }

    @Override
    public Outcome outcome() {
        return new HttpResponseOutcome("github", 200,
                List.of(new HeaderField("Content-Type", "application/octet-stream")), new byte[] {(byte) 0xff, 0}, true);
    }

    @Override
    public Optional<Outcome> tooLargeForAResult() {
        return Optional.of(new HttpResponseOutcome("github", 200,
                List.of(new HeaderField("Content-Type", "text/plain")), new byte[100_000], false));
    }
}
