package dev.postern.bench;

import dev.postern.protocol.mcp.Inbound;
import dev.postern.protocol.mcp.McpServer;
import dev.postern.protocol.mcp.ServerInfo;
import dev.postern.app.Gateway;
import dev.postern.protocol.tools.ToolCatalog;
import dev.postern.transport.Frame;
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
 * {@code McpServer.receive(Frame)} on an initialized session: the protocol front half (strict JSON,
 * JSON-RPC, lifecycle, params, schema validation, binding). {@code httpRequestCall} ends in an
 * {@link Inbound.Execute} carrying a typed action; {@code posternTargetsCall} also renders the answer line.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class McpServerBenchmark {
    private McpServer server;
    private Frame httpCall;
    private Frame targetsCall;

    @Setup
    public void initialize() {
        server = McpServer.over(new ToolCatalog(Gateway.kinds(), Workload.policy()), new ServerInfo("postern", "bench"), McpServer.Limits.frames(Workload.MAX_FRAME_BYTES));
        expect(Inbound.Respond.class, server.receive(Frame.of(Workload.INITIALIZE)));
        expect(Inbound.Ignore.class, server.receive(Frame.of(Workload.INITIALIZED)));
        httpCall = Frame.of(Workload.HTTP_CALL);
        targetsCall = Frame.of(Workload.TARGETS_CALL);
        expect(Inbound.Execute.class, server.receive(httpCall));
        expect(Inbound.Respond.class, server.receive(targetsCall));
    }

    private static void expect(Class<? extends Inbound> kind, Inbound actual) {
        if (!kind.isInstance(actual)) {
            throw new IllegalStateException("expected " + kind.getSimpleName() + ", got " + actual);
        }
    }

    @Benchmark
    public Inbound httpRequestCall() {
        return server.receive(httpCall);
    }

    @Benchmark
    public Inbound posternTargetsCall() {
        return server.receive(targetsCall);
    }
}
