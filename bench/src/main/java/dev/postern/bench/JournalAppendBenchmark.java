package dev.postern.bench;

import dev.postern.app.Gateway;
import dev.postern.journal.FileAuditJournal;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.Decision;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.port.JournalUnavailableException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A durable intent row in {@code FileAuditJournal} (written and forced before an executor may run),
 * from 1 and from 8 threads at once: with group commit, concurrent intents share one force, so the
 * time per row under 8 threads falls well below one force each. {@code forceOnly} is the disk's own
 * cost of one small append and {@code fdatasync}, beside it. At the end of each trial the rows and
 * forces are printed on stderr. The journal directory is made under {@code java.io.tmpdir} (set
 * {@code -Djava.io.tmpdir=DIR} in {@code -jvmArgs} to measure another disk) and deleted afterwards.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class JournalAppendBenchmark {
    private static final String FRAME = "ab".repeat(32);
    private static final byte[] ROW = new byte[200];

    private Path dir;
    private FileAuditJournal journal;
    private FileChannel raw;
    private AuthorizedAction permit;
    private final AtomicLong rows = new AtomicLong();
    private long forcesBefore;

    @Setup(Level.Trial)
    public void open() throws IOException {
        dir = Files.createTempDirectory("postern-journal-bench");
        journal = FileAuditJournal.open(dir, new PrintStream(System.err, true), Gateway.journalRows());
        raw = FileChannel.open(dir.resolve("force-only.bin"), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND);
        Decision d = new PolicyEngine(Workload.policy()).decide(new HttpRequestAction("GET", Workload.BASE_URL + "/v1/items/17",
                List.of(), List.of(), Optional.empty()));
        if (!(d instanceof Decision.Permit p)) {
            throw new IllegalStateException("the workload no longer permits the benchmark's call: " + d);
        }
        permit = p.permit();
        forcesBefore = journal.actionForces();
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        long forces = journal.actionForces() - forcesBefore;
        long n = rows.get();
        System.err.printf("journal: %d intent rows, %d forces of actions.jsonl, %.2f rows per force%n",
                n, forces, forces == 0 ? 0.0 : (double) n / forces);
        journal.close();
        raw.close();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }

    private long intent() throws JournalUnavailableException {
        long seq = journal.intent(permit, FRAME);
        rows.incrementAndGet();
        return seq;
    }

    @Benchmark
    @Threads(1)
    public long intentOneThread() throws JournalUnavailableException {
        return intent();
    }

    @Benchmark
    @Threads(8)
    public long intentEightThreads() throws JournalUnavailableException {
        return intent();
    }

    /** One 200-byte append and one fdatasync on a plain file: the floor a durable row cannot go below. */
    @Benchmark
    @Threads(1)
    public int forceOnly() throws IOException {
        int n = raw.write(ByteBuffer.wrap(ROW));
        raw.force(false);
        return n;
    }
}
