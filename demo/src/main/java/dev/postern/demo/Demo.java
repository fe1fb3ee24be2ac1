package dev.postern.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.app.ExitStatus;
import dev.postern.app.Gateway;
import dev.postern.app.config.ConfigException;
import dev.postern.app.config.GatewayConfig;
import dev.postern.fixtures.FakeHttpService;
import dev.postern.fixtures.FakeSshServer;
import dev.postern.fixtures.GatewayProcess;
import dev.postern.fixtures.LocalPostgres;
import dev.postern.policy.json.JsonValue;
import dev.postern.policy.json.Pins;
import dev.postern.policy.model.LiveTools;
import dev.postern.policy.model.UpstreamServer;
import java.io.ByteArrayOutputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * {@code postern demo}: starts the demo's HTTP and SSH servers (test-fixtures' loopback fakes with
 * canned answers) and, when PostgreSQL is installed, a throwaway PostgreSQL cluster with a small
 * table; writes a config for them, drives a real {@code bin/postern mcp-stdio} child process through
 * a scripted session and prints what happened, ending with how many calls each server received.
 * Without PostgreSQL it skips the {@code sql_query} steps and says how to enable them. When the
 * maintainers' reference MCP server and a Node 20+ are found ({@link ReferenceServer}), it runs that
 * server behind the gateway with its {@code echo} pinned (the pin taken at run time from the server's
 * live listing) and narrowed, and shows one allowed call and one refused narrowed argument; without
 * them it says how to enable that part. Succeeds only when every step and every count are as
 * expected. One run per call; not thread-safe.
 */
public final class Demo {
    static final String HTTP_TARGET = "inventory";
    static final String SSH_HOST = "web-1";
    static final String DATABASE = "shop";
    /** The login role the gateway uses on the demo's database; its connections are counted in the server's log. */
    static final String DB_ROLE = "demo_reader";
    /** The reference server's name in the demo's config: its echo is offered as {@code everything__echo}. */
    static final String UPSTREAM = "everything";
    static final String UPSTREAM_TOOL = "echo";
    /** The operator's narrowing of echo's {@code message}: plain words and punctuation, at most 80 characters. */
    static final String MESSAGE_PATTERN = "^[A-Za-z0-9 ,.!?'-]*$";
    static final int MESSAGE_MAX_LENGTH = 80;
    /** Where Debian installs PostgreSQL's binaries ({@code N/bin}); LocalPostgres starts them from there. */
    static final Path POSTGRESQL_ROOT = Path.of("/usr/lib/postgresql");
    /** What the demo says when PostgreSQL is not installed. */
    static final String HOW_TO_ENABLE_SQL = "sql_query: skipped, PostgreSQL is not installed here; install Debian's"
            + " postgresql package (apt-get install postgresql, which provides /usr/lib/postgresql/N/bin) and run the"
            + " demo again to see one sql_query";
    /** What the demo says when it finds no reference server or no Node 20+ to run it on. */
    static final String HOW_TO_ENABLE_UPSTREAM = ReferenceServer.HOW_TO_ENABLE;
    private static final Duration ANSWER_WAIT = Duration.ofSeconds(30);
    private static final int EXPECTED_GATEWAY_EXIT = ExitStatus.PROTOCOL_ERROR.code();
    /** The HTTP service's routes: a few fixed JSON answers; any other path gets 404. */
    private static final Map<String, String> HTTP_ROUTES = Map.of(
            "/api/status", "{\"service\":\"inventory\",\"healthy\":true,\"version\":\"1.4.2\"}",
            "/api/items", "[{\"id\":1,\"name\":\"widget\"},{\"id\":2,\"name\":\"gadget\"}]");
    /** Canned SSH answers by command line, exactly as the SSH executor quotes argv for a POSIX shell. */
    private static final Map<String, String> SSH_ANSWERS = Map.of(
            "'uptime'", " 12:00:01 up 42 days,  3:14,  0 users,  load average: 0.08, 0.03, 0.01\n",
            "'systemctl' 'is-active' 'nginx'", "active\n",
            "'systemctl' 'restart' 'nginx'", "");

    private final ObjectMapper json = new ObjectMapper();
    private final Transcript out;
    private final PrintStream diagnostics;
    private final Path postgresRoot;
    private final Supplier<Optional<ReferenceServer>> referenceServer;

    Demo(Transcript out, PrintStream diagnostics) {
        this(out, diagnostics, POSTGRESQL_ROOT, Demo::findReferenceServer);
    }

    Demo(Transcript out, PrintStream diagnostics, Path postgresRoot, Supplier<Optional<ReferenceServer>> referenceServer) {
        this.out = out;
        this.diagnostics = diagnostics;
        this.postgresRoot = postgresRoot;
        this.referenceServer = referenceServer;
    }

