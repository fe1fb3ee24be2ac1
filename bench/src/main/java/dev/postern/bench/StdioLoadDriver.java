package dev.postern.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongFunction;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.io.entity.EntityUtils;

/**
 * Measures stdio MCP servers from outside, as a client would (DESIGN §9): start-up (spawn to the
 * {@code initialize} response), pipelined {@code tools/call} throughput at depths 1, 8 and 64 with
 * every id checked to be answered exactly once, sequential round trips, idle RSS and the peak RSS
 * while a 50 MB line without a newline is fed, and a loopback HTTP GET through the gateway against
 * the same GET with HttpClient directly, and (when PostgreSQL is installed) a loopback query through
 * {@code sql_query} against the same query over JDBC directly, and an upstream MCP server's {@code echo}
 * through the gateway against the same driver calling that upstream directly (with {@code tools/list}
 * answered from the pinned catalog). Loopback only; every loop is bounded and a watchdog kills
 * a server that stops answering. Results go to stderr and to {@code --out}, never to stdout.
 * Run with {@code --help} for the options.
 */
public final class StdioLoadDriver {
    static final String DEFAULT_COMMAND = "postern=bin/postern mcp-stdio --config {config}";
    static final List<String> ALL_SECTIONS = List.of("startup", "cold", "throughput", "latency", "memory", "http", "sql",
            "upstream");
    /** The DESIGN §9 peers and the floor, measured beside Postern by {@code --peers}: label, command, what must exist first. */
    static final List<String[]> PEERS = List.of(
            new String[] {"postern", "bin/postern mcp-stdio --config {config}", "bin/postern"},
            new String[] {"ts", "node bench/peers/ts/server.mjs", "bench/peers/ts/node_modules/@modelcontextprotocol/sdk/package.json"},
            new String[] {"java", "java -jar bench/peers/java/target/java-sdk-peer.jar", "bench/peers/java/target/java-sdk-peer.jar"},
            new String[] {"floor", "java -cp bench/target/benchmarks.jar dev.postern.bench.JvmFloor {config}", "bench/target/benchmarks.jar"});
    static final Figures.Figure STARTUP = new Figures.Figure("start-up, spawn → initialize response, median", "ms", false);
    static final Figures.Figure COLD = new Figures.Figure("cold throughput, first calls after initialize, depth 64", "calls/s", true);
    static final Figures.Figure WARM_1 = new Figures.Figure("warm throughput, depth 1", "calls/s", true);
    static final Figures.Figure WARM_8 = new Figures.Figure("warm throughput, depth 8", "calls/s", true);
    static final Figures.Figure WARM_64 = new Figures.Figure("warm throughput, depth 64", "calls/s", true);
    static final Figures.Figure P50 = new Figures.Figure("sequential round trip p50", "µs", false);
    static final Figures.Figure P99 = new Figures.Figure("sequential round trip p99", "µs", false);
    static final Figures.Figure IDLE = new Figures.Figure("idle RSS 1 s after initialize", "MB", false);
    static final Figures.Figure PEAK = new Figures.Figure("peak RSS fed a newline-free oversize line", "MB", false);
    static final Figures.Figure PEAK_RATIO = new Figures.Figure("peak RSS ÷ own idle RSS", "×", false);
    static final Figures.Figure LOST = new Figures.Figure("responses lost, duplicated or unexpected, all depths", "count", false);
    static final Figures.Figure HTTP_RATIO = new Figures.Figure("loopback GET via gateway ÷ HttpClient 5 direct, p50", "×", false);
    static final Figures.Figure SQL_RATIO = new Figures.Figure("loopback SQL query via gateway ÷ JDBC direct, p50", "×", false);
    /** The depth of the upstream section's throughput: the gateway's maxInFlight in its upstream config. */
    static final int UPSTREAM_DEPTH = 8;
    static final int[] DEPTHS = {1, 8, 64};
    static final long SECTION_DEADLINE_SECONDS = 180;
    static final long STALL_SECONDS = 10;

