package dev.postern.bench;

import dev.postern.transport.Frame;
import dev.postern.transport.FrameReader;
import dev.postern.transport.ReadResult;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * {@code FrameReader.next()} over many short lines (typical tools/call lines, each ~200 bytes):
 * splitting, the byte limit, strict UTF-8 decoding and the SHA-256 fingerprint. The score is per line.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class FrameReaderBenchmark {
    static final int LINES = 1000;

    private byte[] input;

    @Setup
    public void setUp() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < LINES; i++) {
            b.append(Workload.HTTP_CALL.replace("\"id\":42", "\"id\":" + i)).append('\n');
        }
        input = b.toString().getBytes(StandardCharsets.UTF_8);
    }

    @Benchmark
    @OperationsPerInvocation(LINES)
    public void next(Blackhole bh) {
        FrameReader reader = new FrameReader(new ByteArrayInputStream(input), Workload.MAX_FRAME_BYTES);
        for (int i = 0; i < LINES; i++) {
            ReadResult r = reader.next();
            if (!(r instanceof Frame)) {
                throw new IllegalStateException("line " + i + " was not a frame: " + r);
            }
            bh.consume(r);
        }
    }
}
