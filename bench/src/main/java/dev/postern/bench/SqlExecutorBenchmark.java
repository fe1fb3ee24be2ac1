package dev.postern.bench;

import dev.postern.executor.sql.SqlActionExecutor;
import dev.postern.fixtures.InMemoryCredentials;
import dev.postern.policy.AuthorizedSqlStatement;
import dev.postern.policy.Decision;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.action.Argument;
import dev.postern.policy.action.SqlQueryAction;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.outcome.SqlRowsOutcome;
import dev.postern.policy.port.Cancellation;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The {@code sql_query} executor in process against the same query over JDBC directly, on one
 * throwaway PostgreSQL cluster ({@link LoopbackPostgres}: {@code SELECT … FROM items WHERE id = ?},
 * one row of four columns). {@code executor} is {@code SqlActionExecutor.execute} with a permit from
 * the real policy engine, its connection pooled; {@code direct} is one kept autocommit connection with
 * the statement prepared once. Only the call is timed; before each call the thread pauses
 * {@code pauseMicros} (outside the measurement), standing in for what the gateway and the agent do
 * between two calls (rendering, the journal, stdio): at 0 the calls run back to back. Scores are
 * sampled per call, so the median ({@code p0.50}) stands apart from the preemptions of a busy machine
 * that make up the mean; compare the two methods of one run only. The cluster logs no statements
 * ({@code serverLog=none}, as an operator runs a server; {@code -p serverLog=all} is the test fixture's
 * setting, which costs the server a log line per statement: two per executor call, one per direct query).
 *
 * <p>Like the contract kit, this calls an executor outside the dispatcher, only to measure it; bench
 * is no part of the gateway.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SqlExecutorBenchmark {
    private static final String CREDENTIAL = "bench-db-password";

    @Param({"0", "200"})
    public int pauseMicros;

    /** The cluster's {@code log_statement}: {@code none} as an operator runs it; {@code all} as the test fixture does. */
    @Param({"none"})
    public String serverLog;

    private LoopbackPostgres pg;
    private SqlActionExecutor executor;
    private AuthorizedSqlStatement[] permits;
    private int next;

    @Setup(Level.Trial)
    public void start() throws SQLException {
        pg = LoopbackPostgres.start(serverLog);
        if (!pg.setting("log_statement").equals(serverLog)) {
            throw new IllegalStateException("the cluster logs statements as " + pg.setting("log_statement") + ", not " + serverLog);
        }
        executor = new SqlActionExecutor(new InMemoryCredentials().put(CREDENTIAL, pg.password()));
        SqlDatabase database = pg.database(CREDENTIAL);
        PolicyEngine engine = new PolicyEngine(Policy.of(database));
        permits = new AuthorizedSqlStatement[1000];
        for (int i = 0; i < permits.length; i++) {
            Decision d = engine.decide(new SqlQueryAction(database.name(), LoopbackPostgres.STATEMENT,
                    Map.of("id", new Argument.Whole(i + 1))));
            if (!(d instanceof Decision.Permit p) || !(p.permit() instanceof AuthorizedSqlStatement permit)) {
                throw new IllegalStateException("the bench policy must permit the query: " + d);
            }
            permits[i] = permit;
        }
        Outcome first = executor.execute(permits[0], new Cancellation());
        if (!(first instanceof SqlRowsOutcome rows) || rows.rowCount() != 1) {
            throw new IllegalStateException("the executor did not read the row: " + first);
        }
        if (pg.queryDirectly(1) != 1) {
            throw new IllegalStateException("the direct query did not read the row");
        }
    }

    @Setup(Level.Invocation)
    public void pause() {
        if (pauseMicros > 0) {
            LockSupport.parkNanos(pauseMicros * 1000L);
        }
    }

    @Benchmark
    public Outcome executor() {
        AuthorizedSqlStatement permit = permits[next];
        next = (next + 1) % permits.length;
        return executor.execute(permit, new Cancellation());
    }

    @Benchmark
    public int direct() throws SQLException {
        int id = next + 1;
        next = (next + 1) % permits.length;
        return pg.queryDirectly(id);
    }

    @TearDown(Level.Trial)
    public void stop() {
        try {
            if (executor != null) {
                executor.close();
            }
        } finally {
            if (pg != null) {
                pg.close();
            }
        }
    }
}
