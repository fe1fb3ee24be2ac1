package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.app.config.CredentialSource;
import dev.postern.app.config.GatewayConfig;
import dev.postern.journal.FileAuditJournal;
import dev.postern.fixtures.LocalPostgres;
import dev.postern.policy.action.Argument;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Origin;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SshAuth;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import dev.postern.policy.model.SshHost;
import dev.postern.protocol.approval.RequestStateCodec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Human approval through the real session loop with scripted clients in both eras, for an HTTP
 * {@code confirm} method, an SSH command and an SQL statement marked {@code confirm}: only an
 * explicit accept runs the action, exactly once; every other ending runs nothing, counted at the
 * recording executors (and, for one SQL case, at a real PostgreSQL); the session keeps serving while a
 * human decides.
 */
class ApprovalSessionTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BASE = "http://127.0.0.1:9";
    private static final String STATELESS_META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{\"form\":{}}}}";
    private static final String ACCEPT = "{\"action\":\"accept\",\"content\":{\"approve\":true}}";

    @TempDir
    Path dir;

    private final SettableClock clock = new SettableClock();
    private ApprovalLiveSession session;

    static Policy policy() {
        HttpTarget api = new HttpTarget("api", Origin.parseBaseUrl(BASE), Set.of("GET", "POST"), List.of("/v1"),
                Set.of(), Optional.empty(), Duration.ofSeconds(5), 1024, true).withConfirm(Set.of("POST"));
        SshHost web = new SshHost("web", "127.0.0.1", 22, "deploy",
                new SshAuth.Key(new CredentialRef("key"), Optional.empty()), Optional.empty(),
                Optional.of("SHA256:" + "A".repeat(43)), Duration.ofSeconds(5), 1024,
                List.of(new SshCommandSpec("restart", List.of("systemctl", "restart", "{unit}"),
                        Map.of("unit", new ParamSpec.StringParam(Optional.empty(), Optional.of(List.of("nginx", "redis")), 16)), true)));
        return Policy.of(List.of(api), List.of(web));
    }

    private ApprovalLiveSession start(Duration approvalTimeout) throws Exception {
        session = new ApprovalLiveSession(dir, policy(), RequestStateCodec.withFreshKey(Duration.ofSeconds(60), clock, 100), approvalTimeout);
        return session;
    }

    @AfterEach
    void stop() throws Exception {
        if (session != null) {
            session.close();
        }
    }

    private static String initialize(String version, String capabilities) {
        return "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"" + version + "\","
                + "\"capabilities\":" + capabilities + ",\"clientInfo\":{\"name\":\"scripted\",\"version\":\"1\"}}}";
    }

    private ApprovalLiveSession handshake(String version, String capabilities, Duration approvalTimeout) throws Exception {
        ApprovalLiveSession s = start(approvalTimeout);
        s.send(initialize(version, capabilities));
        assertEquals(version, s.receive().path("result").path("protocolVersion").asText());
        s.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        return s;
    }

    private static String post(int id, String path, String body) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
                + "\"arguments\":{\"method\":\"POST\",\"url\":\"" + BASE + path + "\",\"body\":" + JSON.valueToTree(body) + "}}}";
    }

    private static String answer(JsonNode question, String result) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + question.get("id") + ",\"result\":" + result + "}";
    }

    private static String toolErrorRule(JsonNode response) {
        JsonNode result = response.path("result");
        assertTrue(result.path("isError").asBoolean(false), response.toString());
        try {
            return JSON.readTree(result.path("content").path(0).path("text").asText()).path("error").path("rule").asText();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    // ---- handshake era ----

    @Test
    void anAcceptedQuestionRunsTheActionExactlyOnce() throws Exception {
        ApprovalLiveSession s = handshake("2025-11-25", "{\"elicitation\":{}}", Duration.ofSeconds(30));
        s.send(post(2, "/v1/orders", "{\"id\":7}"));
        JsonNode question = s.receive();
        assertEquals("elicitation/create", question.path("method").asText());
        assertEquals("postern-approval-1", question.path("id").asText());
        assertEquals("form", question.path("params").path("mode").asText());
        assertTrue(question.path("params").path("message").asText().contains("url: " + BASE + "/v1/orders"), question.toString());
        assertEquals(0, s.http.count(), "nothing runs before the answer");
        s.send(answer(question, ACCEPT));
        JsonNode result = s.receive();
        assertEquals(2, result.path("id").asInt());
        assertFalse(result.path("result").path("isError").asBoolean(true), result.toString());
        assertEquals(1, s.http.count());
        assertEquals("POST", s.http.attempts().get(0).method());
        assertEquals(ExitStatus.OK, s.endInput());
        assertEquals(1, s.http.count());
    }

    @Test
    void aDeclineACancelAndGarbageRunNothingAndAreNeverAskedAgain() throws Exception {
        ApprovalLiveSession s = handshake("2025-06-18", "{\"elicitation\":{}}", Duration.ofSeconds(30));
        String[][] cases = {
            {"{\"action\":\"decline\"}", "approval.declined"},
            {"{\"action\":\"cancel\"}", "approval.declined"},
            {"{\"action\":\"accept\",\"content\":{\"approve\":\"true\"}}", "approval.invalid"},
            {"{\"action\":\"accept\"}", "approval.invalid"},
            {"{\"action\":\"accept\",\"content\":{\"approve\":true,\"note\":\"x\"}}", "approval.invalid"},
            {"[1,2]", "approval.invalid"}};
        int id = 10;
        for (String[] c : cases) {
            s.send(post(id, "/v1/orders", "{}"));
            JsonNode question = s.receive();
            assertFalse(question.path("params").has("mode"), "2025-06-18 has no elicitation mode");
            s.send(answer(question, c[0]));
            JsonNode result = s.receive();
            assertEquals(id, result.path("id").asInt(), result.toString());
            assertEquals(c[1], toolErrorRule(result), c[0]);
            id++;
        }
        assertTrue(s.silentFor(Duration.ofMillis(300)), "no second question after any of them");
        assertEquals(0, s.http.count());
    }

    @Test
    void aTimeoutRunsNothingTellsTheClientAndALateAcceptStillRunsNothing() throws Exception {
        ApprovalLiveSession s = handshake("2025-11-25", "{\"elicitation\":{\"form\":{}}}", Duration.ofSeconds(1));
        s.send(post(2, "/v1/orders", "{}"));
        JsonNode question = s.receive();
        JsonNode first = s.receive();
        JsonNode second = s.receive();
        JsonNode cancelled = first.has("method") ? first : second;
        JsonNode result = first.has("method") ? second : first;
        assertEquals("notifications/cancelled", cancelled.path("method").asText());
        assertEquals(question.get("id"), cancelled.path("params").path("requestId"));
        assertEquals("approval.timeout", toolErrorRule(result));
        s.send(answer(question, ACCEPT));
        s.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}");
        assertEquals(3, s.receive().path("id").asInt(), "the late answer did not end the session");
        assertEquals(0, s.http.count());
        assertTrue(s.stderr().contains("after its wait ended"), s.stderr());
    }

    @Test
    void aClientWithoutElicitationIsNeverAskedAndNothingRuns() throws Exception {
        ApprovalLiveSession s = handshake("2025-11-25", "{}", Duration.ofSeconds(30));
        s.send(post(2, "/v1/orders", "{}"));
        JsonNode result = s.receive();
        assertEquals(2, result.path("id").asInt(), "the answer is the result: no question was sent");
        assertEquals("approval.unsupported", toolErrorRule(result));
        assertEquals(0, s.http.count());
    }

    @Test
    void a20250326SessionHasNoElicitationEvenWhenTheClientClaimsIt() throws Exception {
        ApprovalLiveSession s = handshake("2025-03-26", "{\"elicitation\":{}}", Duration.ofSeconds(30));
        s.send(post(2, "/v1/orders", "{}"));
        assertEquals("approval.unsupported", toolErrorRule(s.receive()));
        assertEquals(0, s.http.count());
    }

    @Test
    void twoPendingApprovalsAnsweredInReverseOrderEachRunTheirOwnActionOnce() throws Exception {
        ApprovalLiveSession s = handshake("2025-11-25", "{\"elicitation\":{}}", Duration.ofSeconds(30));
        s.send(post(2, "/v1/first", "one"));
        JsonNode q1 = s.receive();
        s.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"ssh_exec\","
                + "\"arguments\":{\"host\":\"web\",\"command\":\"restart\",\"args\":{\"unit\":\"nginx\"}}}}");
        JsonNode q2 = s.receive();
        assertTrue(q1.path("params").path("message").asText().contains("/v1/first"));
        assertTrue(q2.path("params").path("message").asText().contains("command line: 'systemctl' 'restart' 'nginx'"),
                q2.toString());
        s.send("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"}");
        assertEquals(4, s.receive().path("id").asInt(), "other requests are served while both wait");
        s.send(answer(q2, ACCEPT));
        JsonNode r3 = s.receive();
        assertEquals(3, r3.path("id").asInt());
        assertEquals(0, s.http.count());
        assertEquals(1, s.ssh.count());
        s.send(answer(q1, ACCEPT));
        JsonNode r2 = s.receive();
        assertEquals(2, r2.path("id").asInt());
        assertEquals(1, s.http.count());
        assertTrue(s.http.attempts().get(0).uri().getPath().equals("/v1/first"));
        assertEquals(List.of("systemctl", "restart", "nginx"), s.ssh.attempts().get(0).argv());
    }

    @Test
    void withOneCallAtATimeTheAnswerIsStillReadWhileOtherCallsQueueBehindTheWaitingOne() throws Exception {
        session = new ApprovalLiveSession(dir, policy(), RequestStateCodec.withFreshKey(Duration.ofSeconds(60), clock, 100),
                Duration.ofSeconds(30), 1);
        ApprovalLiveSession s = session;
        s.send(initialize("2025-11-25", "{\"elicitation\":{}}"));
        s.receive();
        s.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        s.send(post(2, "/v1/orders", "{}"));
        JsonNode question = s.receive();
        for (int id = 3; id <= 4; id++) {
            s.send("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
                    + "\"arguments\":{\"method\":\"GET\",\"url\":\"" + BASE + "/v1/queued-" + id + "\"}}}");
        }
        s.send(answer(question, ACCEPT));
        List<Integer> answered = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            answered.add(s.receive().path("id").asInt());
        }
        assertEquals(List.of(2, 3, 4), answered.stream().sorted().toList());
        assertEquals(3, s.http.count());
    }

    @Test
    void aGetOnATargetThatConfirmsOnlyPostRunsWithoutAsking() throws Exception {
        ApprovalLiveSession s = handshake("2025-11-25", "{\"elicitation\":{}}", Duration.ofSeconds(30));
        s.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
                + "\"arguments\":{\"method\":\"GET\",\"url\":\"" + BASE + "/v1/orders\"}}}");
        JsonNode result = s.receive();
        assertEquals(2, result.path("id").asInt(), "the result came first: no question");
        assertEquals(1, s.http.count());
    }

    @Test
    void aResponseToAnIdPosternNeverSentClosesTheSession() throws Exception {
        ApprovalLiveSession s = handshake("2025-11-25", "{\"elicitation\":{}}", Duration.ofSeconds(30));
        s.send("{\"jsonrpc\":\"2.0\",\"id\":\"postern-approval-7\",\"result\":" + ACCEPT + "}");
        JsonNode error = s.receive();
        assertEquals(-32600, error.path("error").path("code").asInt());
        assertEquals(ExitStatus.PROTOCOL_ERROR, s.endInput());
        assertEquals(0, s.http.count());
    }

    @Test
    void cancellingTheWaitingCallEndsTheWaitAndSuppressesItsAnswer() throws Exception {
        ApprovalLiveSession s = handshake("2025-11-25", "{\"elicitation\":{}}", Duration.ofSeconds(30));
        s.send(post(2, "/v1/orders", "{}"));
        JsonNode question = s.receive();
        s.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2}}");
        assertTrue(s.silentFor(Duration.ofMillis(500)), "a cancelled call is not answered");
        s.send(answer(question, ACCEPT));
        s.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}");
        assertEquals(3, s.receive().path("id").asInt());
        assertEquals(0, s.http.count());
    }

    @Test
    void endOfInputWhileAHumanDecidesEndsTheCallUnapproved() throws Exception {
        ApprovalLiveSession s = handshake("2025-11-25", "{\"elicitation\":{}}", Duration.ofSeconds(30));
        s.send(post(2, "/v1/orders", "{}"));
        s.receive();
        assertEquals(ExitStatus.OK, s.endInput());
        assertEquals("approval.timeout", toolErrorRule(s.receive()));
        assertEquals(0, s.http.count());
    }

    @Test
    void theDecisionsJournalRecordsTheQuestionAndTheAnswer() throws Exception {
        ApprovalLiveSession s = handshake("2025-11-25", "{\"elicitation\":{}}", Duration.ofSeconds(30));
        s.send(post(2, "/v1/orders", "{}"));
        s.send(answer(s.receive(), "{\"action\":\"decline\"}"));
        s.receive();
        s.endInput();
        List<JsonNode> approvals = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve(FileAuditJournal.DECISIONS), StandardCharsets.UTF_8)) {
            JsonNode row = JSON.readTree(line);
            if (row.path("stage").asText().equals("approval")) {
                approvals.add(row);
            }
        }
        assertEquals(2, approvals.size(), approvals.toString());
        assertEquals("asked", approvals.get(0).path("event").asText());
        assertEquals("answered", approvals.get(1).path("event").asText());
        assertEquals("approval.declined", approvals.get(1).path("result").asText());
        assertEquals("http.target:api", approvals.get(1).path("rule").asText());
    }

    // ---- stateless era ----

    private static String statelessPost(int id, String path, String body, String retry) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{" + STATELESS_META
                + ",\"name\":\"http_request\",\"arguments\":{\"method\":\"POST\",\"url\":\"" + BASE + path + "\",\"body\":"
                + JSON.valueToTree(body) + "}" + retry + "}}";
    }

    private static String retry(String answer, String state) {
        return ",\"inputResponses\":{\"approval\":" + answer + "},\"requestState\":" + JSON.valueToTree(state);
    }

    private String firstLeg(ApprovalLiveSession s, int id, String path, String body) {
        s.send(statelessPost(id, path, body, ""));
        JsonNode result = s.receive().path("result");
        assertEquals("input_required", result.path("resultType").asText(), result.toString());
        JsonNode request = result.path("inputRequests").path("approval");
        assertEquals("elicitation/create", request.path("method").asText());
        assertEquals("boolean", request.path("params").path("requestedSchema").path("properties").path("approve").path("type").asText());
        assertEquals("postern", result.path("_meta").path("io.modelcontextprotocol/serverInfo").path("name").asText());
        return result.path("requestState").asText();
    }

    @Test
    void statelessFirstCallAsksAndTheRetryWithItsStateRunsOnceAndNeverAgain() throws Exception {
        ApprovalLiveSession s = start(Duration.ofSeconds(30));
        String state = firstLeg(s, 1, "/v1/orders", "{}");
        assertEquals(0, s.http.count(), "the first leg runs nothing");
        s.send(statelessPost(2, "/v1/orders", "{}", retry(ACCEPT, state)));
        JsonNode done = s.receive().path("result");
        assertEquals("complete", done.path("resultType").asText(), done.toString());
        assertFalse(done.path("isError").asBoolean(true), done.toString());
        assertEquals(1, s.http.count());
        s.send(statelessPost(3, "/v1/orders", "{}", retry(ACCEPT, state)));
        assertEquals("approval.invalid", toolErrorRule(s.receive()), "a replayed requestState");
        assertEquals(1, s.http.count());
    }

    @Test
    void aChangedStateAStateFromAnotherCallAndAnExpiredOneRunNothing() throws Exception {
        ApprovalLiveSession s = start(Duration.ofSeconds(30));
        String state = firstLeg(s, 1, "/v1/orders", "{\"id\":1}");
        char c = state.charAt(10);
        String changed = state.substring(0, 10) + (c == 'A' ? 'B' : 'A') + state.substring(11);
        s.send(statelessPost(2, "/v1/orders", "{\"id\":1}", retry(ACCEPT, changed)));
        assertEquals("approval.invalid", toolErrorRule(s.receive()), "one character changed");
        s.send(statelessPost(3, "/v1/orders", "{\"id\":2}", retry(ACCEPT, state)));
        assertEquals("approval.invalid", toolErrorRule(s.receive()), "a state from a different call");
        String other = firstLeg(s, 4, "/v1/orders", "{\"id\":3}");
        clock.advance(Duration.ofSeconds(61));
        s.send(statelessPost(5, "/v1/orders", "{\"id\":3}", retry(ACCEPT, other)));
        assertEquals("approval.invalid", toolErrorRule(s.receive()), "an expired state");
        s.send(statelessPost(6, "/v1/orders", "{\"id\":1}", retry(ACCEPT, "not-a-state")));
        assertEquals("approval.invalid", toolErrorRule(s.receive()), "a forged state");
        assertEquals(0, s.http.count());
    }

    @Test
    void aStatelessDeclineAndGarbageAnswersRunNothing() throws Exception {
        ApprovalLiveSession s = start(Duration.ofSeconds(30));
        String state = firstLeg(s, 1, "/v1/orders", "{}");
        s.send(statelessPost(2, "/v1/orders", "{}", retry("{\"action\":\"decline\"}", state)));
        assertEquals("approval.declined", toolErrorRule(s.receive()));
        String again = firstLeg(s, 3, "/v1/orders", "{}");
        s.send(statelessPost(4, "/v1/orders", "{}", retry("{\"action\":\"accept\",\"content\":{\"approve\":1}}", again)));
        assertEquals("approval.invalid", toolErrorRule(s.receive()));
        assertEquals(0, s.http.count());
    }

    @Test
    void aStatelessClientWithoutElicitationGetsMinus32021WithTheCapability() throws Exception {
        ApprovalLiveSession s = start(Duration.ofSeconds(30));
        s.send(statelessPost(1, "/v1/orders", "{}", "").replace("{\"elicitation\":{\"form\":{}}}", "{}"));
        JsonNode error = s.receive().path("error");
        assertEquals(-32021, error.path("code").asInt(), error.toString());
        assertTrue(error.path("data").path("requiredCapabilities").path("elicitation").isObject(), error.toString());
        assertEquals(0, s.http.count());
    }

    @Test
    void retryMembersAreRefusedInTheHandshakeEra() throws Exception {
        ApprovalLiveSession s = handshake("2025-11-25", "{\"elicitation\":{}}", Duration.ofSeconds(30));
        ObjectNode call = (ObjectNode) JSON.readTree(post(2, "/v1/orders", "{}"));
        ((ObjectNode) call.get("params")).put("requestState", "x");
        s.send(call.toString());
        assertEquals(-32602, s.receive().path("error").path("code").asInt());
        assertEquals(0, s.http.count());
    }

    // ---- sql_query: a statement marked confirm ----

    private static final String PLACE_ORDER = "INSERT INTO orders (sku, qty) VALUES (:sku, :qty)";

    /** A database whose one statement, an INSERT, needs a human's approval; the agent's role never shows. */
    static Policy sqlPolicy(String host, int port) {
        return Policy.of(new SqlDatabase("shop", host, port, "shop", "agent_rw", new CredentialRef("shop-db"),
                SqlDatabase.Tls.disabled(), true, Duration.ofSeconds(5), 10, 4096, List.of(
                        new SqlStatementSpec("place-order", PLACE_ORDER,
                                Map.of("sku", new ParamSpec.StringParam(Optional.empty(), Optional.empty(), 32),
                                        "qty", new ParamSpec.IntegerParam(1, 100)), false, true))));
    }

    private ApprovalLiveSession startSql() throws Exception {
        session = new ApprovalLiveSession(SessionHarness.config(dir, sqlPolicy("127.0.0.1", 5432), 4),
                RequestStateCodec.withFreshKey(Duration.ofSeconds(60), clock, 100), Duration.ofSeconds(30), true);
        return session;
    }

    private static String placeOrder(int id, String sku, int qty, String meta) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{" + meta
                + "\"name\":\"sql_query\",\"arguments\":{\"database\":\"shop\",\"statement\":\"place-order\","
                + "\"args\":{\"sku\":" + JSON.valueToTree(sku) + ",\"qty\":" + qty + "}}}}";
    }

    /** The question names the database, the statement, its SQL and each value as bound; never the host or the role. */
    private static void assertShowsTheStatementAndItsValues(String message, String sku, int qty) {
        for (String line : List.of("tool: sql_query", "database: shop", "statement: place-order", "sql: " + PLACE_ORDER,
                "value qty: " + qty, "value sku: " + JSON.valueToTree(sku))) {
            assertTrue(message.contains("\n" + line + "\n"), "the question shows \"" + line + "\": " + message);
        }
        assertFalse(message.contains("127.0.0.1") || message.contains("agent_rw") || message.contains("shop-db"), message);
    }

    private void startSqlHandshake(ApprovalLiveSession s) {
        s.send(initialize("2025-11-25", "{\"elicitation\":{}}"));
        assertEquals("2025-11-25", s.receive().path("result").path("protocolVersion").asText());
        s.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    }

    @Test
    void anSqlStatementMarkedConfirmIsAskedAboutWithItsValuesAndRunsOnceWhenAccepted() throws Exception {
        ApprovalLiveSession s = startSql();
        startSqlHandshake(s);
        s.send(placeOrder(2, "mug \"blue\"", 3, ""));
        JsonNode question = s.receive();
        assertEquals("elicitation/create", question.path("method").asText(), question.toString());
        assertShowsTheStatementAndItsValues(question.path("params").path("message").asText(), "mug \"blue\"", 3);
        assertEquals(0, s.sql.count(), "nothing runs before the answer");
        s.send(answer(question, ACCEPT));
        JsonNode result = s.receive();
        assertEquals(2, result.path("id").asInt());
        assertFalse(result.path("result").path("isError").asBoolean(true), result.toString());
        assertEquals(1, s.sql.count());
        assertEquals(List.of(new Argument.Text("mug \"blue\""), new Argument.Whole(3)), s.sql.attempts().get(0).boundValues());
        assertEquals(ExitStatus.OK, s.endInput());
        assertEquals(1, s.sql.count(), "and never again");
    }

    @Test
    void aDeclinedSqlStatementReachesNoExecutor() throws Exception {
        ApprovalLiveSession s = startSql();
        startSqlHandshake(s);
        s.send(placeOrder(2, "mug", 1, ""));
        JsonNode question = s.receive();
        assertShowsTheStatementAndItsValues(question.path("params").path("message").asText(), "mug", 1);
        s.send(answer(question, "{\"action\":\"decline\"}"));
        assertEquals("approval.declined", toolErrorRule(s.receive()));
        assertTrue(s.silentFor(Duration.ofMillis(300)), "no second question");
        assertEquals(ExitStatus.OK, s.endInput());
        assertEquals(0, s.sql.count());
    }

    @Test
    void statelessSqlConfirmAsksWithTheStatementAndValuesRunsOnceOnAcceptAndNeverOnDecline() throws Exception {
        ApprovalLiveSession s = startSql();
        String meta = STATELESS_META + ",";
        s.send(placeOrder(1, "mug", 2, meta));
        JsonNode asked = s.receive().path("result");
        assertEquals("input_required", asked.path("resultType").asText(), asked.toString());
        assertShowsTheStatementAndItsValues(asked.path("inputRequests").path("approval").path("params").path("message").asText(), "mug", 2);
        assertEquals(0, s.sql.count(), "the first leg runs nothing");
        String retry = retry(ACCEPT, asked.path("requestState").asText());
        s.send(placeOrder(2, "mug", 2, meta + retry.substring(1) + ","));
        JsonNode done = s.receive().path("result");
        assertEquals("complete", done.path("resultType").asText(), done.toString());
        assertFalse(done.path("isError").asBoolean(true), done.toString());
        assertEquals(1, s.sql.count());
        assertEquals(List.of(new Argument.Text("mug"), new Argument.Whole(2)), s.sql.attempts().get(0).boundValues());

        s.send(placeOrder(3, "plate", 5, meta));
        JsonNode again = s.receive().path("result");
        assertShowsTheStatementAndItsValues(again.path("inputRequests").path("approval").path("params").path("message").asText(), "plate", 5);
        String decline = retry("{\"action\":\"decline\"}", again.path("requestState").asText());
        s.send(placeOrder(4, "plate", 5, meta + decline.substring(1) + ","));
        assertEquals("approval.declined", toolErrorRule(s.receive()));
        assertEquals(1, s.sql.count(), "the declined statement never ran");
    }

    @Test
    void withARealDatabaseADeclinedInsertLeavesTheTableUnchangedAndAnAcceptedOneInsertsOneRow() throws Exception {
        try (LocalPostgres pg = LocalPostgres.start()) {
            String password = "approval-db-password-7f3a";
            pg.psql("postgres", "CREATE DATABASE shop");
            pg.psql("shop", "CREATE ROLE agent_rw LOGIN PASSWORD '" + password + "';"
                    + " CREATE TABLE orders (sku text NOT NULL, qty int NOT NULL); GRANT SELECT, INSERT ON orders TO agent_rw");
            Path secret = dir.resolve("db-password");
            Files.writeString(secret, password);
            Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
            GatewayConfig config = new GatewayConfig(dir.resolve("postern.json"), sqlPolicy(pg.host(), pg.port()), 1 << 20, 4,
                    dir.resolve("journal"), GatewayConfig.DEFAULT_JOURNAL_ROTATE_BYTES,
                    Map.of(new CredentialRef("shop-db"), new CredentialSource.File(secret)), Optional.empty(), false, "0".repeat(64));
            session = new ApprovalLiveSession(config, RequestStateCodec.withFreshKey(Duration.ofSeconds(60), clock, 100),
                    Duration.ofSeconds(30), false);
            ApprovalLiveSession s = session;
            startSqlHandshake(s);
            long connectionsBefore = pg.connectionsOf("agent_rw");

            s.send(placeOrder(2, "declined-sku", 1, ""));
            s.send(answer(s.receive(), "{\"action\":\"decline\"}"));
            assertEquals("approval.declined", toolErrorRule(s.receive()));
            assertEquals(List.of(), rows(pg), "the declined INSERT left the table as it was");
            assertEquals(connectionsBefore, pg.connectionsOf("agent_rw"), "and opened no connection:\n" + pg.logText());
            assertFalse(pg.logText().contains("declined-sku"), "the server never saw its value");

            s.send(placeOrder(3, "accepted-sku", 2, ""));
            s.send(answer(s.receive(), ACCEPT));
            JsonNode result = s.receive();
            assertFalse(result.path("result").path("isError").asBoolean(true), result.toString());
            assertEquals(ExitStatus.OK, s.endInput());
            assertEquals(List.of("accepted-sku x2"), rows(pg), "the accepted INSERT ran exactly once");
        }
    }

    /** The orders table's rows, read as the superuser. */
    private static List<String> rows(LocalPostgres pg) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl("shop"), LocalPostgres.SUPERUSER, pg.superuserPassword());
             ResultSet r = c.createStatement().executeQuery("SELECT sku, qty FROM orders ORDER BY sku")) {
            while (r.next()) {
                out.add(r.getString(1) + " x" + r.getInt(2));
            }
        }
        return out;
    }

    /** A clock the test moves by hand. */
    static final class SettableClock extends Clock {
        private volatile Instant now = Instant.parse("2026-12-01T00:00:00Z");

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