    /** The reference server of the repository whose launcher starts the demo's gateway, on a Node 20+ found there or on PATH. */
    static Optional<ReferenceServer> findReferenceServer() {
        Path root = GatewayProcess.launcher().toAbsolutePath().getParent().getParent();
        return ReferenceServer.find(root, ReferenceServer.systemPath());
    }

    /**
     * Runs the demo in {@code keepIn} (kept afterwards) or in a temporary directory (deleted
     * afterwards); returns {@code OK}, or {@code CHECK_FAILED} when anything differed from the script.
     */
    public static ExitStatus run(Optional<Path> keepIn, PrintStream report, PrintStream diagnostics, boolean colour) {
        return run(keepIn, report, diagnostics, colour, POSTGRESQL_ROOT, Demo::findReferenceServer);
    }

    /** {@link #run} looking for PostgreSQL under {@code postgresRoot}, so a test can run the demo as if it were absent. */
    static ExitStatus run(Optional<Path> keepIn, PrintStream report, PrintStream diagnostics, boolean colour, Path postgresRoot) {
        return run(keepIn, report, diagnostics, colour, postgresRoot, Demo::findReferenceServer);
    }

    /** {@link #run} with PostgreSQL under {@code postgresRoot} and the reference server as {@code referenceServer} finds it (or not). */
    static ExitStatus run(Optional<Path> keepIn, PrintStream report, PrintStream diagnostics, boolean colour, Path postgresRoot,
            Supplier<Optional<ReferenceServer>> referenceServer) {
        Demo demo = new Demo(new Transcript(report, colour), diagnostics, postgresRoot, referenceServer);
        Path dir = null;
        try {
            dir = keepIn.isPresent() ? Files.createDirectories(keepIn.get()) : Files.createTempDirectory("postern-demo-");
            return demo.runIn(dir, keepIn.isPresent()) ? ExitStatus.OK : ExitStatus.CHECK_FAILED;
        } catch (IOException | UncheckedIOException e) {
            diagnostics.println("postern demo: could not set up the demo: " + e);
            return ExitStatus.STARTUP_FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            diagnostics.println("postern demo: interrupted");
            return ExitStatus.CHECK_FAILED;
        } finally {
            if (dir != null && keepIn.isEmpty()) {
                deleteTree(dir, diagnostics);
            }
        }
    }

    private boolean runIn(Path dir, boolean keep) throws IOException, InterruptedException {
        try (FakeHttpService http = httpService(); FakeSshServer ssh = sshServer(); DemoDatabase pg = DemoDatabase.startIfInstalled(postgresRoot)) {
            Optional<PinnedEcho> upstream = pinEcho(dir);
            Path config = writeConfig(dir, http, ssh, pg, upstream);
            out.line(out.bold("Postern demo") + ": a scripted MCP session through a real gateway process.");
            out.line("HTTP service " + baseUrl(http) + " and SSH server 127.0.0.1:" + ssh.port()
                    + " run in this process, on loopback; the SSH server runs no shell, only canned answers.");
            out.line(pg.cluster().isPresent()
                    ? "PostgreSQL " + pg.cluster().get().host() + ':' + pg.cluster().get().port()
                            + ": a throwaway cluster in a temporary directory, with a table of three orders."
                    : HOW_TO_ENABLE_SQL);
            out.line(upstream.map(u -> "upstream MCP server " + UPSTREAM + ": the maintainers' reference server (server-everything) on"
                    + " Node " + u.server().nodeVersion() + "; its " + UPSTREAM_TOOL + " pinned at " + u.pin()
                    + " (taken just now from its live listing, as postern upstream pin prints it), message narrowed to "
                    + MESSAGE_PATTERN + ", at most " + MESSAGE_MAX_LENGTH + " characters.").orElse(HOW_TO_ENABLE_UPSTREAM));
            out.line("config " + config + (keep ? "" : " (deleted afterwards; --dir DIR keeps it)"));

            boolean asExpected;
            Path stderrLog = dir.resolve("gateway-stderr.log");
            try (GatewayProcess gateway = GatewayProcess.mcpStdio(config, ProcessBuilder.Redirect.to(stderrLog.toFile()))) {
                out.line("gateway: a real postern mcp-stdio child process; its stdout is read through a pipe");
                asExpected = play(new Lines(gateway), script(baseUrl(http), pg.cluster().isPresent(), upstream.isPresent()),
                        dir.resolve("journal").resolve("actions.jsonl"));
                gateway.closeStdin();
                Optional<Integer> exit = gateway.awaitExit(ANSWER_WAIT);
                boolean exitOk = exit.isPresent() && exit.get() == EXPECTED_GATEWAY_EXIT;
                out.detail("gateway exited with status " + exit.map(String::valueOf).orElse("(still running; stopped)")
                        + (exitOk ? " (protocol error: the session was closed, as documented)" : ", expected " + EXPECTED_GATEWAY_EXIT));
                asExpected &= exitOk;
            }
            Optional<Long> upstreamCalls = upstream.isPresent()
                    ? Optional.of(intents(dir.resolve("journal").resolve("actions.jsonl"), UpstreamServer.exposedName(UPSTREAM, UPSTREAM_TOOL)))
                    : Optional.empty();
            asExpected &= counts(http.requestCount(), ssh.commandCount(), pg.cluster().map(c -> c.connectionsOf(DB_ROLE)), upstreamCalls);
            if (!asExpected) {
                diagnostics.println("postern demo: the gateway's stderr follows (" + stderrLog + ")");
                if (Files.exists(stderrLog)) {
                    diagnostics.print(Files.readString(stderrLog, StandardCharsets.UTF_8));
                }
            }
            out.line("");
            out.line(asExpected ? out.allowed("demo: everything happened as expected")
                    : out.denied("demo: something did not happen as expected (see above)"));
            return asExpected;
        }
    }

