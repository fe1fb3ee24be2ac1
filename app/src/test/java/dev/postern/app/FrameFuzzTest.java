package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.app.config.GatewayConfig;
import dev.postern.fixtures.RecordingExecutor;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.AuthorizedHttpRequest;
import dev.postern.policy.AuthorizedSshCommand;
import dev.postern.policy.Decision;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.model.Policy;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.Rejection;
import dev.postern.protocol.tools.ToolCatalog;
import dev.postern.protocol.tools.ToolResults;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Mutated frames (byte, token and structure mutations of valid frames of both eras, with
 * non-finite and huge numbers put in every field) through {@link Gateway}'s own wiring — the real
 * transport reader and writer, McpServer, ToolCallService, PolicyEngine, Dispatcher and
 * StdioSession — with recording executors substituted at the registration point and the journal in
 * memory. For every session: nothing thrown anywhere, and it ends as documented; every executor
 * attempt is the permit of its own intent row, an action the policy permits, from an exactly valid
 * call whose fields it carries (checked against an independent strict reading of the frame the
 * journal names); each permitted call reaches the executor exactly once and a rejected one never.
 *
 * <p>Seeded: {@code -Dpostern.fuzz.seed=N} and {@code -Dpostern.fuzz.frames=N} (default 100,000);
 * a failure names the seed, the session and the frame with its hex. The frames are the same on every
 * run; which of them a session reads can vary only where a mutated id meets a call still in flight
 * (the session then closes, as it must), and every check holds either way.
 */
class FrameFuzzTest {
    static final long SEED = Long.getLong("postern.fuzz.seed", 0x5EED_0017L);
    static final int FRAMES = Integer.getInteger("postern.fuzz.frames", 100_000);

    /** Numbers a double cannot hold, that are huge exactly, or that sit at the edges of long. */
    static final List<String> HOSTILE_NUMBERS = List.of("1e309", "-1e309", "1e999", "1E999999999", "-1e-999999999",
            "123456789012345678901234567890123", "9223372036854775808", "-9223372036854775809", "-0", "-0.0", "1.5", "4e2",
            "0.1e-400", "1E+400");
    static final List<String> HOSTILE_VALUES = List.of("null", "true", "false", "[]", "{}", "\"\"", "\"\\u0000\"",
            "\"\\ud800\"", "\"\\\\u0000\"", "\"" + "x".repeat(70_000) + "\"", "[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]",
            "{\"a\":{\"a\":{\"a\":1}}}", "NaN", "Infinity", "-Infinity", "\"2.0\"", "\"tools/call\"", "\"ssh_exec\"",
            "\"http://127.0.0.1:9/v1/x\"", "\"http://127.0.0.1:0/v1/x\"", "\"http://127.0.0.1:99999/v1/x\"", "\"GET\"",
            "\"web\"", "\"tail\"", "\"../../etc/passwd\"", "\"%2e%2e\"", "\"a\\r\\nb\"", "0x10", "01", "1.", ".5", "+1");

    private static final String STATELESS_META = ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":{}}";
    private static final String HOLE = "@@HOLE@@";
    private static final Pattern TOKEN = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|-?[0-9][0-9eE.+-]*|true|false|null|[{}\\[\\]:,]");
    private static final JsonMapper ORACLE = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    /** The eras a fuzzed session is opened in. */
    enum Opening {
        HANDSHAKE("2025-06-18"), HANDSHAKE_BATCHES("2025-03-26"), STATELESS(null);

        final String version;

        Opening(String version) {
            this.version = version;
        }

        String meta() {
            return this == STATELESS ? STATELESS_META : "";
        }
    }

    private final Policy policy = SessionHarness.policy();
    /** The config every session runs on; its journal directory is never opened (the journal is in memory). */
    private final GatewayConfig config = SessionHarness.config(Path.of("in-memory-journal"), policy, 4);
    /** Built once by Gateway, as mcp-stdio builds it once per process. */
    private final ToolCatalog catalog = Gateway.catalog(config);
    /** The independent re-check of every executor attempt: the engine Gateway builds for this config. */
    private final PolicyEngine engine = Gateway.policyEngine(config);

    private int accepted;
    private int permitted;
    private int rejected;
    private int sessions;

