package dev.postern.bench;

import dev.postern.policy.Decision;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.action.HeaderField;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.action.QueryParameter;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** {@code PolicyEngine.decide} for an HTTP GET: URL canonicalization, target match and the permit (or the denial). */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PolicyEngineBenchmark {
    private final PolicyEngine engine = new PolicyEngine(Workload.policy());
    private final HttpRequestAction permitted = get(Workload.BASE_URL + "/v1/items/17");
    private final HttpRequestAction denied = get(Workload.BASE_URL + "/admin/users");

    private static HttpRequestAction get(String url) {
        return new HttpRequestAction("GET", url, List.of(new QueryParameter("page", "2")),
                List.of(new HeaderField("Accept", "application/json")), Optional.empty());
    }

    @Setup
    public void check() {
        if (!(engine.decide(permitted) instanceof Decision.Permit) || !(engine.decide(denied) instanceof Decision.Deny)) {
            throw new IllegalStateException("the workload no longer decides as the benchmark assumes");
        }
    }

    @Benchmark
    public Decision decidePermittedGet() {
        return engine.decide(permitted);
    }

    @Benchmark
    public Decision decideDeniedGet() {
        return engine.decide(denied);
    }
}
