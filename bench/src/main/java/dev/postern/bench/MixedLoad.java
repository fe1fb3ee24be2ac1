package dev.postern.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.fixtures.GatewayProcess;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * The mixed pipelined load run (issue 17's "100,000 pipelined mixed requests"): one packaged gateway
 * ({@code bin/postern mcp-stdio}, maxInFlight 8 by default) receives, written ahead of any answer,
 * a seeded mix of allowed {@code http_request} GETs, policy denials, schema-invalid arguments, unknown
 * tools, pings, {@code tools/list} and {@code notifications/cancelled} for some allowed calls a few
 * frames after them. Then it checks, from outside: every id answered exactly once (a cancelled call
 * answered at most once); the target saw each allowed call at most once, every one not cancelled
 * exactly once, and nothing else; {@code audit verify} passes with no interrupted action;
 * {@code actions.jsonl} (every rotated file too) holds exactly one intent and one outcome per
 * allowed call and nothing else, {@code decisions.jsonl} exactly one row of the right reason per
 * rejected request and nothing else. Journal rows are matched to requests by the SHA-256 of the
 * request line. Results go to stderr and {@code --out}, never to stdout; exit 0 only when every
 * check held. Run with {@code --help} for the options.
 */
public final class MixedLoad {
    static final String USAGE = """
            usage: java -cp bench/target/benchmarks.jar dev.postern.bench.MixedLoad [options]
              --requests N       requests to pipeline, cancellations not counted (default 100000)
              --max-in-flight N  the gateway's session.maxInFlight (default 8)
              --seed N           the mix's random seed (default 17)
              --cancel-share F   share of allowed calls followed by notifications/cancelled (default 0.1)
              --target-delay-ms N  the HTTP target's delay before each answer (default 1)
              --rotate-bytes N   the gateway's journal.rotateBytes (default 1048576, so the journals rotate)
              --work DIR         where each run's config, journal and gateway stderr go (default bench/target/mixed)
              --out FILE         the report (default bench/target/mixed-load-report.txt)""";

    /** What one request is; the share of each in the mix is its weight out of 100. */
    enum Kind {
        ALLOWED(40), DENIED(15), INVALID(15), UNKNOWN_TOOL(10), PING(12), LIST(8);

        final int weight;

        Kind(int weight) {
            this.weight = weight;
        }
    }

    /** The run's settings. */
    record Options(int requests, int maxInFlight, long seed, double cancelShare, long targetDelayMillis,
                   long rotateBytes, Path work, Path out) {
        Options {
            if (requests < 1 || maxInFlight < 1 || cancelShare < 0 || cancelShare > 1 || targetDelayMillis < 0
                    || rotateBytes < 4096) {
                throw new IllegalArgumentException("out of range: requests >= 1, max-in-flight >= 1, "
                        + "0 <= cancel-share <= 1, target-delay-ms >= 0, rotate-bytes >= 4096");
            }
        }

        static Options defaults() {
            return new Options(100_000, 8, 17, 0.1, 1, 1 << 20, Path.of("bench/target/mixed"),
                    Path.of("bench/target/mixed-load-report.txt"));
        }

        static Options parse(String[] args) {
            Options o = defaults();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (a.equals("--help")) {
                    return null;
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(a + " needs a value");
                }
                String v = args[++i];
                try {
                    o = switch (a) {
                        case "--requests" -> new Options(Integer.parseInt(v), o.maxInFlight, o.seed, o.cancelShare, o.targetDelayMillis, o.rotateBytes, o.work, o.out);
                        case "--max-in-flight" -> new Options(o.requests, Integer.parseInt(v), o.seed, o.cancelShare, o.targetDelayMillis, o.rotateBytes, o.work, o.out);
                        case "--seed" -> new Options(o.requests, o.maxInFlight, Long.parseLong(v), o.cancelShare, o.targetDelayMillis, o.rotateBytes, o.work, o.out);
                        case "--cancel-share" -> new Options(o.requests, o.maxInFlight, o.seed, Double.parseDouble(v), o.targetDelayMillis, o.rotateBytes, o.work, o.out);
                        case "--target-delay-ms" -> new Options(o.requests, o.maxInFlight, o.seed, o.cancelShare, Long.parseLong(v), o.rotateBytes, o.work, o.out);
                        case "--rotate-bytes" -> new Options(o.requests, o.maxInFlight, o.seed, o.cancelShare, o.targetDelayMillis, Long.parseLong(v), o.work, o.out);
                        case "--work" -> new Options(o.requests, o.maxInFlight, o.seed, o.cancelShare, o.targetDelayMillis, o.rotateBytes, Path.of(v), o.out);
                        case "--out" -> new Options(o.requests, o.maxInFlight, o.seed, o.cancelShare, o.targetDelayMillis, o.rotateBytes, o.work, Path.of(v));
                        default -> throw new IllegalArgumentException("unknown option " + a);
                    };
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(a + " needs a number, got " + v);
                }
            }
            return o;
        }
    }

    /**
     * The planned session: request ids 1..n with their kinds, which allowed calls get a cancellation,
     * every line in write order, and the SHA-256 of every request line (how journal rows name frames).
     */
    record Plan(Kind[] kinds, boolean[] cancelled, List<String> lines, Map<String, Integer> idBySha, int cancels) {
        int requests() {
            return kinds.length - 1;
        }

        static Plan of(Options o, String base) {
            int n = o.requests();
            Kind[] kinds = new Kind[n + 1];
            boolean[] cancelled = new boolean[n + 1];
            List<String> lines = new ArrayList<>(n + n / 8);
            Map<String, Integer> idBySha = new HashMap<>(n * 2);
            Map<Integer, List<Integer>> cancelAt = new HashMap<>();
            Random random = new Random(o.seed());
            int cancels = 0;
            for (int id = 1; id <= n; id++) {
                Kind kind = pick(random.nextInt(100));
                kinds[id] = kind;
                String line = line(kind, id, base, random.nextInt(3));
                lines.add(line);
                idBySha.put(sha256(line), id);
                if (kind == Kind.ALLOWED && random.nextDouble() < o.cancelShare()) {
                    cancelled[id] = true;
                    cancels++;
                    // 0..23 frames later: some while the call waits for a slot, some while it runs, some after it ended.
                    cancelAt.computeIfAbsent(id + random.nextInt(24), k -> new ArrayList<>()).add(id);
                }
                for (int target : cancelAt.getOrDefault(id, List.of())) {
                    lines.add(cancel(target));
                }
                cancelAt.remove(id);
            }
            cancelAt.values().forEach(ids -> ids.forEach(t -> lines.add(cancel(t))));
            return new Plan(kinds, cancelled, List.copyOf(lines), Map.copyOf(idBySha), cancels);
        }

        private static Kind pick(int r) {
            for (Kind k : Kind.values()) {
                if (r < k.weight) {
                    return k;
                }
                r -= k.weight;
            }
            throw new AssertionError("weights must add up to 100");
        }

        private static String line(Kind kind, int id, String base, int variant) {
            String head = "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",";
            return switch (kind) {
                case ALLOWED -> head + call("http_request", "{\"method\":\"GET\",\"url\":\"" + base + RecordingHttpTarget.PATH + id + "\"}");
                case DENIED -> head + call("http_request", switch (variant) {
                    case 0 -> "{\"method\":\"GET\",\"url\":\"" + base + "/v2/call/" + id + "\"}"; // http.path
                    case 1 -> "{\"method\":\"DELETE\",\"url\":\"" + base + RecordingHttpTarget.PATH + id + "\"}"; // http.method
                    default -> "{\"method\":\"GET\",\"url\":\"http://127.0.0.1:0/v1/call/" + id + "\"}"; // http.url.port
                });
                case INVALID -> head + call("http_request", switch (variant) {
                    case 0 -> "{\"method\":\"GET\"}";
                    case 1 -> "{\"method\":\"GET\",\"url\":\"" + base + "/v1/x\",\"extra\":" + id + "}";
                    default -> "{\"method\":\"GET\",\"url\":1e309}";
                });
                case UNKNOWN_TOOL -> head + call("no_such_tool", "{}");
                case PING -> head + "\"method\":\"ping\"}";
                case LIST -> head + "\"method\":\"tools/list\"}";
            };
        }

        private static String call(String tool, String arguments) {
            return "\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool + "\",\"arguments\":" + arguments + "}}";
        }

        private static String cancel(int id) {
            return "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":" + id
                    + ",\"reason\":\"mixed load\"}}";
        }
    }

    /** What a run saw: the plan, the failed checks (empty when all held) and where its journal is. */
    record Result(Plan plan, List<String> failures, Path journal) {
        boolean clean() {
            return failures.isEmpty();
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration STALL = Duration.ofSeconds(120);
    private static final int MAX_LISTED = 20;

    private final Options options;
    private final Report report;
    private final List<String> failures = new ArrayList<>();

    private MixedLoad(Options options, Report report) {
        this.options = options;
        this.report = report;
    }

    public static void main(String[] args) throws Exception {
        PrintStream err = System.err;
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("mixed load: " + e.getMessage());
            err.println(USAGE);
            System.exit(2);
            return;
        }
        if (options == null) {
            err.println(USAGE);
            return;
        }
        Report report = new Report(err);
        Result result = run(options, report);
        report.writeTo(options.out());
        err.println("mixed load: report written to " + options.out().toAbsolutePath());
        System.exit(result.clean() ? 0 : 1);
    }

    /** One whole run: spawns the gateway, pipelines the plan, checks everything, reports. */
    static Result run(Options options, Report report) throws Exception {
        return new MixedLoad(options, report).run();
    }

    private Result run() throws Exception {
        Files.createDirectories(options.work());
        Path dir = Files.createTempDirectory(options.work(), "run-").toAbsolutePath();
        Path journal = dir.resolve("journal");
        Path stderrLog = dir.resolve("gateway-stderr.log");
        try (RecordingHttpTarget target = RecordingHttpTarget.start(options.requests() + 1, options.targetDelayMillis())) {
            Plan plan = Plan.of(options, target.baseUrl());
            Path config = writeConfig(dir, target.baseUrl());
            report.line("Postern mixed load, %s", Instant.now());
            report.line("gateway: %s, config %s", GatewayProcess.launcher(), config);
            report.line("requests %d (seed %d), maxInFlight %d, cancellations %d, target delay %d ms, rotateBytes %d",
                    plan.requests(), options.seed(), options.maxInFlight(), plan.cancels(), options.targetDelayMillis(),
                    options.rotateBytes());
            Map<Kind, Integer> mix = new EnumMap<>(Kind.class);
            for (int id = 1; id <= plan.requests(); id++) {
                mix.merge(plan.kinds()[id], 1, Integer::sum);
            }
            report.line("mix: %s", mix);
            Session session = pipeline(plan, config, stderrLog);
            checkAnswers(plan, session);
            checkTarget(plan, session, target);
            checkAudit(journal);
            report.line("%s", checkJournal(plan, journal, failures));
            report.line("load average at end (1/5/15 min): %s", loadAverage());
            report.line("gateway stderr: %s", stderrLog);
            if (failures.isEmpty()) {
                report.line("RESULT: every check held");
            } else {
                report.line("RESULT: %d checks failed", failures.size());
                failures.stream().limit(MAX_LISTED * 2).forEach(f -> report.line("  FAIL %s", f));
            }
            return new Result(plan, List.copyOf(failures), journal);
        }
    }

    private Path writeConfig(Path dir, String base) throws IOException {
        Path config = dir.resolve("postern.json");
        Files.writeString(config, """
                { "session": { "maxInFlight": %d },
                  "journal": { "directory": "journal", "rotateBytes": %d },
                  "http": { "targets": [
                    { "name": "loopback", "baseUrl": "%s", "methods": ["GET"], "pathPrefixes": ["/v1/"],
                      "allowPrivateAddresses": true, "timeoutMs": 10000, "maxResponseBytes": 65536 } ] } }
                """.formatted(options.maxInFlight(), options.rotateBytes(), base));
        return config;
    }

    /** The answers as read: per id how many, and what the first one was. */
    private record Session(byte[] answers, ResponseLine[] first, String[] firstText, int unexpected, int exitStatus,
                           long elapsedNanos) {
    }

    private Session pipeline(Plan plan, Path config, Path stderrLog) throws Exception {
        int n = plan.requests();
        byte[] answers = new byte[n + 1];
        ResponseLine[] first = new ResponseLine[n + 1];
        String[] firstText = new String[n + 1];
        int unexpected = 0;
        AtomicInteger progress = new AtomicInteger();
        ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "mixed-watchdog");
            t.setDaemon(true);
            return t;
        });
        StdioClient client = StdioClient.start(GatewayProcess.launcherCommand(
                List.of("mcp-stdio", "--config", config.toString())), config.getParent(), stderrLog);
        AtomicReference<Throwable> writeFailure = new AtomicReference<>();
        long elapsed;
        int exit;
        try {
            int[] seen = {-1};
            watchdog.scheduleAtFixedRate(() -> {
                int now = progress.get();
                if (now == seen[0] && client.isAlive()) {
                    failures.add("no answer for " + STALL.toSeconds() + " s; the gateway was killed");
                    client.kill();
                }
                seen[0] = now;
            }, STALL.toSeconds(), STALL.toSeconds(), TimeUnit.SECONDS);
            client.send("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                    + "\"capabilities\":{},\"clientInfo\":{\"name\":\"mixed-load\",\"version\":\"1\"}}}");
            ResponseLine init = client.read();
            if (init.id() != 0 || !init.ok()) {
                failures.add("initialize was not answered: " + client.lastLine());
                return new Session(answers, first, firstText, 0, -1, 0);
            }
            client.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
            long t0 = System.nanoTime();
            Thread writer = new Thread(() -> {
                try {
                    for (String line : plan.lines()) {
                        client.write(line);
                    }
                    client.flush();
                } catch (IOException | RuntimeException e) {
                    writeFailure.set(e);
                } finally {
                    client.closeInput();
                }
            }, "mixed-writer");
            writer.start();
            while (true) {
                ResponseLine r;
                try {
                    r = client.read();
                } catch (EOFException e) {
                    break;
                }
                progress.incrementAndGet();
                long id = r.id();
                if (id < 1 || id > n) {
                    if (unexpected++ < MAX_LISTED) {
                        failures.add("an answer to no request of the run: " + client.lastLine());
                    }
                    continue;
                }
                int i = (int) id;
                if (answers[i] < Byte.MAX_VALUE) {
                    answers[i]++;
                }
                if (first[i] == null) {
                    first[i] = r;
                    if (!r.ok()) {
                        firstText[i] = client.lastLine();
                    }
                }
            }
            elapsed = System.nanoTime() - t0;
            writer.join(TimeUnit.SECONDS.toMillis(30));
            exit = client.awaitExit(60);
        } finally {
            watchdog.shutdownNow();
            client.kill();
        }
        if (writeFailure.get() != null) {
            failures.add("writing the requests failed: " + writeFailure.get());
        }
        if (exit != 0) {
            failures.add("the gateway exited with status " + exit + " after end of input, not 0");
        }
        report.line("pipelined %d lines (%d requests, %d cancellations) in %.1f s: %.0f requests/s; gateway exit status %d",
                plan.lines().size(), n, plan.cancels(), elapsed / 1e9, n / (elapsed / 1e9), exit);
        return new Session(answers, first, firstText, unexpected, exit, elapsed);
    }

    private void checkAnswers(Plan plan, Session s) {
        Map<Kind, int[]> answered = new EnumMap<>(Kind.class);
        int cancelledAnswered = 0;
        int cancelledSuppressed = 0;
        int cancelledAnsweredOk = 0;
        int wrong = 0;
        for (int id = 1; id <= plan.requests(); id++) {
            Kind kind = plan.kinds()[id];
            int count = s.answers()[id];
            answered.computeIfAbsent(kind, k -> new int[1])[0] += count > 0 ? 1 : 0;
            if (count > 1) {
                wrong += fail("id " + id + " (" + kind + ") answered " + count + " times");
                continue;
            }
            if (plan.cancelled()[id]) {
                if (count == 0) {
                    cancelledSuppressed++;
                } else {
                    cancelledAnswered++;
                    if (s.first()[id].ok()) {
                        cancelledAnsweredOk++;
                    } else if (!s.firstText()[id].contains("CANCELLED")) {
                        wrong += fail("cancelled id " + id + " answered neither with its result nor CANCELLED: " + s.firstText()[id]);
                    }
                }
                continue;
            }
            if (count == 0) {
                wrong += fail("id " + id + " (" + kind + ") never answered");
                continue;
            }
            ResponseLine r = s.first()[id];
            String text = s.firstText()[id];
            boolean right = switch (kind) {
                case ALLOWED, PING, LIST -> r.ok();
                case DENIED -> r.toolError() && text.contains("POLICY_DENIED");
                case INVALID -> r.toolError() && text.contains("INVALID_ARGUMENTS");
                case UNKNOWN_TOOL -> r.errorCode() == -32602;
            };
            if (!right) {
                wrong += fail("id " + id + " (" + kind + ") answered wrongly: " + (text != null ? text : r));
            }
        }
        report.line("answers: %s; unexpected %d; wrong or missing %d", answeredSummary(answered), s.unexpected(), wrong);
        report.line("cancelled calls: %d answered (%d with their result, %d CANCELLED), %d suppressed",
                cancelledAnswered, cancelledAnsweredOk, cancelledAnswered - cancelledAnsweredOk, cancelledSuppressed);
    }

    private static String answeredSummary(Map<Kind, int[]> answered) {
        StringBuilder b = new StringBuilder();
        answered.forEach((k, v) -> b.append(b.length() == 0 ? "" : ", ").append(k).append(' ').append(v[0]));
        return b.toString();
    }

    private void checkTarget(Plan plan, Session s, RecordingHttpTarget target) {
        int allowed = 0;
        int cancelledNotReached = 0;
        int cancelledReached = 0;
        long hitsSum = 0;
        for (int id = 1; id <= plan.requests(); id++) {
            int hits = target.hits(id);
            hitsSum += hits;
            Kind kind = plan.kinds()[id];
            if (kind != Kind.ALLOWED) {
                if (hits != 0) {
                    fail("id " + id + " (" + kind + ") reached the target " + hits + " times");
                }
                continue;
            }
            allowed++;
            if (hits > 1) {
                fail("allowed id " + id + " reached the target " + hits + " times");
            } else if (plan.cancelled()[id]) {
                if (hits == 0) {
                    cancelledNotReached++;
                    if (s.answers()[id] > 0 && s.first()[id].ok()) {
                        fail("cancelled id " + id + " answered with a result but never reached the target");
                    }
                } else {
                    cancelledReached++;
                }
            } else if (hits == 0) {
                fail("allowed id " + id + " never reached the target");
            }
        }
        if (target.stray() != 0) {
            fail("the target saw " + target.stray() + " requests for no call of the run");
        }
        if (target.requests() != allowed - cancelledNotReached || hitsSum != target.requests()) {
            fail("the target saw " + target.requests() + " requests; allowed calls not cancelled before they reached it: "
                    + (allowed - cancelledNotReached));
        }
        report.line("target: %d requests = %d allowed calls - %d cancelled before they reached it (%d cancelled after); stray %d",
                target.requests(), allowed, cancelledNotReached, cancelledReached, target.stray());
    }

    private void checkAudit(Path journal) throws IOException, InterruptedException {
        GatewayProcess audit = GatewayProcess.start(GatewayProcess.launcherCommand(List.of("audit", "verify", journal.toString())),
                journal.getParent(), Map.of(), ProcessBuilder.Redirect.PIPE);
        String out;
        int exit;
        try (audit) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (InputStream in = audit.stdout()) {
                in.transferTo(bytes);
            }
            out = bytes.toString(StandardCharsets.UTF_8).strip();
            exit = audit.awaitExit(Duration.ofSeconds(120)).orElse(-1);
        }
        out.lines().forEach(l -> report.line("audit verify: %s", l));
        if (exit != 0) {
            fail("audit verify exited " + exit + ", not 0");
        }
        if (out.contains("interrupted")) {
            fail("audit verify lists interrupted actions");
        }
    }

    /**
     * The journal against the plan: one decisions row per rejected request with its reason, none
     * for anything else; one intent and one outcome row per allowed call (ok with status 200 unless
     * cancelled), none for anything else. Adds what did not hold to {@code failures}; returns a summary line.
     */
    static String checkJournal(Plan plan, Path journal, List<String> failures) throws IOException {
        int n = plan.requests();
        int[] decisions = new int[n + 1];
        int[] intents = new int[n + 1];
        int[] outcomes = new int[n + 1];
        String[] results = new String[n + 1];
        Map<Long, Integer> idByIntentSeq = new HashMap<>();
        List<JsonNode> outcomeRows = new ArrayList<>();
        int decisionRows = 0;
        int actionRows = 0;
        int files = 0;
        List<Path> paths;
        try (Stream<Path> listing = Files.list(journal)) {
            paths = listing.filter(p -> p.getFileName().toString().endsWith(".jsonl")).sorted().toList();
        }
        for (Path file : paths) {
            files++;
            boolean isDecisions = file.getFileName().toString().startsWith("decisions");
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                JsonNode row = JSON.readTree(line);
                Integer id = plan.idBySha().get(row.path("frame").asText(""));
                if (isDecisions) {
                    decisionRows++;
                    if (id == null) {
                        failures.add(file.getFileName() + ": a decisions row for no request of the run: " + line);
                        continue;
                    }
                    decisions[id]++;
                    String expected = switch (plan.kinds()[id]) {
                        case DENIED -> "POLICY_DENIED";
                        case INVALID -> "INVALID_ARGUMENTS";
                        case UNKNOWN_TOOL -> "INVALID_PARAMS";
                        default -> null;
                    };
                    if (expected == null || !expected.equals(row.path("reason").asText())) {
                        failures.add("id " + id + " (" + plan.kinds()[id] + ") has the decisions row " + line);
                    }
                    continue;
                }
                actionRows++;
                String kind = row.path("kind").asText();
                if (kind.equals("intent")) {
                    if (id == null || plan.kinds()[id] != Kind.ALLOWED) {
                        failures.add(file.getFileName() + ": an intent row for no allowed call: " + line);
                        continue;
                    }
                    intents[id]++;
                    idByIntentSeq.put(row.path("seq").asLong(), id);
                } else if (kind.equals("outcome")) {
                    outcomeRows.add(row);
                } else {
                    failures.add(file.getFileName() + ": an actions row of kind '" + kind + "': " + line);
                }
            }
        }
        for (JsonNode row : outcomeRows) {
            Integer id = idByIntentSeq.get(row.path("intent").asLong(-1));
            if (id == null) {
                failures.add("an outcome row naming no intent of the run: " + row);
                continue;
            }
            outcomes[id]++;
            results[id] = row.path("result").asText() + (row.has("status") ? " " + row.path("status").asInt() : "");
        }
        int bad = 0;
        for (int id = 1; id <= n; id++) {
            Kind kind = plan.kinds()[id];
            boolean rejected = kind == Kind.DENIED || kind == Kind.INVALID || kind == Kind.UNKNOWN_TOOL;
            if (decisions[id] != (rejected ? 1 : 0)) {
                bad += add(failures, "id " + id + " (" + kind + ") has " + decisions[id] + " decisions rows");
            }
            int expected = kind == Kind.ALLOWED ? 1 : 0;
            if (intents[id] != expected || outcomes[id] != expected) {
                bad += add(failures, "id " + id + " (" + kind + ") has " + intents[id] + " intent and " + outcomes[id] + " outcome rows");
            } else if (kind == Kind.ALLOWED && !"ok 200".equals(results[id])
                    && !(plan.cancelled()[id] && "CANCELLED".equals(results[id]))) {
                bad += add(failures, "id " + id + " has the outcome " + results[id]);
            }
        }
        return String.format(Locale.ROOT, "journal: %d files, %d decisions rows, %d actions rows, %d requests whose rows are not as planned",
                files, decisionRows, actionRows, bad);
    }

    private int fail(String message) {
        return add(failures, message);
    }

    private static int add(List<String> failures, String message) {
        failures.add(message);
        return 1;
    }

    static String sha256(String line) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(line.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JDK", e);
        }
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