    /** The scripted session without PostgreSQL. */
    List<Step> script(String baseUrl) {
        return script(baseUrl, false);
    }

    /** The scripted session with or without PostgreSQL, without the reference server. */
    List<Step> script(String baseUrl, boolean sql) {
        return script(baseUrl, sql, false);
    }

    /**
     * The scripted session, in order; with {@code sql}, one allowed and one denied {@code sql_query}, and
     * with {@code upstream}, one allowed call of the reference server's echo and one whose message the
     * operator's narrowing refuses, before the last line.
     */
    List<Step> script(String baseUrl, boolean sql, boolean upstream) {
        List<Step> steps = new ArrayList<>();
        ObjectNode init = json.createObjectNode();
        init.put("protocolVersion", "2025-11-25");
        // The demo client can put a question to a human (the scripted one below): it declares elicitation.
        init.putObject("capabilities").putObject("elicitation");
        init.putObject("clientInfo").put("name", "postern-demo").put("version", "1");
        steps.add(new Step("initialize (protocol 2025-11-25)", request(1, "initialize", init), Step.Expect.RESULT));
        steps.add(new Step("notifications/initialized", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                Step.Expect.NO_ANSWER));
        steps.add(new Step("tools/list", request(2, "tools/list", null), Step.Expect.RESULT));
        steps.add(new Step("tools/call postern_targets", call(3, "postern_targets", json.createObjectNode()), Step.Expect.RESULT));
        steps.add(new Step("http_request GET " + baseUrl + "/api/status",
                call(4, "http_request", http("GET", baseUrl + "/api/status")), Step.Expect.ALLOWED));
        steps.add(new Step("ssh_exec " + SSH_HOST + " service-status {unit: nginx}",
                call(5, "ssh_exec", ssh("service-status", "nginx")), Step.Expect.ALLOWED));
        steps.add(new Step("http_request GET " + baseUrl + "/admin/users  (outside the allowed paths)",
                call(6, "http_request", http("GET", baseUrl + "/admin/users")), Step.Expect.DENIED));
        steps.add(new Step("ssh_exec " + SSH_HOST + " service-status {unit: \"nginx; cat /etc/shadow\"}  (an injection attempt)",
                call(7, "ssh_exec", ssh("service-status", "nginx; cat /etc/shadow")), Step.Expect.DENIED));
        ObjectNode extra = http("GET", baseUrl + "/api/items");
        extra.put("followRedirects", true);
        steps.add(new Step("http_request with an argument the schema does not have (followRedirects)",
                call(8, "http_request", extra), Step.Expect.INVALID_ARGUMENTS));
        steps.add(new Step("ssh_exec " + SSH_HOST + " restart {unit: nginx}  (marked confirm: a human is asked, and approves)",
                call(9, "ssh_exec", ssh("restart", "nginx")), Step.Expect.APPROVED));
        ObjectNode order = http("POST", baseUrl + "/api/orders");
        order.put("body", "{\"item\":1,\"quantity\":500}");
        steps.add(new Step("http_request POST " + baseUrl + "/api/orders  (marked confirm: a human is asked, and declines)",
                call(10, "http_request", order), Step.Expect.DECLINED));
        if (sql) {
            steps.add(new Step("sql_query " + DATABASE + " orders-by-status {status: open}",
                    call(11, "sql_query", sql("open")), Step.Expect.ALLOWED));
            steps.add(new Step("sql_query " + DATABASE + " orders-by-status {status: \"open' OR '1'='1\"}  (an injection attempt)",
                    call(12, "sql_query", sql("open' OR '1'='1")), Step.Expect.DENIED));
        }
        if (upstream) {
            String echo = UpstreamServer.exposedName(UPSTREAM, UPSTREAM_TOOL);
            steps.add(new Step(echo + " {message: \"hello from the demo\"}  (an upstream MCP server's tool, pinned)",
                    call(14, echo, json.createObjectNode().put("message", "hello from the demo")), Step.Expect.ALLOWED));
            steps.add(new Step(echo + " {message: \"hi; cat ~/.ssh/id_ed25519\"}  (outside the operator's narrowing of message)",
                    call(15, echo, json.createObjectNode().put("message", "hi; cat ~/.ssh/id_ed25519")), Step.Expect.INVALID_ARGUMENTS));
        }
        steps.add(new Step("a line cut off mid-object: {\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"tools/list\"",
                "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"tools/list\"", Step.Expect.SESSION_CLOSED));
        return steps;
    }