    static List<String> seeds(Opening o) {
        String m = o.meta();
        List<String> seeds = new ArrayList<>(List.of(
                call("http_request", "{\"method\":\"GET\",\"url\":\"http://127.0.0.1:9/v1/items\",\"query\":{\"q\":\"a b\"}}", m),
                call("http_request", "{\"method\":\"GET\",\"url\":\"http://127.0.0.1:9/v1/a/b?x=1\",\"headers\":{}}", m),
                call("http_request", "{\"method\":\"GET\",\"url\":\"http://127.0.0.1:9/admin\"}", m),
                call("http_request", "{\"method\":\"POST\",\"url\":\"http://127.0.0.1:9/v1/x\",\"body\":\"{\\\"k\\\":1}\",\"headers\":{\"Accept\":\"*/*\"}}", m),
                call("ssh_exec", "{\"host\":\"web\",\"command\":\"tail\",\"args\":{\"lines\":5}}", m),
                call("ssh_exec", "{\"host\":\"web\",\"command\":\"tail\",\"args\":{\"lines\":\"500\"}}", m),
                call("ssh_exec", "{\"host\":\"web\",\"command\":\"tail\",\"args\":{\"lines\":501}}", m),
                call("postern_targets", "{}", m),
                "{\"jsonrpc\":\"2.0\",\"id\":\"list-1\",\"method\":\"tools/list\",\"params\":{" + (m.isEmpty() ? "" : m.substring(1)) + "}}",
                "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"server/discover\"}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3,\"reason\":\"x\"}}"));
        if (o == Opening.HANDSHAKE_BATCHES) {
            seeds.add("[" + call("http_request", "{\"method\":\"GET\",\"url\":\"http://127.0.0.1:9/v1/batched\"}", m)
                    + "," + call("ssh_exec", "{\"host\":\"web\",\"command\":\"tail\",\"args\":{\"lines\":7}}", m).replace("\"id\":7", "\"id\":8")
                    + ",{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"ping\"}]");
        }
        return seeds;
    }

    private static String call(String tool, String arguments, String meta) {
        return "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool + "\",\"arguments\":" + arguments
                + meta + "}}";
    }

    /**
     * Gives each tools/call of a seed its own id (7 and 8 become {@code 100 + 2n} and {@code 101 + 2n}),
     * so calls in one session never share an id while in flight, which would close it.
     */
    static String withIds(String seed, int n) {
        return seed.replace("\"id\":7", "\"id\":" + (100 + 2 * n)).replace("\"id\":8", "\"id\":" + (101 + 2 * n));
    }

    @Test
    void mutatedFramesNeverEscapeAndOnlyExactlyValidPermittedCallsReachAnExecutorOnceEach() {
        Random random = new Random(SEED);
        int frames = 0;
        // Every field of every seed, in both eras, with every hostile number: deterministic, so "every field" holds.
        for (Opening o : Opening.values()) {
            for (String seed : seeds(o)) {
                for (String path : paths(seed)) {
                    for (String number : HOSTILE_NUMBERS) {
                        frames += new FuzzSession(o).run(List.of(replaceAt(withIds(seed, 0), path, number)).iterator());
                    }
                }
            }
        }
        while (frames < FRAMES) {
            Opening o = Opening.values()[random.nextInt(Opening.values().length)];
            List<String> seeds = seeds(o);
            int budget = Math.min(40, FRAMES - frames);
            // Lines are made only as the gateway reads them: a session that closes stops drawing from the seed.
            frames += new FuzzSession(o).run(new Iterator<>() {
                int made;

                @Override
                public boolean hasNext() {
                    return made < budget;
                }

                @Override
                public byte[] next() {
                    return mutate(withIds(seeds.get(random.nextInt(seeds.size())), made++), random);
                }
            });
        }
        // A call admitted just before a closing line is decided and journaled but cancelled unrun, so fewer run
        // than are permitted; the single-frame sessions above run theirs whatever the timing.
        assertTrue(permitted > 1000, "the fuzzer must also produce permitted calls (seed " + SEED + "): " + permitted);
        assertTrue(accepted > 100, "and calls that reach an executor (seed " + SEED + "): " + accepted);
        assertTrue(rejected > 10_000, "and rejected ones (seed " + SEED + "): " + rejected);
    }

