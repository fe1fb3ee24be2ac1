package dev.postern.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.postern.protocol.json.JsonSyntaxError;
import dev.postern.protocol.json.StrictJson;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** {@code StrictJson.parse} of a typical http_request tools/call line, every strictness check on. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class StrictJsonBenchmark {
    private final StrictJson json = new StrictJson(Workload.MAX_FRAME_BYTES);

    @Benchmark
    public JsonNode parseToolsCall() throws JsonSyntaxError {
        return json.parse(Workload.HTTP_CALL);
    }
}