    private boolean play(Lines gateway, List<Step> steps, Path actionsJournal) throws IOException, InterruptedException {
        boolean all = true;
        int number = 0;
        for (Step step : steps) {
            number++;
            out.step(number, step.title());
            out.quiet("> " + abbreviate(step.line(), 150));
            gateway.send(step.line());
            if (step.expect() == Step.Expect.NO_ANSWER) {
                out.detail("(a notification: no answer expected)");
                continue;
            }
            if (step.expect() == Step.Expect.APPROVED || step.expect() == Step.Expect.DECLINED) {
                if (!answerTheQuestion(gateway, step.expect() == Step.Expect.APPROVED)) {
                    return false;
                }
            }
            Optional<String> answer = gateway.receive(ANSWER_WAIT);
            if (answer.isEmpty()) {
                out.detail(out.denied("UNEXPECTED") + ": no answer within " + ANSWER_WAIT.toSeconds() + " s");
                return false;
            }
            out.quiet("< " + abbreviate(answer.get(), 150));
            boolean ok = explain(step, json.readTree(answer.get()), actionsJournal);
            if (!ok) {
                out.detail(out.denied("UNEXPECTED") + ": expected " + step.expect());
            }
            all &= ok;
        }
        return all;
    }

    /**
     * Reads the gateway's {@code elicitation/create} for the pending call, shows the question as a human
     * would see it, and answers as the scripted human: accept with {@code approve: true}, or decline.
     */
    private boolean answerTheQuestion(Lines gateway, boolean approve) throws IOException, InterruptedException {
        Optional<String> line = gateway.receive(ANSWER_WAIT);
        if (line.isEmpty()) {
            out.detail(out.denied("UNEXPECTED") + ": no question within " + ANSWER_WAIT.toSeconds() + " s");
            return false;
        }
        out.quiet("< " + abbreviate(line.get(), 150));
        JsonNode question = json.readTree(line.get());
        if (!question.path("method").asText().equals("elicitation/create") || !question.has("id")) {
            out.detail(out.denied("UNEXPECTED") + ": expected the gateway to ask a human (elicitation/create)");
            return false;
        }
        out.detail("the gateway asks the human (elicitation/create, id " + question.path("id") + "):");
        question.path("params").path("message").asText().lines().forEach(l -> out.detail("  | " + l));
        ObjectNode reply = json.createObjectNode();
        reply.put("jsonrpc", "2.0").set("id", question.get("id"));
        ObjectNode result = reply.putObject("result");
        if (approve) {
            result.put("action", "accept").putObject("content").put("approve", true);
        } else {
            result.put("action", "decline");
        }
        out.detail("the scripted human " + (approve ? "approves" : "declines"));
        out.quiet("> " + reply);
        gateway.send(reply.toString());
        return true;
    }

    /** A failed tool result's error: the JSON {"error":{...}} of its text content, or a missing node. */
    private JsonNode toolError(JsonNode result) {
        if (!result.path("isError").asBoolean(false)) {
            return MissingNode.getInstance();
        }
        try {
            return json.readTree(result.path("content").path(0).path("text").asText()).path("error");
        } catch (IOException e) {
            return MissingNode.getInstance();
        }
    }