    /**
     * One session through {@link Gateway}'s own wiring (McpServer, ToolCallService, PolicyEngine,
     * Dispatcher, StdioSession, FrameReader and FrameWriter) with recording executors substituted and
     * the journal in memory; its lines come one at a time, as the gateway reads them.
     */
    private final class FuzzSession {
        final Opening opening;
        final RecordingExecutor<AuthorizedHttpRequest> http = RecordingExecutor.http();
        final RecordingExecutor<AuthorizedSshCommand> ssh = RecordingExecutor.ssh();
        final RecordingAuditJournal journal = new RecordingAuditJournal();
        LineGate input;

        FuzzSession(Opening opening) {
            this.opening = opening;
            sessions++;
        }

        /** Runs the session to its end over {@code lines}; returns how many of them the gateway read. */
        int run(Iterator<byte[]> lines) {
            List<byte[]> prefix = opening.version == null ? List.of() : List.of(
                    ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"" + opening.version
                            + "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"fuzz\",\"version\":\"1\"}}}").getBytes(StandardCharsets.UTF_8),
                    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}".getBytes(StandardCharsets.UTF_8));
            input = new LineGate(prefix, lines);
            ByteArrayOutputStream stdout = new ByteArrayOutputStream();
            ByteArrayOutputStream stderr = new ByteArrayOutputStream();
            ExitStatus exit;
            try {
                exit = Gateway.run(config, journal, List.of(http, ssh), ToolResults.DEFAULT_MAX_RESULT_BYTES, () -> catalog,
                        Gateway.approvals(config, journal, Clock.systemUTC()), input, stdout,
                        new PrintStream(stderr, true, StandardCharsets.UTF_8), session -> { });
            } catch (Throwable t) {
                throw new AssertionError(where() + ": " + t, t);
            }
            String diagnostics = stderr.toString(StandardCharsets.UTF_8);
            assertTrue(exit == ExitStatus.OK || exit == ExitStatus.PROTOCOL_ERROR, () -> exit + " " + diagnostics + where());
            assertFalse(diagnostics.contains("internal error") || diagnostics.contains("fatal"), () -> diagnostics + where());
            check();
            return input.served();
        }

        /**
         * What reached the executors against what the gateway decided and journaled: every attempt is
         * the permit of one intent row, once; the engine permits its action; its frame, read strictly
         * and independently, is an exactly valid call of this era carrying the permit's fields; an
         * intent ended CANCELLED exactly when it did not run (admitted just before a closing line);
         * every policy denial is one the engine makes, and never ran.
         */
        private void check() {
            Map<String, String> frames = input.framesBySha256();
            List<AuthorizedAction> attempts = new ArrayList<>();
            attempts.addAll(http.attempts());
            attempts.addAll(ssh.attempts());
            List<RecordingAuditJournal.Intent> unmatched = new ArrayList<>(journal.intents);
            for (AuthorizedAction attempt : attempts) {
                RecordingAuditJournal.Intent intent = unmatched.stream().filter(i -> i.permit() == attempt).findFirst()
                        .orElseThrow(() -> new AssertionError(where() + ": an executor ran " + attempt
                                + " with no intent row of its own (run twice, or never journaled)"));
                unmatched.remove(intent);
                assertTrue(engine.decide(attempt.action()) instanceof Decision.Permit,
                        () -> where() + ": an action the policy denies reached an executor: " + attempt);
            }
            for (RecordingAuditJournal.Intent intent : journal.intents) {
                String frame = frames.get(intent.frameSha256());
                if (frame == null) {
                    throw new AssertionError(where() + ": a permit came from no frame the session was sent: " + intent.permit());
                }
                assertExactlyValidCall(frame, intent.permit());
                List<Outcome> outcomes = journal.outcomes.getOrDefault(intent.seq(), List.of());
                assertEquals(1, outcomes.size(), () -> where(frame) + ": one outcome row per intent, got " + outcomes);
                boolean cancelledUnrun = outcomes.get(0) instanceof ExecutionFailure f && f.code() == FailureCode.CANCELLED;
                assertEquals(unmatched.contains(intent), cancelledUnrun, () -> where(frame)
                        + ": a permitted call runs exactly once, and its outcome row says CANCELLED only when it never ran: " + outcomes);
            }
            for (Rejection r : journal.rejections) {
                r.action().ifPresent(action -> assertTrue(engine.decide(action) instanceof Decision.Deny,
                        () -> where(frames.getOrDefault(r.frameSha256(), "?")) + ": journaled as denied, but the policy permits " + action));
            }
            accepted += attempts.size();
            permitted += journal.intents.size();
            rejected += journal.rejections.size();
        }

