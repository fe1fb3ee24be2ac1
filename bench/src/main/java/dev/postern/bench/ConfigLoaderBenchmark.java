package dev.postern.bench;

import dev.postern.app.config.ConfigException;
import dev.postern.app.Gateway;
import dev.postern.app.config.GatewayConfig;
import java.nio.file.Files;
import java.nio.file.Path;
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

/**
 * The config load of start-up on the example config (examples/postern.json, run from the repository
 * root): {@code load} is what check-config does (parse, JSON Schema validation, building), and
 * {@code loadDeferringSchema} is what mcp-stdio does before its initialize answer (parse and
 * building; the schema check follows in the background). Warm figures: the cold, first-load cost is
 * in the load driver's start-up section.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ConfigLoaderBenchmark {
    private Path config;

    @Setup
    public void setUp() {
        config = Path.of("examples/postern.json").toAbsolutePath();
        if (!Files.isRegularFile(config)) {
            throw new IllegalStateException("run from the repository root: " + config + " is missing");
        }
    }

    @Benchmark
    public GatewayConfig load() throws ConfigException {
        return Gateway.configLoader().load(config);
    }

    @Benchmark
    public GatewayConfig loadDeferringSchema() throws ConfigException {
        return Gateway.configLoader().loadDeferringSchema(config).config();
    }
}