    /** Prints what the answer means and says whether it is what the step expects. */
    private boolean explain(Step step, JsonNode answer, Path actionsJournal) throws IOException {
        JsonNode result = answer.path("result");
        JsonNode structured = result.path("structuredContent");
        JsonNode error = toolError(result);
        switch (step.expect()) {
            case RESULT:
                if (!answer.has("result")) {
                    out.detail("error " + answer.path("error"));
                    return false;
                }
                out.detail("-> " + describeResult(result));
                return true;
            case ALLOWED:
                out.detail(out.allowed("ALLOWED") + " by rule " + lastIntentRule(actionsJournal).orElse("(no intent row in the journal)"));
                if (structured.isMissingNode()) {
                    // An upstream's own result: its content as the upstream wrote it, isError absent or false.
                    out.detail("-> the upstream answered: " + abbreviate(result.path("content").path(0).path("text").asText(""), 80));
                    return result.path("content").isArray() && !result.path("isError").asBoolean(false);
                }
                out.detail("-> " + describeOutcome(structured));
                return result.path("isError").isBoolean() && !result.path("isError").booleanValue();
            case DENIED:
                out.detail(out.denied("DENIED") + " by rule " + error.path("rule").asText("?")
                        + ": " + error.path("message").asText(""));
                out.detail("-> a tool result with isError true; nothing was sent anywhere");
                return result.path("isError").booleanValue()
                        && error.path("code").asText("").equals("POLICY_DENIED");
            case APPROVED:
                out.detail(out.allowed("APPROVED") + " by a human, then ALLOWED by rule "
                        + lastIntentRule(actionsJournal).orElse("(no intent row in the journal)"));
                out.detail("-> " + describeOutcome(structured));
                return result.path("isError").isBoolean() && !result.path("isError").booleanValue();
            case DECLINED:
                out.detail(out.denied("DECLINED") + " by the human: rule " + error.path("rule").asText("?")
                        + ": " + error.path("message").asText(""));
                out.detail("-> a tool result with isError true; nothing was sent anywhere, and nothing is asked again");
                return result.path("isError").booleanValue() && error.path("rule").asText("").equals("approval.declined");
            case INVALID_ARGUMENTS:
                out.detail(out.rejected("REJECTED") + " by the tool's input schema at "
                        + pointer(error.path("pointer").asText("")) + ": " + error.path("message").asText(""));
                out.detail("-> a tool result with isError true; the policy was never asked, nothing was sent");
                return result.path("isError").booleanValue()
                        && error.path("code").asText("").equals("INVALID_ARGUMENTS");
            case SESSION_CLOSED:
                JsonNode rpcError = answer.path("error");
                out.detail(out.rejected("REJECTED") + " before JSON-RPC: error " + rpcError.path("code").asText("?") + " "
                        + rpcError.path("message").asText("") + ", id null; the gateway ends the session");
                return rpcError.path("code").asInt() == -32700 && answer.path("id").isNull();
            default:
                throw new IllegalStateException("a step that expects no answer got one: " + step);
        }
    }

    private String describeResult(JsonNode result) {
        if (result.has("serverInfo")) {
            return "server " + result.path("serverInfo").path("name").asText() + ' ' + result.path("serverInfo").path("version").asText()
                    + ", protocol " + result.path("protocolVersion").asText();
        }
        if (result.has("tools")) {
            List<String> names = new ArrayList<>();
            List<String> withOutput = new ArrayList<>();
            result.path("tools").forEach(t -> {
                names.add(t.path("name").asText());
                if (t.has("outputSchema")) {
                    withOutput.add(t.path("name").asText());
                }
            });
            return "tools " + String.join(", ", names) + (withOutput.size() == names.size() ? " (each with input and output schemas)"
                    : " (each with an input schema; an output schema too: " + String.join(", ", withOutput) + ")");
        }
        JsonNode targets = result.path("structuredContent");
        List<String> http = new ArrayList<>();
        targets.path("http").forEach(t -> http.add(t.path("name").asText() + ' ' + t.path("methods") + ' '
                + t.path("baseUrl").asText() + " under " + t.path("pathPrefixes")));
        List<String> ssh = new ArrayList<>();
        targets.path("ssh").forEach(h -> {
            List<String> commands = new ArrayList<>();
            h.path("commands").forEach(c -> commands.add(c.path("name").asText()));
            ssh.add(h.path("name").asText() + " commands " + commands);
        });
        List<String> sql = new ArrayList<>();
        targets.path("sql").forEach(d -> {
            List<String> statements = new ArrayList<>();
            d.path("statements").forEach(st -> statements.add(st.path("name").asText()));
            sql.add(d.path("name").asText() + " statements " + statements);
        });
        return "HTTP " + http + "; SSH " + ssh + (sql.isEmpty() ? "" : "; SQL " + sql);
    }

    private static String describeOutcome(JsonNode s) {
        if (s.has("columns")) {
            List<String> columns = new ArrayList<>();
            s.path("columns").forEach(c -> columns.add(c.path("name").asText() + ' ' + c.path("type").asText()));
            return s.path("rowCount").asText() + " rows from database " + s.path("database").asText() + ", columns " + columns
                    + ", first row " + abbreviate(s.path("rows").path(0).toString(), 80);
        }
        if (s.has("status")) {
            return "HTTP " + s.path("status").asInt() + " from target " + s.path("target").asText()
                    + ", body " + abbreviate(s.path("body").asText(), 80);
        }
        return "exit status " + s.path("exitStatus").asText() + ", stdout " + abbreviate(s.path("stdout").asText().strip(), 60)
                + ", host key " + s.path("hostKeyFingerprint").asText();
    }