        /** The independent check: a strict reading of the frame finds a complete, exact call in this era with the permit's fields. */
        private void assertExactlyValidCall(String frame, AuthorizedAction permit) {
            JsonNode root;
            try {
                root = ORACLE.readTree(frame);
            } catch (Exception ex) {
                throw new AssertionError(where(frame) + ": a permit came from a frame that is not strict JSON: " + ex.getMessage());
            }
            List<JsonNode> candidates = new ArrayList<>();
            if (root.isArray()) {
                assertEquals(Opening.HANDSHAKE_BATCHES, opening, () -> where(frame) + ": a batch ran outside a 2025-03-26 session");
                root.forEach(candidates::add);
            } else {
                candidates.add(root);
            }
            for (JsonNode c : candidates) {
                if (matches(c, permit)) {
                    return;
                }
            }
            throw new AssertionError(where(frame) + ": no exactly valid call in the frame carries the permit " + permit);
        }

        private boolean matches(JsonNode m, AuthorizedAction permit) {
            if (!m.isObject() || !keysWithin(m, Set.of("jsonrpc", "id", "method", "params")) || m.size() != 4
                    || !"2.0".equals(m.path("jsonrpc").textValue()) || !"tools/call".equals(m.path("method").textValue())) {
                return false;
            }
            JsonNode id = m.get("id");
            if (!(id.isTextual() || (id.isIntegralNumber() && id.canConvertToLong()))) {
                return false;
            }
            JsonNode params = m.get("params");
            if (!params.isObject() || !keysWithin(params, Set.of("name", "arguments", "_meta"))) {
                return false;
            }
            boolean stateless = "2026-07-28".equals(params.path("_meta").path("io.modelcontextprotocol/protocolVersion").textValue())
                    && params.path("_meta").path("io.modelcontextprotocol/clientCapabilities").isObject();
            if (stateless != (opening == Opening.STATELESS)) {
                return false;
            }
            JsonNode args = params.path("arguments");
            if (permit instanceof AuthorizedHttpRequest h) {
                return "http_request".equals(params.path("name").textValue())
                        && keysWithin(args, Set.of("method", "url", "query", "headers", "body"))
                        && h.action().method().equals(args.path("method").textValue())
                        && h.action().url().equals(args.path("url").textValue())
                        && stringMap(args.get("query")) && stringMap(args.get("headers"))
                        && (args.get("body") == null || args.get("body").isTextual());
            }
            AuthorizedSshCommand s = (AuthorizedSshCommand) permit;
            return "ssh_exec".equals(params.path("name").textValue())
                    && keysWithin(args, Set.of("host", "command", "args"))
                    && s.action().host().equals(args.path("host").textValue())
                    && s.action().command().equals(args.path("command").textValue())
                    && s.action().args().size() == args.path("args").size();
        }

        private String where() {
            return "seed " + SEED + ", session " + sessions + " (" + opening + "), input hex " + input.servedHex(2000);
        }