    private final Options options;
    private final Report report;
    private final Path config;
    private final String httpBase;
    private final Path stderrLog;
    private LoopbackPostgres postgres;
    private List<UpstreamEcho> upstreams = List.of();
    private final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "load-watchdog");
        t.setDaemon(true);
        return t;
    });
    private final Figures figures = new Figures();
    private final Map<String, Long> lost = new LinkedHashMap<>();
    private long nextId = 1000;
    private boolean allClean = true;

    private StdioLoadDriver(Options options, Report report, Path config, String httpBase, Path stderrLog) {
        this.options = options;
        this.report = report;
        this.config = config;
        this.httpBase = httpBase;
        this.stderrLog = stderrLog;
    }

    public static void main(String[] args) throws Exception {
        PrintStream err = System.err;
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("load driver: " + e.getMessage());
            err.println(Options.USAGE);
            System.exit(2);
            return;
        }
        if (options.help) {
            err.println(Options.USAGE);
            return;
        }
        Report report = new Report(err);
        Files.createDirectories(options.work);
        Path runDir = Files.createTempDirectory(options.work, "run-");
        Path stderrLog = runDir.resolve("servers-stderr.log");
        boolean clean;
        boolean withSql = options.sections.contains("sql") && dev.postern.fixtures.LocalPostgres.installed();
        try (LoopbackHttpService http = LoopbackHttpService.start();
                LoopbackPostgres pg = withSql ? LoopbackPostgres.start() : null) {
            Path config = writeConfig(runDir, http.baseUrl(), pg == null ? "" : pg.configSection(runDir));
            StdioLoadDriver driver = new StdioLoadDriver(options, report, config, http.baseUrl(), stderrLog);
            driver.postgres = pg;
            if (options.sections.contains("upstream")) {
                driver.upstreams = UpstreamEcho.available(cwd(), options.notes);
            }
            driver.header();
            driver.runAll(http);
            driver.summary();
            clean = driver.allClean;
        }
        report.line("load average at end (1/5/15 min): %s", loadAverage());
        report.line("servers' stderr: %s", stderrLog);
        report.writeTo(options.out);
        err.println("load driver: report written to " + options.out.toAbsolutePath());
        System.exit(clean ? 0 : 1);
    }

    /**
     * A Postern config with one loopback HTTP target and, given its section, one loopback database;
     * postern_targets, the cheap local tool, is always there.
     */
    static Path writeConfig(Path dir, String httpBase, String sqlSection) throws IOException {
        Path config = dir.resolve("postern.json");
        Files.writeString(config, """
                { "session": { "maxFrameBytes": 1048576, "maxInFlight": 8 },
                  "journal": { "directory": "journal" },%s
                  "http": { "targets": [
                    { "name": "loopback", "baseUrl": "%s", "methods": ["GET"], "pathPrefixes": ["/v1/"],
                      "allowPrivateAddresses": true, "timeoutMs": 5000, "maxResponseBytes": 65536 } ] } }
                """.formatted(sqlSection.isEmpty() ? "" : "\n" + sqlSection.strip() + ",", httpBase));
        return config;
    }

    private void header() {
        report.line("Postern stdio load report, %s", Instant.now());
        report.line("machine: nproc=%d, driver java %s (%s), %s %s", Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"), System.getProperty("java.vm.name"),
                System.getProperty("os.name"), System.getProperty("os.arch"));
        report.line("load average at start (1/5/15 min): %s", loadAverage());
        options.notes.forEach(n -> report.line("%s", n));
        report.line("config: %s (journal beside it)", config);
        options.commands.forEach((label, command) -> report.line("command %s: %s", label, String.join(" ", command(command))));
        report.line("one reading on this machine; compare ratios of commands run together, not absolute figures");
        report.line("");
    }

    /** The figures of this run as one table, each beside its ratio to the TypeScript SDK peer and to the floor. */
    private void summary() {
        lost.forEach((label, n) -> figures.put(LOST, label, n));
        report.line("");
        report.line("summary (ratios: this command's figure ÷ the %s's and ÷ the %s's; one run, same machine):",
                options.reference, options.floor);
        for (String row : figures.table(List.copyOf(options.commands.keySet()), options.reference, options.floor)) {
            report.line("%s", row);
        }
    }

    private List<String> command(String template) {
        return command(template, config);
    }

    private static List<String> command(String template, Path config) {
        List<String> argv = new ArrayList<>();
        for (String token : template.trim().split("\\s+")) {
            argv.add(token.replace("{config}", config.toString()));
        }
        return argv;
    }

    private void runAll(LoopbackHttpService http) throws Exception {
        if (options.sections.contains("startup")) {
            startup();
        }
        if (options.sections.contains("cold")) {
            // Interleaved like start-up: one fresh process per command per round, the median reported.
            Map<String, Samples> rates = new LinkedHashMap<>();
            options.commands.keySet().forEach(l -> rates.put(l, new Samples(options.coldRuns)));
            for (int i = 0; i < options.coldRuns; i++) {
                for (Map.Entry<String, String> c : options.commands.entrySet()) {
                    cold(c.getKey(), command(c.getValue()), rates.get(c.getKey()));
                }
            }
            rates.forEach((label, s) -> {
                if (s.size() > 0) {
                    report.row(label, "cold throughput, median of runs", String.format(Locale.ROOT,
                            "%,d calls/s (min %,d, max %,d, n=%d)", s.median(), s.min(), s.max(), s.size()));
                    figures.put(COLD, label, s.median());
                }
            });
        }
        for (Map.Entry<String, String> c : options.commands.entrySet()) {
            String label = c.getKey();
            List<String> command = command(c.getValue());
            if (options.sections.contains("throughput") || options.sections.contains("latency")) {
                load(label, command);
            }
            if (options.sections.contains("memory")) {
                memory(label, command);
            }
            if (options.sections.contains("http")) {
                if (c.getValue().contains("{config}")) {
                    http(label, command, http);
                } else {
                    report.row(label, "http GET through gateway vs direct", "skipped (the command takes no {config})");
                }
            }
            if (options.sections.contains("sql")) {
                if (postgres == null) {
                    report.row(label, "sql query through gateway vs direct", "skipped (PostgreSQL is not installed:"
                            + " apt-get install postgresql)");
                } else if (c.getValue().contains("{config}")) {
                    sql(label, command, postgres);
                } else {
                    report.row(label, "sql query through gateway vs direct", "skipped (the command takes no {config})");
                }
            }
            if (options.sections.contains("upstream")) {
                if (!c.getValue().contains("{config}")) {
                    report.row(label, "upstream echo through gateway vs direct", "skipped (the command takes no {config})");
                    continue;
                }
                for (UpstreamEcho u : upstreams) {
                    upstream(label, c.getValue(), u);
                }
            }
        }
    }

    // ---- start-up ----

    /** Spawns each command in turn (interleaved), {@code --spawns} times, timing spawn to the initialize response. */
    private void startup() throws Exception {
        Map<String, Samples> times = new LinkedHashMap<>();
        options.commands.keySet().forEach(l -> times.put(l, new Samples(options.spawns)));
        Map<String, String> comm = new LinkedHashMap<>();
        for (int i = 0; i < options.spawns; i++) {
            for (Map.Entry<String, String> c : options.commands.entrySet()) {
                long t0 = System.nanoTime();
                StdioClient p = StdioClient.start(command(c.getValue()), cwd(), stderrLog);
                ScheduledFuture<?> dog = guard(p);
                try {
                    p.send(initialize(1));
                    ResponseLine r = p.read();
                    long elapsed = System.nanoTime() - t0;
                    comm.put(c.getKey(), p.comm());
                    if (r.id() != 1 || r.errorCode() != 0) {
                        fail(c.getKey(), "start-up: initialize was not answered: " + p.lastLine());
                    } else {
                        times.get(c.getKey()).add(elapsed);
                    }
                } catch (IOException e) {
                    fail(c.getKey(), "start-up: " + e.getMessage());
                } finally {
                    dog.cancel(false);
                    p.close();
                }
            }
        }
        times.forEach((label, s) -> {
            report.row(label, "start-up: spawn -> initialize response",
                    String.format(Locale.ROOT, "median %s (min %s, max %s, n=%d, process %s)", Samples.millis(s.median()),
                            Samples.millis(s.min()), Samples.millis(s.max()), s.size(), comm.get(label)));
            if (s.size() > 0) {
                figures.put(STARTUP, label, s.median() / 1e6);
            }
        });
    }

    // ---- cold throughput: a fresh process, no warm-up ----

    /**
     * The first {@code --cold-calls} calls right after {@code initialize}, pipelined at depth 64, in a
     * fresh process: what a short agent session sees before the JIT has compiled the path.
     */
    private void cold(String label, List<String> command, Samples rates) throws Exception {
        try (StdioClient p = StdioClient.start(command, cwd(), stderrLog)) {
            ScheduledFuture<?> dog = guard(p);
            try {
                handshake(p);
                AnswerLedger ledger = new AnswerLedger(nextId, options.coldCalls);
                long nanos = pipelined(p, 64, options.coldCalls, ledger, StdioLoadDriver::targetsCall);
                double rate = options.coldCalls * 1e9 / nanos;
                report.row(label, "cold tools/call throughput, depth 64", String.format(Locale.ROOT,
                        "%,.0f calls/s (the first %d calls after initialize in %s; %s)", rate, options.coldCalls,
                        Samples.millis(nanos), ledger.summary()));
                countLost(label, ledger);
                if (ledger.clean()) {
                    rates.add(Math.round(rate));
                } else {
                    fail(label, "cold: " + ledger.summary());
                }
            } catch (IOException e) {
                fail(label, "cold: " + e.getMessage() + " (last line: " + p.lastLine() + ")");
            } finally {
                dog.cancel(false);
            }
        }
    }

    private void countLost(String label, AnswerLedger ledger) {
        lost.merge(label, (long) ledger.lost() + ledger.duplicates() + ledger.unexpected(), Long::sum);
    }

    // ---- throughput and latency, one session ----

    private void load(String label, List<String> command) throws Exception {
        try (StdioClient p = StdioClient.start(command, cwd(), stderrLog)) {
            ScheduledFuture<?> dog = guard(p);
            try {
                handshake(p);
                if (options.sections.contains("throughput")) {
                    pipelined(p, 8, options.warmup);
                    for (int depth : DEPTHS) {
                        AnswerLedger ledger = new AnswerLedger(nextId, options.calls);
                        long nanos = pipelined(p, depth, options.calls, ledger, StdioLoadDriver::targetsCall);
                        double rate = options.calls * 1e9 / nanos;
                        report.row(label, "tools/call throughput, depth " + depth, String.format(Locale.ROOT,
                                "%,.0f calls/s (%d calls in %s; %s)", rate, options.calls,
                                Samples.millis(nanos), ledger.summary()));
                        countLost(label, ledger);
                        if (!ledger.clean()) {
                            fail(label, "depth " + depth + ": " + ledger.summary());
                        } else {
                            figures.put(depth == 1 ? WARM_1 : depth == 8 ? WARM_8 : WARM_64, label, rate);
                        }
                    }
                }
                if (options.sections.contains("latency")) {
                    if (!options.sections.contains("throughput")) {
                        pipelined(p, 8, options.warmup);
                    }
                    roundTrips(label, p);
                }
                OptionalLong rss = p.statusKb("VmRSS");
                report.row(label, "RSS after the load", rss.isPresent() ? mb(rss.getAsLong()) : "?");
            } catch (IOException e) {
                fail(label, "load: " + e.getMessage() + " (last line: " + p.lastLine() + ")");
            } finally {
                dog.cancel(false);
            }
        }
    }

    private long pipelined(StdioClient p, int depth, int calls) throws Exception {
        AnswerLedger ledger = new AnswerLedger(nextId, calls);
        long nanos = pipelined(p, depth, calls, ledger, StdioLoadDriver::targetsCall);
        if (!ledger.clean()) {
            throw new IOException("warm-up: " + ledger.summary());
        }
        return nanos;
    }

    /**
     * Keeps up to {@code depth} calls written ahead of their answers: a writer thread writes while it
     * holds a permit and flushes before it waits; this thread reads answers and returns permits. A
     * notification the server sends meanwhile answers nothing and is passed over.
     */
    private long pipelined(StdioClient p, int depth, int calls, AnswerLedger ledger, LongFunction<String> call) throws Exception {
        long first = nextId;
        nextId += calls;
        Semaphore permits = new Semaphore(depth);
        AtomicReference<Exception> writeFailure = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            try {
                for (int i = 0; i < calls; i++) {
                    if (!permits.tryAcquire()) {
                        p.flush();
                        permits.acquire();
                    }
                    p.write(call.apply(first + i));
                }
                p.flush();
            } catch (IOException e) {
                writeFailure.set(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "load-writer");
        // A server that stops answering (it lost responses) is killed after STALL_SECONDS without progress:
        // the rest counts as lost, and the figure is reported as a failure rather than hanging the run.
        AtomicLong progress = new AtomicLong();
        long[] seen = {-1, System.nanoTime()};
        ScheduledFuture<?> stall = watchdog.scheduleAtFixedRate(() -> {
            long now = progress.get();
            if (now != seen[0]) {
                seen[0] = now;
                seen[1] = System.nanoTime();
            } else if (System.nanoTime() - seen[1] > TimeUnit.SECONDS.toNanos(STALL_SECONDS)) {
                p.kill();
            }
        }, 1, 1, TimeUnit.SECONDS);
        long t0 = System.nanoTime();
        writer.start();
        try {
            for (int i = 0; i < calls; i++) {
                ResponseLine r = p.read();
                if (r.notification()) {
                    i--;
                    continue;
                }
                if (ledger.record(r)) {
                    permits.release();
                }
                progress.incrementAndGet();
                if (ledger.answered() == calls) {
                    break;
                }
            }
        } catch (IOException e) {
            if (ledger.answered() == 0) {
                throw e;
            }
            // Stalled and killed, or the server ended: the ledger counts what was never answered.
        } finally {
            stall.cancel(false);
            writer.interrupt();
            writer.join(5_000);
        }
        long nanos = System.nanoTime() - t0;
        if (writeFailure.get() != null && ledger.lost() == 0) {
            throw new IOException("writing: " + writeFailure.get().getMessage(), writeFailure.get());
        }
        return nanos;
    }

    private void roundTrips(String label, StdioClient p) throws IOException {
        Samples s = new Samples(options.roundTrips);
        int bad = 0;
        for (int i = 0; i < options.roundTrips; i++) {
            long id = nextId++;
            String call = targetsCall(id);
            long t0 = System.nanoTime();
            p.send(call);
            ResponseLine r = p.read();
            s.add(System.nanoTime() - t0);
            if (r.id() != id || !r.ok()) {
                bad++;
            }
        }
        report.row(label, "sequential round trip p50 / p99", String.format(Locale.ROOT, "%s / %s (max %s, n=%d, bad %d)",
                Samples.micros(s.median()), Samples.micros(s.percentile(0.99)), Samples.micros(s.max()), s.size(), bad));
        if (bad > 0) {
            fail(label, "round trips: " + bad + " answers with a wrong id or an error");
        } else {
            figures.put(P50, label, s.median() / 1e3);
            figures.put(P99, label, s.percentile(0.99) / 1e3);
        }
    }

    // ---- memory ----

    /**
     * Idle RSS one second after the handshake, then a line of {@code --oversize-mb} MB without a
     * newline, fed in 64 KiB writes while another thread samples VmHWM every millisecond until the
     * process is gone (a gateway that refuses the line exits, so its peak is read while it still runs).
     */
    private void memory(String label, List<String> command) throws Exception {
        try (StdioClient p = StdioClient.start(command, cwd(), stderrLog)) {
            ScheduledFuture<?> dog = guard(p);
            try {
                handshake(p);
                Thread.sleep(1_000);
                long idleRss = p.statusKb("VmRSS").orElse(-1);
                long idleHwm = p.statusKb("VmHWM").orElse(-1);
                figures.put(IDLE, label, idleRss / 1024.0);
                report.row(label, "idle RSS 1 s after initialize", mb(idleRss) + " (VmHWM so far " + mb(idleHwm)
                        + ", process " + p.comm() + ")");
                AtomicLong peak = new AtomicLong(idleHwm);
                Thread sampler = new Thread(() -> {
                    while (p.isAlive()) {
                        p.statusKb("VmHWM").ifPresent(v -> peak.accumulateAndGet(v, Math::max));
                        try {
                            Thread.sleep(1);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }, "rss-sampler");
                sampler.start();
                long written = feedOversizeLine(p);
                ResponseLine answer;
                try {
                    answer = p.read();
                } catch (IOException e) {
                    answer = null;
                }
                int exit = p.awaitExit(30);
                sampler.join(5_000);
                long peakHwm = peak.get();
                figures.put(PEAK, label, peakHwm / 1024.0);
                figures.put(PEAK_RATIO, label, (double) peakHwm / idleRss);
                report.row(label, "peak RSS while fed a " + options.oversizeMb + " MB line", String.format(Locale.ROOT,
                        "VmHWM %s = %.2fx idle RSS (%s MB written before the pipe closed; answer %s; exit %d)",
                        mb(peakHwm), (double) peakHwm / idleRss, String.format(Locale.ROOT, "%.1f", written / 1e6),
                        answer == null ? "none" : "error " + answer.errorCode(), exit));
            } catch (IOException e) {
                fail(label, "memory: " + e.getMessage());
            } finally {
                dog.cancel(false);
            }
        }
    }

    /** Writes the oversize line until it is all written or the server closes the pipe; returns bytes written. */
    private long feedOversizeLine(StdioClient p) {
        long total = options.oversizeMb * 1_000_000L;
        byte[] head = "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"postern_targets\",\"arguments\":{\"pad\":\""
                .getBytes(StandardCharsets.US_ASCII);
        byte[] chunk = new byte[1 << 16];
        Arrays.fill(chunk, (byte) 'a');
        long written = 0;
        try {
            p.writeRaw(head, 0, head.length);
            written += head.length;
            while (written < total) {
                int n = (int) Math.min(chunk.length, total - written);
                p.writeRaw(chunk, 0, n);
                written += n;
            }
            p.flush();
        } catch (IOException e) {
            // The server refused the line and closed its stdin: the expected end for a strict gateway.
        }
        p.closeInput();
        return written;
    }

    // ---- HTTP through the gateway vs direct ----

    /** Alternates one GET through the gateway with one GET by HttpClient 5 directly, so noise hits both alike. */
    private void http(String label, List<String> command, LoopbackHttpService service) throws Exception {
        String url = httpBase + "/v1/items/17";
        long before = service.requests();
        int rounds = options.httpRoundTrips;
        int warmup = options.pathWarmup;
        Samples viaGateway = new Samples(rounds);
        Samples direct = new Samples(rounds);
        int bad = 0;
        try (StdioClient p = StdioClient.start(command, cwd(), stderrLog);
                CloseableHttpClient client = HttpClients.custom().disableAutomaticRetries().disableRedirectHandling().build()) {
            ScheduledFuture<?> dog = guard(p);
            try {
                handshake(p);
                for (int i = 0; i < warmup + rounds; i++) {
                    long id = nextId++;
                    String call = "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
                            + "\"arguments\":{\"method\":\"GET\",\"url\":\"" + url + "\"}}}";
                    long t0 = System.nanoTime();
                    p.send(call);
                    ResponseLine r = p.read();
                    long t1 = System.nanoTime();
                    int status = client.execute(new HttpGet(url), response -> {
                        EntityUtils.consume(response.getEntity());
                        return response.getCode();
                    });
                    long t2 = System.nanoTime();
                    if (r.id() != id || !r.ok() || status != 200) {
                        bad++;
                    }
                    if (i >= warmup) {
                        viaGateway.add(t1 - t0);
                        direct.add(t2 - t1);
                    }
                }
            } catch (IOException e) {
                fail(label, "http: " + e.getMessage() + " (last line: " + p.lastLine() + ")");
            } finally {
                dog.cancel(false);
            }
        }
        long served = service.requests() - before;
        report.row(label, "http GET via gateway p50 / p99", Samples.micros(viaGateway.median()) + " / "
                + Samples.micros(viaGateway.percentile(0.99)) + " (n=" + viaGateway.size() + ", bad " + bad + ")");
        report.row(label, "http GET direct (HttpClient 5) p50 / p99", Samples.micros(direct.median()) + " / "
                + Samples.micros(direct.percentile(0.99)) + " (n=" + direct.size() + ")");
        figures.put(HTTP_RATIO, label, (double) viaGateway.median() / Math.max(1, direct.median()));
        report.row(label, "http GET via gateway / direct (p50)", String.format(Locale.ROOT, "%.2fx (server saw %d of %d GETs)",
                (double) viaGateway.median() / Math.max(1, direct.median()), served, 2L * (warmup + rounds)));
        if (bad > 0 || served != 2L * (warmup + rounds)) {
            fail(label, "http: " + bad + " bad answers, server saw " + served);
        }
    }

    // ---- SQL through the gateway vs direct ----

    /**
     * Alternates one {@code sql_query} through the gateway with the same query over JDBC directly (one
     * kept connection, autocommit), so noise hits both alike; both read one row of four columns.
     */
    private void sql(String label, List<String> command, LoopbackPostgres pg) throws Exception {
        int rounds = options.httpRoundTrips;
        int warmup = options.pathWarmup;
        Samples viaGateway = new Samples(rounds);
        Samples direct = new Samples(rounds);
        int bad = 0;
        long connectionsBefore = pg.connections();
        try (StdioClient p = StdioClient.start(command, cwd(), stderrLog)) {
            ScheduledFuture<?> dog = guard(p);
            try {
                handshake(p);
                for (int i = 0; i < warmup + rounds; i++) {
                    long id = nextId++;
                    int item = 1 + i % 1000;
                    String call = "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"sql_query\","
                            + "\"arguments\":{\"database\":\"" + LoopbackPostgres.DATABASE + "\",\"statement\":\""
                            + LoopbackPostgres.STATEMENT + "\",\"args\":{\"id\":" + item + "}}}}";
                    long t0 = System.nanoTime();
                    p.send(call);
                    ResponseLine r = p.read();
                    long t1 = System.nanoTime();
                    if (i == 0 && r.errorCode() == -32601) {
                        report.row(label, "sql query through gateway vs direct", "skipped (the command serves no sql_query)");
                        return;
                    }
                    int rows = pg.queryDirectly(item);
                    long t2 = System.nanoTime();
                    if (r.id() != id || !r.ok() || rows != 1) {
                        bad++;
                    }
                    if (i >= warmup) {
                        viaGateway.add(t1 - t0);
                        direct.add(t2 - t1);
                    }
                }
            } catch (IOException | java.sql.SQLException e) {
                fail(label, "sql: " + e.getMessage() + " (last line: " + p.lastLine() + ")");
            } finally {
                dog.cancel(false);
            }
        }
        long opened = pg.connections() - connectionsBefore;
        report.row(label, "sql query via gateway p50 / p99", Samples.micros(viaGateway.median()) + " / "
                + Samples.micros(viaGateway.percentile(0.99)) + " (n=" + viaGateway.size() + ", bad " + bad + ")");
        report.row(label, "sql query direct (JDBC) p50 / p99", Samples.micros(direct.median()) + " / "
                + Samples.micros(direct.percentile(0.99)) + " (n=" + direct.size() + ")");
        figures.put(SQL_RATIO, label, (double) viaGateway.median() / Math.max(1, direct.median()));
        report.row(label, "sql query via gateway / direct (p50)", String.format(Locale.ROOT,
                "%.2fx (sessions the role opened, the direct one included: %d)", (double) viaGateway.median() / Math.max(1, direct.median()), opened));
        if (bad > 0) {
            fail(label, "sql: " + bad + " bad answers");
        }
    }

    // ---- an upstream MCP server's echo through the gateway vs direct ----

    /**
     * The upstream {@code u} spoken to directly by this driver and, in the same run, behind a gateway
     * ({@code template} with a config of its own: {@code u}, {@code echo} pinned at the pin of the
     * direct session's live listing). Sequential calls alternate one through the gateway with one
     * directly, after {@code --path-warmup} untimed rounds; then {@code --calls} calls pipelined at
     * depth {@value #UPSTREAM_DEPTH} on each side; then, in a second gateway whose upstream logs what
     * it receives (when it can), {@code tools/list} round trips, checking the upstream heard none of them.
     */
    private void upstream(String label, String template, UpstreamEcho u) throws Exception {
        String what = "upstream " + u.name() + " echo";
        Path dir = Files.createTempDirectory(config.getParent(), "upstream-" + label + "-" + u.name() + "-");
        int rounds = options.httpRoundTrips;
        int warmup = options.pathWarmup;
        Samples viaGateway = new Samples(rounds);
        Samples direct = new Samples(rounds);
        int bad = 0;
        double gatewayRate = 0;
        double directRate = 0;
        String pinned;
        try (StdioClient up = StdioClient.start(u.command(), cwd(), stderrLog)) {
            ScheduledFuture<?> upDog = guard(up);
            try {
                handshake(up);
                up.send(request(nextId, "tools/list"));
                ResponseLine listed = answer(up);
                Optional<String> pin = listed.id() == nextId++ ? UpstreamEcho.pinOf(up.lineText()) : Optional.empty();
                if (pin.isEmpty()) {
                    fail(label, what + ": the upstream listed no echo (" + up.lastLine() + ")");
                    return;
                }
                pinned = pin.get();
                Path gatewayConfig = u.writeConfig(dir, pinned);
                report.row(label, what + ": pinned", pin.get() + " (from the live listing), config " + gatewayConfig);
                try (StdioClient gw = StdioClient.start(command(template, gatewayConfig), cwd(), stderrLog)) {
                    ScheduledFuture<?> gwDog = guard(gw);
                    try {
                        handshake(gw);
                        if (!awaitOffered(gw, u)) {
                            fail(label, what + ": the gateway never offered " + u.exposedName() + " (" + gw.lastLine() + ")");
                            return;
                        }
                        for (int i = 0; i < warmup + rounds; i++) {
                            long id = nextId++;
                            long t0 = System.nanoTime();
                            gw.send(u.gatewayCall(id));
                            ResponseLine r = answer(gw);
                            long t1 = System.nanoTime();
                            long directId = nextId++;
                            up.send(u.directCall(directId));
                            ResponseLine d = answer(up);
                            long t2 = System.nanoTime();
                            if (r.id() != id || !r.ok() || d.id() != directId || !d.ok()) {
                                bad++;
                            }
                            if (i >= warmup) {
                                viaGateway.add(t1 - t0);
                                direct.add(t2 - t1);
                            }
                        }
                        AnswerLedger gwLedger = new AnswerLedger(nextId, options.calls);
                        long gwNanos = pipelined(gw, UPSTREAM_DEPTH, options.calls, gwLedger, u::gatewayCall);
                        AnswerLedger upLedger = new AnswerLedger(nextId, options.calls);
                        long upNanos = pipelined(up, UPSTREAM_DEPTH, options.calls, upLedger, u::directCall);
                        countLost(label, gwLedger);
                        if (!gwLedger.clean() || !upLedger.clean()) {
                            fail(label, what + " pipelined: via gateway " + gwLedger.summary() + "; direct " + upLedger.summary());
                        } else {
                            gatewayRate = options.calls * 1e9 / gwNanos;
                            directRate = options.calls * 1e9 / upNanos;
                        }
                    } catch (IOException e) {
                        fail(label, what + ": " + e.getMessage() + " (last line: " + gw.lastLine() + ")");
                        return;
                    } finally {
                        gwDog.cancel(false);
                    }
                }
            } catch (IOException e) {
                fail(label, what + " direct: " + e.getMessage() + " (last line: " + up.lastLine() + ")");
                return;
            } finally {
                upDog.cancel(false);
            }
        }
        double p50 = (double) viaGateway.median() / Math.max(1, direct.median());
        double p99 = (double) viaGateway.percentile(0.99) / Math.max(1, direct.percentile(0.99));
        report.row(label, what + " via gateway p50 / p99", Samples.micros(viaGateway.median()) + " / "
                + Samples.micros(viaGateway.percentile(0.99)) + " (n=" + viaGateway.size() + ", bad " + bad + ")");
        report.row(label, what + " direct p50 / p99", Samples.micros(direct.median()) + " / "
                + Samples.micros(direct.percentile(0.99)) + " (n=" + direct.size() + ")");
        report.row(label, what + " via gateway / direct", String.format(Locale.ROOT,
                "p50 %.2fx, p99 %.2fx (DESIGN §9 asks p50 <= 1.3x, journal on tmpfs)", p50, p99));
        report.row(label, what + " pipelined, depth " + UPSTREAM_DEPTH, String.format(Locale.ROOT,
                "via gateway %,.0f calls/s, direct %,.0f calls/s, ratio %.2fx (%d calls each)", gatewayRate, directRate,
                gatewayRate / Math.max(1, directRate), options.calls));
        figures.put(new Figures.Figure(what + " p50 via gateway", "µs", false), label, viaGateway.median() / 1e3);
        figures.put(new Figures.Figure(what + " p50 direct", "µs", false), label, direct.median() / 1e3);
        figures.put(new Figures.Figure(what + " via gateway ÷ direct, p50", "×", false), label, p50);
        figures.put(new Figures.Figure(what + " via gateway ÷ direct, p99", "×", false), label, p99);
        if (gatewayRate > 0) {
            figures.put(new Figures.Figure(what + " via gateway, depth " + UPSTREAM_DEPTH, "calls/s", true), label, gatewayRate);
            figures.put(new Figures.Figure(what + " direct, depth " + UPSTREAM_DEPTH, "calls/s", true), label, directRate);
        }
        if (bad > 0) {
            fail(label, what + ": " + bad + " bad answers");
        }
        toolsList(label, template, u, dir, pinned);
    }

    /**
     * {@code --http-round-trips} sequential {@code tools/list} through a fresh gateway in front of
     * {@code u}, after {@code --path-warmup}; when {@code u} can log what it receives, the rounds must
     * add no {@code tools/list} to what it heard: the catalog answers them, pinned, with no upstream round trip.
     */
    private void toolsList(String label, String template, UpstreamEcho plain, Path dir, String pin) throws Exception {
        String what = "upstream " + plain.name() + " tools/list";
        Path log = dir.resolve("upstream-received.jsonl");
        UpstreamEcho u = plain.logged() ? plain.withLog(log) : plain;
        Path gatewayConfig = u.writeConfig(dir.resolve("tools-list"), pin);
        int rounds = options.httpRoundTrips;
        Samples s = new Samples(rounds);
        int bad = 0;
        long heardBefore;
        try (StdioClient gw = StdioClient.start(command(template, gatewayConfig), cwd(), stderrLog)) {
            ScheduledFuture<?> dog = guard(gw);
            try {
                handshake(gw);
                if (!awaitOffered(gw, u)) {
                    fail(label, what + ": the gateway never offered " + u.exposedName() + " (" + gw.lastLine() + ")");
                    return;
                }
                for (int i = 0; i < options.pathWarmup; i++) {
                    long id = nextId++;
                    gw.send(request(id, "tools/list"));
                    if (answer(gw).id() != id) {
                        bad++;
                    }
                }
                heardBefore = UpstreamEcho.toolsListsIn(log);
                for (int i = 0; i < rounds; i++) {
                    long id = nextId++;
                    long t0 = System.nanoTime();
                    gw.send(request(id, "tools/list"));
                    ResponseLine r = answer(gw);
                    s.add(System.nanoTime() - t0);
                    if (r.id() != id || !r.ok()) {
                        bad++;
                    }
                }
            } catch (IOException e) {
                fail(label, what + ": " + e.getMessage() + " (last line: " + gw.lastLine() + ")");
                return;
            } finally {
                dog.cancel(false);
            }
        }
        long heard = UpstreamEcho.toolsListsIn(log) - heardBefore;
        report.row(label, what + " via gateway p50 / p99", Samples.micros(s.median()) + " / " + Samples.micros(s.percentile(0.99))
                + " (n=" + s.size() + ", bad " + bad + "; " + (u.logged()
                ? "tools/list the upstream received during them: " + heard + ", expected 0)"
                : "the upstream keeps no log: not counted)"));
        figures.put(new Figures.Figure(what + " p50 via gateway", "µs", false), label, s.median() / 1e3);
        if (bad > 0 || heard != 0) {
            fail(label, what + ": " + bad + " bad answers, " + heard + " tools/list reached the upstream");
        }
    }

    /** Sends {@code tools/list} until the gateway offers {@code u}'s echo (its upstream starts after initialize), for at most 30 s. */
    private boolean awaitOffered(StdioClient gw, UpstreamEcho u) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            long id = nextId++;
            gw.send(request(id, "tools/list"));
            ResponseLine r = answer(gw);
            if (r.id() == id && r.ok() && u.offeredIn(gw.lineText())) {
                return true;
            }
            Thread.sleep(50);
        }
        return false;
    }

    static String request(long id, String method) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\"}";
    }

    // ---- helpers ----

    private void handshake(StdioClient p) throws IOException {
        p.send(initialize(1));
        ResponseLine r = answer(p);
        if (r.id() != 1 || r.errorCode() != 0) {
            throw new IOException("initialize was not answered: " + p.lastLine());
        }
        p.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    }

    /** The next line that is not a notification (an upstream may send some before and between its answers). */
    private static ResponseLine answer(StdioClient p) throws IOException {
        ResponseLine r = p.read();
        while (r.notification()) {
            r = p.read();
        }
        return r;
    }

    /** Kills the process if a section outlives its deadline, so every read ends. */
    private ScheduledFuture<?> guard(StdioClient p) {
        return watchdog.schedule(p::kill, SECTION_DEADLINE_SECONDS, TimeUnit.SECONDS);
    }

    private void fail(String label, String what) {
        allClean = false;
        report.row(label, "FAILED", what);
    }

    private static Path cwd() {
        return Path.of("").toAbsolutePath();
    }

    static String initialize(long id) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                + "\"capabilities\":{},\"clientInfo\":{\"name\":\"postern-load-driver\",\"version\":\"1\"}}}";
    }

    static String targetsCall(long id) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"postern_targets\",\"arguments\":{}}}";
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    private static String mb(long kb) {
        return kb < 0 ? "?" : String.format(Locale.ROOT, "%.1f MB", kb / 1024.0);
    }

    /** The command line, parsed strictly: an unknown option or a bad number is an error. */
    static final class Options {
        static final String USAGE = """
                usage: java -cp bench/target/benchmarks.jar dev.postern.bench.StdioLoadDriver [options]
                  --peers                 measure Postern beside the DESIGN §9 peers and the floor: postern, ts (TypeScript
                                          SDK, bench/peers/ts), java (MCP Java SDK, bench/peers/java), floor (JvmFloor);
                                          a peer that is not built is left out with a note. Combines with --command.
                  --command [LABEL=]CMD   a stdio server to measure, split on spaces; {config} becomes the generated
                                          Postern config. Repeatable; start-up spawns are interleaved.
                                          default: %s
                  --sections LIST         comma-separated subset of %s (default: all)
                  --spawns N              start-up spawns per command (default 10)
                  --cold-calls N          calls in the cold throughput figure, right after initialize (default 20000)
                  --cold-runs N           fresh processes per command for it, interleaved; the median counts (default 3)
                  --warmup N              calls before the warm throughput figures (default 10000)
                  --calls N               calls per throughput depth (default 20000)
                  --round-trips N         sequential round trips (default 5000)
                  --http-round-trips N    GETs each way, SQL queries each way, upstream echo calls each way and
                                          tools/list calls through the gateway (default 1000)
                  --path-warmup N         untimed rounds before them (upstream: before the calls), so that both sides are compiled
                                          (default 15000; the gateway's path is much longer than the floor's)
                  --oversize-mb N         the newline-free line's size in MB (default 50)
                  --work DIR              where configs, journals and the servers' stderr go (default bench/target/load)
                  --out FILE              the report file (default bench/target/load-report.txt)
                  --reference LABEL       the command the summary's ratios divide by (default ts)
                  --floor LABEL           the floor's label in the summary (default floor)
                Run from the repository root. Results go to stderr and to --out; nothing to stdout.
                """.formatted(DEFAULT_COMMAND, ALL_SECTIONS);

        final Map<String, String> commands = new LinkedHashMap<>();
        Set<String> sections = Set.copyOf(ALL_SECTIONS);
        int spawns = 10;
        int warmup = 10_000;
        int coldCalls = 20_000;
        int coldRuns = 3;
        String reference = "ts";
        String floor = "floor";
        final List<String> notes = new ArrayList<>();
        int calls = 20_000;
        int roundTrips = 5_000;
        int httpRoundTrips = 1_000;
        int pathWarmup = 15_000;
        int oversizeMb = 50;
        Path work = Path.of("bench/target/load");
        Path out = Path.of("bench/target/load-report.txt");
        boolean help;

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (a.equals("--help") || a.equals("-h")) {
                    o.help = true;
                    continue;
                }
                if (a.equals("--peers")) {
                    o.addPeers();
                    continue;
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(a + " needs a value (or is unknown)");
                }
                String v = args[++i];
                switch (a) {
                    case "--command" -> o.addCommand(v);
                    case "--sections" -> o.sections = sections(v);
                    case "--spawns" -> o.spawns = positive(a, v);
                    case "--warmup" -> o.warmup = positive(a, v);
                    case "--cold-calls" -> o.coldCalls = positive(a, v);
                    case "--cold-runs" -> o.coldRuns = positive(a, v);
                    case "--reference" -> o.reference = v;
                    case "--floor" -> o.floor = v;
                    case "--calls" -> o.calls = positive(a, v);
                    case "--round-trips" -> o.roundTrips = positive(a, v);
                    case "--http-round-trips" -> o.httpRoundTrips = positive(a, v);
                    case "--path-warmup" -> o.pathWarmup = positive(a, v);
                    case "--oversize-mb" -> o.oversizeMb = positive(a, v);
                    case "--work" -> o.work = Path.of(v);
                    case "--out" -> o.out = Path.of(v);
                    default -> throw new IllegalArgumentException("unknown option " + a);
                }
            }
            if (o.commands.isEmpty()) {
                o.addCommand(DEFAULT_COMMAND);
            }
            return o;
        }

        private void addPeers() {
            for (String[] peer : PEERS) {
                if (Files.exists(Path.of(peer[2]))) {
                    addCommand(peer[0] + "=" + peer[1]);
                } else {
                    notes.add("left out " + peer[0] + ": " + peer[2] + " is missing (see bench/README.md, Peers)");
                }
            }
        }

        private void addCommand(String spec) {
            String label = "cmd" + (commands.size() + 1);
            String command = spec;
            int eq = spec.indexOf('=');
            if (eq > 0 && spec.substring(0, eq).matches("[A-Za-z0-9_-]+")) {
                label = spec.substring(0, eq);
                command = spec.substring(eq + 1);
            }
            if (command.isBlank()) {
                throw new IllegalArgumentException("--command needs a command");
            }
            if (commands.putIfAbsent(label, command) != null) {
                throw new IllegalArgumentException("two commands labelled " + label);
            }
        }

        private static Set<String> sections(String v) {
            Set<String> s = Set.of(v.split(","));
            for (String x : s) {
                if (!ALL_SECTIONS.contains(x)) {
                    throw new IllegalArgumentException("unknown section " + x + "; expected some of " + ALL_SECTIONS);
                }
            }
            return s;
        }

        private static int positive(String option, String v) {
            try {
                int n = Integer.parseInt(v);
                if (n < 1) {
                    throw new IllegalArgumentException(option + " must be positive, got " + v);
                }
                return n;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(option + " must be a number, got " + v);
            }
        }
    }
}