    private boolean counts(int httpRequests, int sshCommands, Optional<Long> sqlConnections, Optional<Long> upstreamCalls) {
        out.heading("Executor calls, counted at the demo's own servers");
        out.line("  allowed calls reach a server exactly once; denied and rejected ones never do");
        out.line("  (the approved restart is the SSH server's second call; the declined order never reached the HTTP service)");
        boolean sqlOk = sqlConnections.map(n -> n == 1).orElse(true);
        if (sqlConnections.isPresent()) {
            out.line("connections PostgreSQL accepted from " + DB_ROLE + ": " + sqlConnections.get() + " (expected 1)"
                    + (sqlOk ? "" : "  " + out.denied("MISMATCH")));
        } else {
            out.line(HOW_TO_ENABLE_SQL);
        }
        boolean upstreamOk = upstreamCalls.map(n -> n == 1).orElse(true);
        if (upstreamCalls.isPresent()) {
            out.line("calls journaled for the upstream's " + UpstreamServer.exposedName(UPSTREAM, UPSTREAM_TOOL) + " (intent rows): "
                    + upstreamCalls.get() + " (expected 1: the refused one never left the gateway)"
                    + (upstreamOk ? "" : "  " + out.denied("MISMATCH")));
        } else {
            out.line(HOW_TO_ENABLE_UPSTREAM);
        }
        boolean httpOk = httpRequests == 1;
        boolean sshOk = sshCommands == 2;
        out.line("calls received by the HTTP service: " + httpRequests + " (expected 1)" + (httpOk ? "" : "  " + out.denied("MISMATCH")));
        out.line("calls received by the SSH server: " + sshCommands + " (expected 2)" + (sshOk ? "" : "  " + out.denied("MISMATCH")));
        return httpOk && sshOk && sqlOk && upstreamOk;
    }

    /** How many intent rows of {@code tool} the actions journal holds. */
    private long intents(Path actionsJournal, String tool) throws IOException {
        if (!Files.exists(actionsJournal)) {
            return 0;
        }
        long n = 0;
        for (String row : Files.readAllLines(actionsJournal, StandardCharsets.UTF_8)) {
            JsonNode r = json.readTree(row);
            if (r.path("kind").asText().equals("intent") && r.path("tool").asText().equals(tool)) {
                n++;
            }
        }
        return n;
    }

    /** The reference server and the pin of its echo, taken from its live listing at the start of this run. */
    record PinnedEcho(ReferenceServer server, String pin) {
    }

    /**
     * When the reference server is found: starts it as the gateway would (from a config that allowlists
     * nothing), lists its tools and pins {@code echo}'s definition, as {@code postern upstream pin} does.
     * Empty, after saying why, when it is not found or does not list an echo.
     */
    private Optional<PinnedEcho> pinEcho(Path dir) throws IOException {
        Optional<ReferenceServer> found = referenceServer.get();
        if (found.isEmpty()) {
            return Optional.empty();
        }
        ObjectNode root = json.createObjectNode();
        root.putObject("journal").put("directory", "pin-journal");
        ObjectNode server = root.putObject("mcp").putArray("servers").addObject().put("name", UPSTREAM);
        ArrayNode argv = server.putArray("command");
        found.get().command().forEach(argv::add);
        server.putArray("tools");
        Path probe = dir.resolve("pin-probe.json");
        Files.writeString(probe, json.writerWithDefaultPrettyPrinter().writeValueAsString(root) + '\n', StandardCharsets.UTF_8);
        ByteArrayOutputStream heard = new ByteArrayOutputStream();
        Optional<JsonValue.JsonObject> echo = Optional.empty();
        try {
            GatewayConfig config = dev.postern.app.Gateway.configLoader().load(probe);
            LiveTools live = Gateway.listNow(config, new PrintStream(heard, true, StandardCharsets.UTF_8));
            LiveTools.Listing listing = live.of(config.policy().allowances(UpstreamServer.class).get(0));
            if (listing instanceof LiveTools.Listing.Listed listed) {
                echo = listed.tool(UPSTREAM_TOOL);
            }
        } catch (ConfigException e) {
            diagnostics.println("postern demo: the pin probe's config did not load: " + e.getMessage());
        } finally {
            Files.deleteIfExists(probe);
        }
        if (echo.isEmpty()) {
            out.line("upstream MCP: skipped, the reference server at " + found.get().script() + " listed no " + UPSTREAM_TOOL
                    + " (its stderr follows on the demo's stderr)");
            diagnostics.print(heard.toString(StandardCharsets.UTF_8));
            return Optional.empty();
        }
        return Optional.of(new PinnedEcho(found.get(), Pins.of(echo.get())));
    }

    private Optional<String> lastIntentRule(Path actionsJournal) throws IOException {
        if (!Files.exists(actionsJournal)) {
            return Optional.empty();
        }
        Optional<String> rule = Optional.empty();
        for (String row : Files.readAllLines(actionsJournal, StandardCharsets.UTF_8)) {
            JsonNode n = json.readTree(row);
            if (n.path("kind").asText().equals("intent")) {
                rule = Optional.of(n.path("rule").asText());
            }
        }
        return rule;
    }