        private String where(String frame) {
            byte[] line = frame.getBytes(StandardCharsets.UTF_8);
            return "seed " + SEED + ", session " + sessions + " (" + opening + "), frame "
                    + (frame.length() > 400 ? frame.substring(0, 400) + "…" : frame)
                    + " hex " + HexFormat.of().formatHex(line, 0, Math.min(line.length, 400));
        }
    }

    /**
     * The session's stdin: the prefix lines, then lines drawn one at a time, each handed out only when
     * the gateway's reader has used up the one before (a read never crosses a line's end), so that
     * {@link #served} counts exactly the lines the gateway read and a closed session draws no more.
     */
    static final class LineGate extends InputStream {
        private final Iterator<byte[]> prefix;
        private final Iterator<byte[]> lines;
        private final List<byte[]> served = new ArrayList<>();
        private byte[] current = new byte[0];
        private int pos;

        LineGate(List<byte[]> prefix, Iterator<byte[]> lines) {
            this.prefix = prefix.iterator();
            this.lines = lines;
        }

        @Override
        public int read() {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (len == 0) {
                return 0;
            }
            if (pos == current.length) {
                byte[] next;
                if (prefix.hasNext()) {
                    next = prefix.next();
                } else if (lines.hasNext()) {
                    next = lines.next();
                    served.add(next);
                } else {
                    return -1;
                }
                current = Arrays.copyOf(next, next.length + 1);
                current[next.length] = '\n';
                pos = 0;
            }
            int n = Math.min(len, current.length - pos);
            System.arraycopy(current, pos, b, off, n);
            pos += n;
            return n;
        }

        /** How many drawn lines the gateway read (a line counts once its first byte was read). */
        int served() {
            return served.size();
        }

        /**
         * The text of every frame the served lines hold, by the SHA-256 of its bytes: lines split at
         * LF, a CR right before it dropped, as the journal fingerprints frames; bytes that are not
         * UTF-8 make no frame.
         */
        Map<String, String> framesBySha256() {
            Map<String, String> out = new HashMap<>();
            for (byte[] line : served) {
                int start = 0;
                for (int i = 0; i <= line.length; i++) {
                    if (i == line.length || line[i] == '\n') {
                        int stop = i > start && line[i - 1] == '\r' ? i - 1 : i;
                        byte[] piece = Arrays.copyOfRange(line, start, stop);
                        try {
                            String text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(piece)).toString();
                            out.put(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(piece)), text);
                        } catch (CharacterCodingException e) {
                            // Not UTF-8: the reader refused it, no frame.
                        } catch (NoSuchAlgorithmException e) {
                            throw new AssertionError(e);
                        }
                        start = i + 1;
                    }
                }
            }
            return out;
        }

        String servedHex(int max) {
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            for (byte[] line : served) {
                all.writeBytes(line);
                all.write('\n');
            }
            byte[] bytes = all.toByteArray();
            return HexFormat.of().formatHex(bytes, 0, Math.min(bytes.length, max)) + (bytes.length > max ? "…" : "");
        }
    }

    private static boolean keysWithin(JsonNode n, Set<String> allowed) {
        if (!n.isObject()) {
            return false;
        }
        Iterator<String> names = n.fieldNames();
        while (names.hasNext()) {
            if (!allowed.contains(names.next())) {
                return false;
            }
        }
        return true;
    }

    private static boolean stringMap(JsonNode n) {
        if (n == null) {
            return true;
        }
        if (!n.isObject()) {
            return false;
        }
        for (JsonNode v : n) {
            if (!v.isTextual()) {
                return false;
            }
        }
        return true;
    }

    // ---- mutations ----

    static byte[] mutate(String seed, Random r) {
        int kind = r.nextInt(10);
        if (kind < 3) {
            return byteMutation(seed.getBytes(StandardCharsets.UTF_8), r);
        }
        if (kind < 6) {
            return tokenMutation(seed, r).getBytes(StandardCharsets.UTF_8);
        }
        if (kind < 9) {
            return structureMutation(seed, r).getBytes(StandardCharsets.UTF_8);
        }
        return seed.getBytes(StandardCharsets.UTF_8); // unmutated: the control, so valid calls do run
    }

    private static final byte[] INTERESTING_BYTES = {0, '\n', '\r', '"', '\\', '{', '}', '[', ']', ',', ':', ' ', '0', '9', 'e', '-',
        (byte) 0xff, (byte) 0xc0, (byte) 0xed, (byte) 0x80, (byte) 0xef, (byte) 0xbb, (byte) 0xbf, 0x7f};

    static byte[] byteMutation(byte[] in, Random r) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int at = in.length == 0 ? 0 : r.nextInt(in.length);
        byte b = r.nextBoolean() ? INTERESTING_BYTES[r.nextInt(INTERESTING_BYTES.length)] : (byte) r.nextInt(256);
        switch (r.nextInt(6)) {
            case 0 -> { // flip a bit
                byte[] copy = in.clone();
                copy[at] ^= (byte) (1 << r.nextInt(8));
                return copy;
            }
            case 1 -> { // overwrite
                byte[] copy = in.clone();
                copy[at] = b;
                return copy;
            }
            case 2 -> { // insert
                out.write(in, 0, at);
                out.write(b);
                out.write(in, at, in.length - at);
            }
            case 3 -> { // delete a run
                int len = 1 + r.nextInt(Math.min(8, in.length - at));
                out.write(in, 0, at);
                out.write(in, at + len, in.length - at - len);
            }
            case 4 -> { // duplicate a slice
                int len = 1 + r.nextInt(Math.min(32, in.length - at));
                out.write(in, 0, at + len);
                out.write(in, at, in.length - at);
            }
            default -> out.write(in, 0, at); // truncate
        }
        return out.toByteArray();
    }

    static String tokenMutation(String seed, Random r) {
        List<int[]> tokens = new ArrayList<>();
        Matcher m = TOKEN.matcher(seed);
        while (m.find()) {
            tokens.add(new int[] {m.start(), m.end()});
        }
        int[] t = tokens.get(r.nextInt(tokens.size()));
        String before = seed.substring(0, t[0]);
        String token = seed.substring(t[0], t[1]);
        String after = seed.substring(t[1]);
        return switch (r.nextInt(5)) {
            case 0 -> before + HOSTILE_NUMBERS.get(r.nextInt(HOSTILE_NUMBERS.size())) + after;
            case 1 -> before + HOSTILE_VALUES.get(r.nextInt(HOSTILE_VALUES.size())) + after;
            case 2 -> before + token + token + after; // doubled token
            case 3 -> before + after; // dropped token
            default -> { // a token from elsewhere in the frame
                int[] other = tokens.get(r.nextInt(tokens.size()));
                yield before + seed.substring(other[0], other[1]) + after;
            }
        };
    }

    static String structureMutation(String seed, Random r) {
        List<String> paths = paths(seed);
        String path = paths.get(r.nextInt(paths.size()));
        return switch (r.nextInt(7)) {
            case 0, 1 -> replaceAtText(seed, path, HOSTILE_NUMBERS.get(r.nextInt(HOSTILE_NUMBERS.size())));
            case 2 -> replaceAtText(seed, path, HOSTILE_VALUES.get(r.nextInt(HOSTILE_VALUES.size())));
            case 3 -> edit(seed, path, (parent, key) -> parent.remove(key));
            case 4 -> edit(seed, path, (parent, key) -> parent.put("unexpected", "member"));
            case 5 -> duplicateMember(seed, path);
            default -> edit(seed, path, (parent, key) -> {
                JsonNode v = parent.get(key);
                parent.putArray(key).add(v);
            });
        };
    }

    /** JSON pointers to every member value of every object in the seed (array elements included), and the root. */
    static List<String> paths(String seed) {
        List<String> out = new ArrayList<>();
        collect(readTree(seed), "", out);
        return out;
    }

    private static void collect(JsonNode n, String pointer, List<String> out) {
        out.add(pointer);
        if (n.isObject()) {
            n.fields().forEachRemaining(e -> collect(e.getValue(), pointer + "/" + e.getKey().replace("~", "~0").replace("/", "~1"), out));
        } else if (n.isArray()) {
            for (int i = 0; i < n.size(); i++) {
                collect(n.get(i), pointer + "/" + i, out);
            }
        }
    }

    /** The seed with the value at {@code pointer} replaced by the raw JSON text {@code raw}. */
    static byte[] replaceAt(String seed, String pointer, String raw) {
        if (pointer.isEmpty()) {
            return raw.getBytes(StandardCharsets.UTF_8);
        }
        String holed = edit(seed, pointer, (parent, key) -> parent.put(key, HOLE));
        return holed.replace("\"" + HOLE + "\"", raw).getBytes(StandardCharsets.UTF_8);
    }

    private static String replaceAtText(String seed, String pointer, String raw) {
        return new String(replaceAt(seed, pointer, raw), StandardCharsets.UTF_8);
    }

    /** Edits the member {@code key} of the object holding {@code pointer}; array elements are replaced whole. */
    private static String edit(String seed, String pointer, MemberEdit edit) {
        if (pointer.isEmpty()) {
            return seed;
        }
        JsonNode root = readTree(seed);
        int cut = pointer.lastIndexOf('/');
        JsonNode parent = root.at(pointer.substring(0, cut));
        String key = pointer.substring(cut + 1).replace("~1", "/").replace("~0", "~");
        if (parent instanceof ObjectNode o) {
            edit.apply(o, key);
        } else if (parent instanceof ArrayNode a) {
            ObjectNode box = ORACLE.createObjectNode();
            int i = Integer.parseInt(key);
            box.set("k", a.get(i));
            edit.apply(box, "k");
            a.set(i, box.has("k") ? box.get("k") : ORACLE.createObjectNode().put("unexpected", "member"));
        }
        return root.toString();
    }

    /** A member written twice: strict JSON must refuse the frame. */
    private static String duplicateMember(String seed, String pointer) {
        if (pointer.isEmpty()) {
            return seed;
        }
        String key = pointer.substring(pointer.lastIndexOf('/') + 1);
        return replaceAtText(seed, pointer, "1,\"" + key + "\":2");
    }

    private static JsonNode readTree(String s) {
        try {
            return ORACLE.readTree(s);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @FunctionalInterface
    private interface MemberEdit {
        void apply(ObjectNode parent, String key);
    }

    /**
     * A smaller pass through the whole session loop (StdioSession, FileAuditJournal, workers): no
     * fault escapes (exit 0 or the documented protocol close, never 7), and the executors saw exactly
     * as many actions as the journal has intent rows, each with its outcome row.
     */
    @Test
    void mutatedSessionsThroughTheSessionLoopEndAsDocumentedAndJournalEveryAction(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        Random random = new Random(SEED ^ 0x5E55_1011L);
        int sessions = Integer.getInteger("postern.fuzz.sessions", 200);
        for (int n = 0; n < sessions; n++) {
            Opening o = Opening.values()[random.nextInt(Opening.values().length)];
            ByteArrayOutputStream in = new ByteArrayOutputStream();
            if (o.version != null) {
                in.writeBytes(("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"" + o.version
                        + "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"fuzz\",\"version\":\"1\"}}}\n" + SessionHarness.INITIALIZED)
                        .getBytes(StandardCharsets.UTF_8));
            }
            List<String> seeds = seeds(o);
            for (int i = 0; i < 20; i++) {
                String seed = seeds.get(random.nextInt(seeds.size())).replace("\"id\":7", "\"id\":" + (100 + i));
                in.writeBytes(random.nextInt(3) == 0 ? seed.getBytes(StandardCharsets.UTF_8) : mutate(seed, random));
                in.write('\n');
            }
            java.nio.file.Path journal = dir.resolve("s" + n);
            SessionHarness h = new SessionHarness(journal).run(in.toByteArray());
            String where = "seed " + SEED + ", session " + n + " (" + o + "), input hex " + HexFormat.of().formatHex(in.toByteArray());
            assertTrue(h.exit == ExitStatus.OK || h.exit == ExitStatus.PROTOCOL_ERROR, () -> h.exit + ": " + where);
            String stderr = h.stderr.toString(StandardCharsets.UTF_8);
            assertTrue(!stderr.contains("internal error") && !stderr.contains("fatal"), () -> stderr + where);
            List<String> actions = java.nio.file.Files.exists(journal.resolve("actions.jsonl"))
                    ? java.nio.file.Files.readAllLines(journal.resolve("actions.jsonl")) : List.of();
            long intents = actions.stream().filter(r -> r.contains("\"kind\":\"intent\"")).count();
            long outcomes = actions.stream().filter(r -> r.contains("\"kind\":\"outcome\"")).count();
            // A call admitted just before a closing line is still decided and journaled, but cancelled unrun.
            long cancelledUnrun = actions.stream().filter(r -> r.contains("\"kind\":\"outcome\"") && r.contains("\"CANCELLED\"")).count();
            assertEquals(h.http.count() + h.ssh.count(), intents - cancelledUnrun, () -> "executor attempts vs intent rows: " + where);
            assertEquals(intents, outcomes, () -> "every intent has its outcome: " + where);
        }
    }

    @Test
    void theMutatorsAreDeterministicForASeed() {
        List<String> a = new ArrayList<>();
        List<String> b = new ArrayList<>();
        Random ra = new Random(SEED);
        Random rb = new Random(SEED);
        for (int i = 0; i < 200; i++) {
            a.add(HexFormat.of().formatHex(mutate(seeds(Opening.HANDSHAKE).get(i % 12), ra)));
            b.add(HexFormat.of().formatHex(mutate(seeds(Opening.HANDSHAKE).get(i % 12), rb)));
        }
        assertEquals(a, b);
        assertTrue(a.stream().distinct().count() > 100, "mutations vary");
    }
}
