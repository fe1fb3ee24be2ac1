package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.app.config.CredentialSource;
import dev.postern.app.config.GatewayConfig;
import dev.postern.fixtures.upstream.HostileMode;
import dev.postern.fixtures.upstream.HostileUpstream;
import dev.postern.policy.json.JsonValue;
import dev.postern.policy.json.Pins;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.LiveTools;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.model.UpstreamTool;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.protocol.json.JsonSyntaxError;
import dev.postern.protocol.json.StrictJson;
import dev.postern.protocol.tools.ToolResults;
import dev.postern.transport.StrictUtf8;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every {@link HostileMode} of the project's hostile upstream, through the gateway's own wiring and
 * its real upstream executor (issue 23's proof): for each, Postern's stdout stays one strict JSON-RPC
 * message per line (no banner, no marker text, no credential, no request or response of the
 * upstream's), nothing reaches the agent that should not, the journal says what was dropped or failed
 * (without the dropped line's content), and the session goes on. What each mode must cause is its
 * {@link Expectation}, chosen by an exhaustive switch: a new mode does not compile until it has one.
 */
class HostileUpstreamThroughTheGatewayTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final StrictJson STRICT = new StrictJson(16 << 20);
    private static final String SERVER = "hostile";
    private static final String TOKEN = "hostile-token-value-5e1f9c";
    private static final CredentialRef TOKEN_REF = new CredentialRef("hostile-token");
    private static final String TOKEN_ENV = "HOSTILE_TOKEN";
    private static final List<String> MARKERS = List.of(HostileUpstream.BANNER_MARKER, HostileUpstream.DUPLICATE_KEYS_MARKER,
            HostileUpstream.INVALID_UTF8_MARKER, HostileUpstream.OVERSIZE_MARKER, HostileUpstream.UNSOLICITED_MARKER,
            HostileUpstream.WRONG_SHAPE_MARKER, HostileUpstream.STRUCTURED_MISMATCH_MARKER, HostileUpstream.UNSOLICITED_ID,
            HostileUpstream.CHANGED_ECHO_DESCRIPTION);
    private static final String ECHO = "{\"text\":\"hello\"}";
    private static final String ADD = "{\"a\":2,\"b\":3}";

    @TempDir
    static Path shared;
    private static String echoPin;
    private static String addPin;

    @TempDir
    Path dir;

    /** What the agent gets for one call. */
    sealed interface Reply {
        /** A result, not an error, whose text items hold {@code text}. */
        record Answered(String text) implements Reply {
        }

        /** An executor failure with {@code code}; its outcome row's detail holds {@code detail}. */
        record Failed(FailureCode code, String detail) implements Reply {
            Failed(FailureCode code) {
                this(code, "");
            }
        }

        /** A policy denial by {@code rule}, journaled as one. */
        record Denied(String rule) implements Reply {
        }

        /** {@code -32602}: the gateway offers no such tool. */
        record UnknownTool() implements Reply {
        }
    }

    /** One thing the test does in the session. */
    sealed interface Step {
        record Call(String tool, String arguments, Reply reply) implements Step {
        }

        /** Reads until the gateway tells the client its tools changed. */
        record AwaitListChanged() implements Step {
        }
    }

    /**
     * What a mode must cause.
     *
     * @param options        the mode's own options beyond {@code --log} and {@code --credential-env}
     * @param startTimeout   the server's {@code startTimeoutMs}
     * @param timeout        the server's {@code timeoutMs}
     * @param maxResponseBytes the server's {@code maxResponseBytes}
     * @param steps          the calls made and what each must get, in order
     * @param dropped        the reasons of the decisions journal's stage-upstream rows for the server, exactly
     */
    record Expectation(List<String> options, Duration startTimeout, Duration timeout, long maxResponseBytes, List<Step> steps,
                       Set<String> dropped) {
        static Expectation of(List<Step> steps, String... dropped) {
            return new Expectation(List.of(), Duration.ofSeconds(20), Duration.ofSeconds(20), 1 << 20, steps, Set.of(dropped));
        }

        Expectation options(String... more) {
            return new Expectation(List.of(more), startTimeout, timeout, maxResponseBytes, steps, dropped);
        }

        Expectation timeout(Duration t) {
            return new Expectation(options, startTimeout, t, maxResponseBytes, steps, dropped);
        }

        Expectation startTimeout(Duration t) {
            return new Expectation(options, t, timeout, maxResponseBytes, steps, dropped);
        }

        Expectation maxResponseBytes(long bytes) {
            return new Expectation(options, startTimeout, timeout, bytes, steps, dropped);
        }
    }

    private static Step.Call echo(Reply reply) {
        return new Step.Call("echo", ECHO, reply);
    }

    private static Step.Call add(Reply reply) {
        return new Step.Call("add", ADD, reply);
    }

    private static final Reply HELLO = new Reply.Answered("hello");

    /** The expectation of each mode; exhaustive, so a new mode has none until one is written here. */
    static Expectation expectation(HostileMode mode, Path dir) {
        return switch (mode) {
            case CLEAN, STDERR_NOISE -> Expectation.of(List.of(echo(HELLO), add(new Reply.Answered("5"))));
            case PAGED_LIST -> Expectation.of(List.of(echo(HELLO), add(new Reply.Answered("5")))).options("--page-size", "1");
            case BANNER -> Expectation.of(List.of(echo(HELLO), echo(HELLO)), "json");
            case SLOW_START -> Expectation.of(List.of(echo(HELLO))).options("--start-delay-ms", "1500");
            // A line that is not strict JSON (or not UTF-8, or over the line cap) has no id Postern may trust: it is
            // dropped, and the call it was meant to answer waits out its timeoutMs.
            case DUPLICATE_KEYS -> Expectation.of(List.of(echo(new Reply.Failed(FailureCode.TIMEOUT)), echo(HELLO)), "json")
                    .timeout(Duration.ofSeconds(3));
            case INVALID_UTF8 -> Expectation.of(List.of(echo(new Reply.Failed(FailureCode.TIMEOUT)), echo(HELLO)), "framing")
                    .timeout(Duration.ofSeconds(3));
            // 64 KiB of response makes a line cap of 1 MiB, which the default 1 MiB + 1 line passes.
            case OVERSIZE -> Expectation.of(List.of(echo(new Reply.Failed(FailureCode.TIMEOUT)), echo(HELLO)), "framing")
                    .timeout(Duration.ofSeconds(3)).maxResponseBytes(64 * 1024);
            case UNSOLICITED_RESPONSE -> Expectation.of(List.of(echo(HELLO), echo(HELLO)), "unsolicited");
            case SAMPLING, ELICITATION -> Expectation.of(List.of(echo(new Reply.Answered("\"code\":-32601")), echo(HELLO)), "request")
                    .options("--reply-timeout-ms", "3000");
            case CHANGED_DEFINITION -> Expectation.of(List.of(echo(HELLO), new Step.AwaitListChanged(),
                    echo(new Reply.Denied("mcp.pin")), add(new Reply.Answered("5"))), "pin");
            case NEW_TOOL -> Expectation.of(List.of(echo(HELLO), new Step.Call("extra", ECHO, new Reply.UnknownTool()), echo(HELLO)));
            case CRASH_MID_CALL -> Expectation.of(List.of(echo(new Reply.Failed(FailureCode.UPSTREAM_UNAVAILABLE,
                    "the request had been sent")), echo(HELLO))).options("--once-file", dir.resolve("crashed-once").toString());
            case NEVER_INITIALIZE -> Expectation.of(List.of(echo(new Reply.Denied("mcp.unlisted")), echo(new Reply.Denied("mcp.unlisted"))))
                    .startTimeout(Duration.ofMillis(1500));
            case WRONG_SHAPE -> Expectation.of(List.of(echo(new Reply.Failed(FailureCode.UPSTREAM_PROTOCOL_ERROR,
                    "not a well-formed CallToolResult")), echo(HELLO)), "shape");
            case STRUCTURED_MISMATCH -> Expectation.of(List.of(add(new Reply.Failed(FailureCode.UPSTREAM_PROTOCOL_ERROR,
                    "structuredContent at /sum")), add(new Reply.Answered("5"))), "shape");
            case ECHO_CREDENTIAL -> Expectation.of(List.of(echo(new Reply.Answered("credential: ****")), echo(HELLO)));
            case PRINT_ENV -> Expectation.of(List.of(echo(new Reply.Answered(TOKEN_ENV + "=****"))));
        };
    }

    @BeforeAll
    static void pinTheCleanDefinitions() {
        List<String> command = HostileUpstream.command("clean");
        UpstreamServer probe = server(command, Duration.ofSeconds(20), Duration.ofSeconds(20), 1 << 20, List.of(), Map.of());
        GatewayConfig config = SessionHarness.config(shared.resolve("probe-journal"), Policy.of(probe), 2);
        LiveTools live = Gateway.listNow(config, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        LiveTools.Listing listing = live.of(probe);
        assertTrue(listing instanceof LiveTools.Listing.Listed, () -> "the clean upstream listed nothing: " + listing);
        List<JsonValue.JsonObject> tools = ((LiveTools.Listing.Listed) listing).tools();
        echoPin = pin(tools, "echo");
        addPin = pin(tools, "add");
    }

    private static String pin(List<JsonValue.JsonObject> tools, String name) {
        return Pins.of(tools.stream().filter(t -> t.string("name").orElse("").equals(name)).findFirst().orElseThrow());
    }

    private static UpstreamServer server(List<String> command, Duration startTimeout, Duration timeout, long maxResponseBytes,
            List<UpstreamTool> tools, Map<String, UpstreamServer.EnvValue> env) {
        return new UpstreamServer(SERVER, command, shared.toString(), env, startTimeout, timeout, maxResponseBytes, tools,
                Optional.empty());
    }

    @Test
    void everyModeHasAnExpectationThatCallsATool() {
        for (HostileMode mode : HostileMode.values()) {
            Expectation e = expectation(mode, dir);
            assertTrue(e.steps().stream().anyMatch(Step.Call.class::isInstance), mode + " calls nothing");
        }
    }

    @ParameterizedTest
    @EnumSource(HostileMode.class)
    void aHostileUpstreamNeverReachesTheAgentIsJournaledAndTheSessionGoesOn(HostileMode mode) throws Exception {
        Expectation expected = expectation(mode, dir);
        Path tokenFile = dir.resolve("token");
        Files.writeString(tokenFile, TOKEN);
        Files.setPosixFilePermissions(tokenFile, PosixFilePermissions.fromString("rw-------"));
        List<String> options = new ArrayList<>(List.of("--log", dir.resolve("upstream.log").toString(), "--credential-env", TOKEN_ENV));
        options.addAll(expected.options());
        List<String> command = HostileUpstream.command(mode.argument(), options.toArray(new String[0]));
        UpstreamServer server = server(command, expected.startTimeout(), expected.timeout(), expected.maxResponseBytes(),
                List.of(new UpstreamTool("echo", echoPin, false, Map.of()), new UpstreamTool("add", addPin, false, Map.of())),
                Map.of(TOKEN_ENV, new UpstreamServer.EnvValue.FromCredential(TOKEN_REF)));
        Path journal = dir.resolve("journal");
        GatewayConfig config = new GatewayConfig(journal.resolve("postern.json"), Policy.of(server), 1 << 20, 2, journal,
                GatewayConfig.DEFAULT_JOURNAL_ROTATE_BYTES, Map.of(TOKEN_REF, new CredentialSource.File(tokenFile)), Optional.empty(),
                false, "0".repeat(64));

        Set<Integer> sent = new LinkedHashSet<>();
        byte[] stdout;
        String stderr;
        try (LiveSession s = new LiveSession(config, ToolResults.DEFAULT_MAX_RESULT_BYTES, List.of()).handshake()) {
            sent.add(1);
            Reader reader = new Reader(s);
            int id = 2;
            for (Step step : expected.steps()) {
                if (step instanceof Step.AwaitListChanged) {
                    reader.awaitListChanged();
                    continue;
                }
                Step.Call call = (Step.Call) step;
                sent.add(id);
                s.send("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + SERVER + "__"
                        + call.tool() + "\",\"arguments\":" + call.arguments() + "}}\n");
                check(mode, call, reader.answerTo(id), s);
                id++;
            }
            sent.add(id);
            s.send(LiveSession.ping(id));
            JsonNode pong = reader.answerTo(id);
            assertEquals("{}", pong.path("result").toString(), () -> mode + ": the session went on, ping answered: " + pong);
            s.finish(Duration.ofSeconds(30));
            stdout = s.rawStdout();
            stderr = s.stderr.toString(StandardCharsets.UTF_8);
        }

        assertStdoutIsCleanJsonRpc(mode, stdout, sent);
        assertFalse(stderr.contains(TOKEN), () -> mode + ": the credential reached Postern's stderr: " + stderr);
        assertJournaled(mode, expected, journal);
    }

    /** What one call got, as its expectation says; an executor failure tells the agent no path, class or credential. */
    private static void check(HostileMode mode, Step.Call call, JsonNode answer, LiveSession s) {
        String where = mode + ", " + call.tool() + ": " + answer + "\n" + s.stderr.toString(StandardCharsets.UTF_8);
        Reply reply = call.reply();
        if (reply instanceof Reply.UnknownTool) {
            assertEquals(-32602, answer.path("error").path("code").asInt(), where);
            return;
        }
        JsonNode result = answer.path("result");
        assertTrue(result.path("content").isArray(), where);
        StringBuilder text = new StringBuilder();
        result.path("content").forEach(item -> text.append(item.path("text").asText("")).append('\n'));
        if (reply instanceof Reply.Answered a) {
            assertFalse(result.path("isError").asBoolean(false), where);
            assertTrue(text.toString().contains(a.text()), where);
        } else if (reply instanceof Reply.Failed f) {
            assertTrue(result.path("isError").asBoolean(false), where);
            assertTrue(text.toString().contains("\"code\":\"" + f.code().name() + "\""), where);
            assertFalse(text.toString().contains(shared.toString()) || text.toString().contains("Exception"), where);
        } else if (reply instanceof Reply.Denied d) {
            assertTrue(result.path("isError").asBoolean(false), where);
            assertTrue(text.toString().contains("\"code\":\"POLICY_DENIED\"") && text.toString().contains("\"rule\":\"" + d.rule() + "\""),
                    where);
        }
    }

    /** Every byte on stdout: whole lines, each valid UTF-8 and one strict JSON-RPC response to the client's request, or a notification. */
    private static void assertStdoutIsCleanJsonRpc(HostileMode mode, byte[] stdout, Set<Integer> sent) {
        assertTrue(stdout.length > 0 && stdout[stdout.length - 1] == '\n', () -> mode + ": stdout ends with a whole line");
        Set<Integer> answered = new HashSet<>();
        int start = 0;
        for (int i = 0; i < stdout.length; i++) {
            if (stdout[i] != '\n') {
                continue;
            }
            byte[] line = Arrays.copyOfRange(stdout, start, i);
            start = i + 1;
            String text;
            JsonNode message;
            try {
                text = StrictUtf8.decode(line);
                message = STRICT.parse(text);
            } catch (CharacterCodingException | JsonSyntaxError e) {
                fail(mode + ": a line on stdout is not one strict JSON value (" + e.getMessage() + "): "
                        + new String(line, StandardCharsets.UTF_8));
                return;
            }
            String shown = text.length() > 300 ? text.substring(0, 300) + "…" : text;
            assertTrue(message.isObject() && "2.0".equals(message.path("jsonrpc").textValue()), () -> mode + ": not JSON-RPC 2.0: " + shown);
            for (String marker : MARKERS) {
                assertFalse(text.contains(marker), () -> mode + ": upstream text " + marker + " reached the agent: " + shown);
            }
            assertFalse(text.contains(TOKEN), () -> mode + ": the credential reached the agent: " + shown);
            if (message.has("method")) {
                assertFalse(message.has("id"), () -> mode + ": a request reached the agent: " + shown);
                assertTrue(message.path("method").asText().startsWith("notifications/"), () -> mode + ": " + shown);
            } else {
                // The strict parser keeps numbers exact (BigInteger nodes): compared by value.
                assertTrue(message.path("id").isIntegralNumber() && sent.contains(message.path("id").asInt()),
                        () -> mode + ": a response to a request the client never sent: " + shown);
                assertTrue(message.has("result") != message.has("error"), () -> mode + ": " + shown);
                assertTrue(answered.add(message.path("id").asInt()), () -> mode + ": answered twice: " + shown);
            }
        }
        assertEquals(sent, answered, () -> mode + ": every request answered once");
    }

    /** The decisions journal names exactly the expected drops, by digest and length, and each failure and denial has its row. */
    private static void assertJournaled(HostileMode mode, Expectation expected, Path journal) throws IOException {
        String decisionsText = Files.readString(journal.resolve("decisions.jsonl"));
        String actionsText = Files.readString(journal.resolve("actions.jsonl"));
        for (String text : List.of(decisionsText, actionsText)) {
            for (String marker : MARKERS) {
                assertFalse(text.contains(marker), () -> mode + ": the journal holds the upstream's text " + marker);
            }
            assertFalse(text.contains(TOKEN), () -> mode + ": the journal holds the credential");
        }
        List<JsonNode> decisions = rows(decisionsText);
        List<JsonNode> actions = rows(actionsText);
        Set<String> reasons = new TreeSet<>();
        for (JsonNode row : decisions) {
            if (row.path("stage").asText().equals("upstream")) {
                assertEquals(SERVER, row.path("server").asText(), row::toString);
                assertTrue(row.path("frame").asText().matches("[0-9a-f]{64}") && row.path("bytes").asLong() > 0,
                        () -> mode + ": a drop is journaled by digest and length: " + row);
                reasons.add(row.path("reason").asText());
            }
        }
        assertEquals(new TreeSet<>(expected.dropped()), reasons, () -> mode + ": what was dropped: " + decisionsText);
        for (Step step : expected.steps()) {
            if (!(step instanceof Step.Call call)) {
                continue;
            }
            if (call.reply() instanceof Reply.Failed f) {
                assertTrue(actions.stream().anyMatch(r -> r.path("result").asText().equals(f.code().name())
                                && r.path("detail").asText().contains(f.detail())),
                        () -> mode + ": an outcome row with " + f + ": " + actionsText);
            } else if (call.reply() instanceof Reply.Denied d) {
                assertTrue(decisions.stream().anyMatch(r -> r.path("rule").asText().equals(d.rule())),
                        () -> mode + ": a denial row by " + d.rule() + ": " + decisionsText);
            }
        }
    }

    private static List<JsonNode> rows(String text) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (!line.isBlank()) {
                out.add(JSON.readTree(line));
            }
        }
        return out;
    }

    /** Reads the session's lines in order, remembering whether the tools changed. */
    private static final class Reader {
        private final LiveSession s;
        private boolean listChanged;

        Reader(LiveSession s) {
            this.s = s;
        }

        JsonNode answerTo(int id) {
            while (true) {
                JsonNode line = s.next();
                if (line.path("id").asInt(-1) == id && !line.has("method")) {
                    return line;
                }
                note(line);
            }
        }

        void awaitListChanged() {
            while (!listChanged) {
                note(s.next());
            }
            listChanged = false;
        }

        private void note(JsonNode line) {
            if (line.path("method").asText("").equals("notifications/tools/list_changed")) {
                listChanged = true;
            }
        }
    }
}