    private static FakeHttpService httpService() {
        FakeHttpService http = FakeHttpService.start();
        HTTP_ROUTES.forEach((path, body) ->
                http.respond(path, 200, Map.of("Content-Type", "application/json"), body.getBytes(StandardCharsets.UTF_8)));
        return http;
    }

    private static FakeSshServer sshServer() {
        FakeSshServer ssh = FakeSshServer.start();
        ssh.respond(line -> {
            String canned = SSH_ANSWERS.get(line);
            return canned != null ? FakeSshServer.Reply.exit(canned, "", 0)
                    : FakeSshServer.Reply.exit("", "demo sshd: no canned answer for " + line + '\n', 127);
        });
        return ssh;
    }

    /** {@code http://127.0.0.1:PORT}, without a trailing slash. */
    private static String baseUrl(FakeHttpService http) {
        return http.baseUri().toString();
    }

    private Path writeConfig(Path dir, FakeHttpService http, FakeSshServer ssh, DemoDatabase pg, Optional<PinnedEcho> upstream)
            throws IOException {
        Path key = ssh.generateClientKey(dir).privateKeyFile();
        Path knownHosts = ssh.writeKnownHosts(dir.resolve("known_hosts"));

        ObjectNode root = json.createObjectNode();
        root.putObject("journal").put("directory", "journal");
        ObjectNode credentials = root.putObject("credentials");
        credentials.putObject("demo-key").put("file", key.toString());
        ObjectNode target = root.putObject("http").putArray("targets").addObject();
        target.put("name", HTTP_TARGET).put("baseUrl", baseUrl(http));
        target.putArray("methods").add("GET").add("POST");
        target.putArray("confirm").add("POST");
        target.putArray("pathPrefixes").add("/api/");
        target.put("allowPrivateAddresses", true).put("timeoutMs", 5000);
        ObjectNode host = root.putObject("ssh").putArray("hosts").addObject();
        host.put("name", SSH_HOST).put("address", "127.0.0.1").put("port", ssh.port()).put("user", "deploy")
                .put("identity", "demo-key").put("knownHosts", knownHosts.toString()).put("timeoutSeconds", 10);
        ArrayNode commands = host.putArray("commands");
        commands.addObject().put("name", "uptime").putArray("argv").add("uptime");
        ObjectNode status = commands.addObject().put("name", "service-status");
        status.putArray("argv").add("systemctl").add("is-active").add("{unit}");
        status.putObject("params").putObject("unit").put("type", "string").put("pattern", "[a-z][a-z0-9-]*").put("maxLength", 32);
        ObjectNode restart = commands.addObject().put("name", "restart").put("confirm", true);
        restart.putArray("argv").add("systemctl").add("restart").add("{unit}");
        restart.putObject("params").putObject("unit").put("type", "string").put("pattern", "[a-z][a-z0-9-]*").put("maxLength", 32);
        if (pg.cluster().isPresent()) {
            Path password = dir.resolve("demo-db-password");
            Files.writeString(password, pg.password(), StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(password, PosixFilePermissions.fromString("rw-------"));
            credentials.putObject("demo-db-password").put("file", password.toString());
            ObjectNode db = root.putObject("sql").putArray("databases").addObject();
            db.put("name", DATABASE).put("host", pg.cluster().get().host()).put("port", pg.cluster().get().port())
                    .put("database", DATABASE).put("user", DB_ROLE).put("password", "demo-db-password")
                    .put("allowPrivateAddresses", true).put("timeoutMs", 5000).put("maxRows", 100);
            db.putObject("tls").put("mode", "disable");
            ObjectNode byStatus = db.putArray("statements").addObject().put("name", "orders-by-status")
                    .put("sql", "SELECT id, status, total, placed_at FROM orders WHERE status = :status ORDER BY id");
            byStatus.putObject("params").putObject("status").put("type", "string").putArray("enum")
                    .add("open").add("paid").add("cancelled");
        }
        if (upstream.isPresent()) {
            ObjectNode server = root.putObject("mcp").putArray("servers").addObject().put("name", UPSTREAM);
            ArrayNode argv = server.putArray("command");
            upstream.get().server().command().forEach(argv::add);
            server.put("timeoutMs", 10_000);
            ObjectNode echo = server.putArray("tools").addObject().put("name", UPSTREAM_TOOL).put("pin", upstream.get().pin());
            echo.putObject("args").putObject("message").put("pattern", MESSAGE_PATTERN).put("maxLength", MESSAGE_MAX_LENGTH);
        }

        Path config = dir.resolve("postern-demo.json");
        Files.writeString(config, json.writerWithDefaultPrettyPrinter().writeValueAsString(root) + '\n', StandardCharsets.UTF_8);
        return config;
    }

    private String request(int id, String method, ObjectNode params) {
        ObjectNode r = json.createObjectNode();
        r.put("jsonrpc", "2.0").put("id", id).put("method", method);
        if (params != null) {
            r.set("params", params);
        }
        return r.toString();
    }

    private String call(int id, String tool, ObjectNode arguments) {
        ObjectNode params = json.createObjectNode();
        params.put("name", tool);
        params.set("arguments", arguments);
        return request(id, "tools/call", params);
    }

    private ObjectNode http(String method, String url) {
        return json.createObjectNode().put("method", method).put("url", url);
    }

    private ObjectNode sql(String status) {
        ObjectNode a = json.createObjectNode().put("database", DATABASE).put("statement", "orders-by-status");
        a.putObject("args").put("status", status);
        return a;
    }

    private ObjectNode ssh(String command, String unit) {
        ObjectNode a = json.createObjectNode().put("host", SSH_HOST).put("command", command);
        a.putObject("args").put("unit", unit);
        return a;
    }

    private static String pointer(String p) {
        return p.isEmpty() ? "/" : p;
    }

    private static String abbreviate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 3) + "...";
    }

    private static void deleteTree(Path dir, PrintStream diagnostics) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            diagnostics.println("postern demo: could not delete " + dir + ": " + e.getMessage());
        }
    }

    /**
     * The demo's PostgreSQL, when it is installed: a throwaway cluster with database {@code shop}, a
     * table of three orders and a login role that may only read it; empty otherwise. Closing stops it.
     */
    private static final class DemoDatabase implements AutoCloseable {
        private final Optional<LocalPostgres> cluster;
        private final String password;

        private DemoDatabase(Optional<LocalPostgres> cluster, String password) {
            this.cluster = cluster;
            this.password = password;
        }

        static DemoDatabase startIfInstalled(Path root) {
            if (!LocalPostgres.installed(root) || !root.equals(POSTGRESQL_ROOT)) {
                return new DemoDatabase(Optional.empty(), "");
            }
            byte[] random = new byte[12];
            new SecureRandom().nextBytes(random);
            String password = "demo-" + HexFormat.of().formatHex(random);
            LocalPostgres pg = LocalPostgres.start();
            try {
                pg.psql("postgres", "CREATE DATABASE " + DATABASE);
                pg.psql(DATABASE, "CREATE ROLE " + DB_ROLE + " LOGIN PASSWORD '" + password + "';"
                        + " CREATE TABLE orders (id int PRIMARY KEY, status text NOT NULL, total numeric(10,2) NOT NULL,"
                        + " placed_at timestamptz NOT NULL);"
                        + " INSERT INTO orders VALUES (1, 'open', 19.90, '2026-11-30 09:15:00+00'),"
                        + " (2, 'paid', 250.00, '2026-11-29 17:02:00+00'), (3, 'open', 7.25, '2026-11-30 11:40:00+00');"
                        + " GRANT SELECT ON orders TO " + DB_ROLE);
            } catch (RuntimeException e) {
                pg.close();
                throw e;
            }
            return new DemoDatabase(Optional.of(pg), password);
        }

        Optional<LocalPostgres> cluster() {
            return cluster;
        }

        String password() {
            return password;
        }

        @Override
        public void close() {
            cluster.ifPresent(LocalPostgres::close);
        }
    }

    /** The gateway's stdout as lines, read on a daemon thread so that each answer can be awaited with a timeout. */
    private static final class Lines {
        private final GatewayProcess gateway;
        /** stdout lines in order; an empty element marks the end of stdout and is put back when taken. */
        private final BlockingQueue<Optional<String>> lines = new LinkedBlockingQueue<>();

        Lines(GatewayProcess gateway) {
            this.gateway = gateway;
            Thread reader = new Thread(this::read, "demo-gateway-stdout");
            reader.setDaemon(true);
            reader.start();
        }

        /** Writes one line (a line end is added) and flushes it. */
        void send(String line) throws IOException {
            gateway.stdin().write((line + '\n').getBytes(StandardCharsets.UTF_8));
            gateway.stdin().flush();
        }

        /** The next stdout line, waiting up to {@code wait}; empty at end of stdout or when none came in time. */
        Optional<String> receive(Duration wait) throws InterruptedException {
            Optional<String> line = lines.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
            if (line == null) {
                return Optional.empty();
            }
            if (line.isEmpty()) {
                lines.add(line);
            }
            return line;
        }

        private void read() {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(gateway.stdout(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(Optional.of(line));
                }
            } catch (IOException e) {
                // The child's stdout broke; the waiting side sees the end below.
            } finally {
                lines.add(Optional.empty());
            }
        }
    }
}
