package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.app.config.ApprovalChannel;
import dev.postern.app.config.ApprovalChannels;
import dev.postern.app.config.GatewayConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The channels Postern owns, through the real session loop: a client that declares no elicitation
 * gets its confirm call approved on the loopback page or denied in the terminal, in both eras; under
 * {@code any} the first answer wins and the other question is withdrawn; a client that declared URL
 * mode is sent to the page; under {@code client} nothing changed. Effects are counted at the
 * recording executors.
 */
class LocalApprovalSessionTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern NEEDED = Pattern.compile(
            "postern: approval needed: (http://127\\.0\\.0\\.1:(\\d+)(/approval/[A-Za-z0-9_-]+)) \\(rule (\\S+), tool (\\S+); or in a"
                    + " terminal: postern approvals approve ([0-9a-f]{10});");
    private static final String STATELESS = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":%s}";
    private static final String ACCEPT = "{\"action\":\"accept\",\"content\":{\"approve\":true}}";

    @TempDir
    Path dir;
    private ApprovalLiveSession session;

    @AfterEach
    void stop() throws Exception {
        if (session != null) {
            session.close();
        }
    }

    private ApprovalLiveSession start(ApprovalChannel channel) throws Exception {
        GatewayConfig config = SessionHarness.config(dir, ApprovalSessionTest.policy(), 4)
                .withApprovalChannels(ApprovalChannels.only(channel));
        session = new ApprovalLiveSession(config);
        return session;
    }

    private ApprovalLiveSession handshake(ApprovalChannel channel, String capabilities) throws Exception {
        ApprovalLiveSession s = start(channel);
        s.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                + "\"capabilities\":" + capabilities + ",\"clientInfo\":{\"name\":\"scripted\",\"version\":\"1\"}}}");
        s.receive();
        s.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        return s;
    }

    private static String post(int id, String path, String extra) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
                + "\"arguments\":{\"method\":\"POST\",\"url\":\"http://127.0.0.1:9" + path + "\",\"body\":\"x\"}" + extra + "}}";
    }

    /** Answers the page {@code needed} names, as a browser on it would. */
    private static RawHttp.Response onThePage(Matcher needed, String decision) throws Exception {
        int port = Integer.parseInt(needed.group(2));
        String host = "127.0.0.1:" + port;
        RawHttp.Response page = RawHttp.get(port, needed.group(3), host);
        assertEquals(200, page.status(), page.body());
        return RawHttp.post(port, needed.group(3), host, "http://" + host, "csrf=" + RawHttp.field(page.body(), "csrf")
                + "&digest=" + RawHttp.field(page.body(), "digest").replace(":", "%3A") + "&decision=" + decision);
    }

    private static String rule(JsonNode response) throws Exception {
        assertTrue(response.path("result").path("isError").asBoolean(false), response.toString());
        return JSON.readTree(response.path("result").path("content").path(0).path("text").asText()).path("error").path("rule").asText();
    }

    private String decisions() throws Exception {
        return Files.readString(dir.resolve("decisions.jsonl"), StandardCharsets.UTF_8);
    }

    @Test
    void aHandshakeClientWithoutElicitationIsApprovedOnThePageAndTheActionRunsOnce() throws Exception {
        ApprovalLiveSession s = handshake(ApprovalChannel.ANY, "{}");
        s.send(post(2, "/v1/orders", ""));
        Matcher needed = s.awaitStderr(NEEDED);
        assertEquals("http.target:api", needed.group(4));
        RawHttp.Response shown = RawHttp.get(Integer.parseInt(needed.group(2)), needed.group(3), "127.0.0.1:" + needed.group(2));
        assertTrue(shown.body().contains("/v1/orders") && shown.body().contains("scripted 1"), shown.body());
        assertEquals(0, s.http.count(), "nothing runs while the human decides");
        s.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}");
        assertEquals(3, s.receive().path("id").asInt(), "the session keeps serving");

        assertEquals(200, onThePage(needed, "approve").status());
        JsonNode done = s.receive();
        assertEquals(2, done.path("id").asInt());
        assertFalse(done.path("result").path("isError").asBoolean(true), done.toString());
        assertEquals(1, s.http.count());
        assertTrue(decisions().contains("\"channel\":\"page\""), decisions());
        assertTrue(decisions().contains("\"result\":\"approved\""), decisions());
    }

    @Test
    void aStatelessClientWithoutElicitationIsDeniedInTheTerminalAndNothingRuns() throws Exception {
        ApprovalLiveSession s = start(ApprovalChannel.LOCAL);
        s.send(post(1, "/v1/orders", "," + STATELESS.formatted("{}")));
        Matcher needed = s.awaitStderr(NEEDED);
        Path approvals = ApprovalFiles.directory(dir);
        assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(approvals)));
        Path pending = approvals.resolve(needed.group(6) + ".pending");
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(pending)));
        assertTrue(Files.readString(pending).contains("/v1/orders"));

        Path loose = approvals.resolve(needed.group(6) + ".answer");
        Files.writeString(loose, "{\"decision\":\"approve\",\"digest\":\"" + JSON.readTree(Files.readString(pending)).path("digest").asText()
                + "\"}");
        Files.setPosixFilePermissions(loose, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        s.awaitStderr(Pattern.compile("ignored an answer to approval " + needed.group(6) + ": not a regular file of mode 0600"));
        assertFalse(Files.exists(loose), "an answer others could have written is refused and removed");
        assertEquals(0, s.http.count());

        assertTrue(ApprovalFiles.answer(approvals, needed.group(6), false).isPresent());
        assertEquals("approval.declined", rule(s.receive()));
        assertEquals(0, s.http.count());
        assertFalse(Files.exists(pending), "the gateway removes an ended approval's file");
        assertTrue(decisions().contains("\"channel\":\"terminal\""), decisions());
        assertEquals(410, onThePageStatus(needed), "the page is gone once the terminal answered");
    }

    private static int onThePageStatus(Matcher needed) throws Exception {
        return RawHttp.get(Integer.parseInt(needed.group(2)), needed.group(3), "127.0.0.1:" + needed.group(2)).status();
    }

    @Test
    void underAnyThePageAnswersFirstAndTheClientsFormQuestionIsWithdrawn() throws Exception {
        ApprovalLiveSession s = handshake(ApprovalChannel.ANY, "{\"elicitation\":{\"form\":{}}}");
        s.send(post(2, "/v1/orders", ""));
        JsonNode question = s.receive();
        assertEquals("elicitation/create", question.path("method").asText());
        assertEquals("form", question.path("params").path("mode").asText());
        Matcher needed = s.awaitStderr(NEEDED);
        assertEquals(200, onThePage(needed, "approve").status());
        JsonNode a = s.receive();
        JsonNode b = s.receive();
        JsonNode cancelled = a.has("method") ? a : b;
        JsonNode result = a.has("method") ? b : a;
        assertEquals("notifications/cancelled", cancelled.path("method").asText());
        assertEquals(question.get("id"), cancelled.path("params").path("requestId"));
        assertFalse(result.path("result").path("isError").asBoolean(true), result.toString());
        s.send("{\"jsonrpc\":\"2.0\",\"id\":" + question.get("id") + ",\"result\":" + ACCEPT + "}");
        s.send("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}");
        assertEquals(5, s.receive().path("id").asInt(), "a late client answer runs nothing and ends nothing");
        assertEquals(1, s.http.count());
    }

    @Test
    void underAnyTheClientAnswersFirstAndThePageIsGone() throws Exception {
        ApprovalLiveSession s = handshake(ApprovalChannel.ANY, "{\"elicitation\":{\"form\":{}}}");
        s.send(post(2, "/v1/orders", ""));
        JsonNode question = s.receive();
        Matcher needed = s.awaitStderr(NEEDED);
        s.send("{\"jsonrpc\":\"2.0\",\"id\":" + question.get("id") + ",\"result\":{\"action\":\"decline\"}}");
        assertEquals("approval.declined", rule(s.receive()));
        assertEquals(410, onThePageStatus(needed));
        assertEquals(0, s.http.count());
    }

    @Test
    void aClientThatDeclaredUrlModeIsSentToThePageAndToldWhenItIsDone() throws Exception {
        ApprovalLiveSession s = handshake(ApprovalChannel.LOCAL, "{\"elicitation\":{\"form\":{},\"url\":{}}}");
        s.send(post(2, "/v1/orders", ""));
        JsonNode question = s.receive();
        Matcher needed = s.awaitStderr(NEEDED);
        assertEquals("url", question.path("params").path("mode").asText(), question.toString());
        assertEquals(needed.group(1), question.path("params").path("url").asText());
        String elicitationId = question.path("params").path("elicitationId").asText();
        s.send("{\"jsonrpc\":\"2.0\",\"id\":" + question.get("id") + ",\"result\":{\"action\":\"accept\"}}");
        s.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}");
        assertEquals(3, s.receive().path("id").asInt());
        assertEquals(0, s.http.count(), "the client's accepting the URL approves nothing");

        assertEquals(200, onThePage(needed, "approve").status());
        JsonNode a = s.receive();
        JsonNode b = s.receive();
        JsonNode complete = a.has("method") ? a : b;
        JsonNode result = a.has("method") ? b : a;
        assertEquals("notifications/elicitation/complete", complete.path("method").asText());
        assertEquals(elicitationId, complete.path("params").path("elicitationId").asText());
        assertFalse(result.path("result").path("isError").asBoolean(true), result.toString());
        assertEquals(1, s.http.count());
    }

    @Test
    void aStatelessUrlClientGetsThePageInInputRequiredAndItsRetryRunsOnceWhenApproved() throws Exception {
        ApprovalLiveSession s = start(ApprovalChannel.LOCAL);
        String caps = "{\"elicitation\":{\"url\":{}}}";
        s.send(post(1, "/v1/orders", "," + STATELESS.formatted(caps)));
        JsonNode first = s.receive().path("result");
        assertEquals("input_required", first.path("resultType").asText(), first.toString());
        JsonNode request = first.path("inputRequests").path("approval");
        assertEquals("url", request.path("params").path("mode").asText());
        Matcher needed = s.awaitStderr(NEEDED);
        assertEquals(needed.group(1), request.path("params").path("url").asText());
        assertEquals(200, onThePage(needed, "approve").status());
        String retry = ",\"inputResponses\":{\"approval\":{\"action\":\"accept\"}},\"requestState\":\""
                + first.path("requestState").asText() + "\"";
        s.send(post(2, "/v1/orders", "," + STATELESS.formatted(caps) + retry));
        JsonNode done = s.receive();
        assertFalse(done.path("result").path("isError").asBoolean(true), done.toString());
        s.send(post(3, "/v1/orders", "," + STATELESS.formatted(caps) + retry));
        assertEquals("approval.invalid", rule(s.receive()), "the same requestState again");
        assertEquals(1, s.http.count());
    }

    @Test
    void underClientAClientWithoutElicitationStillEndsUnsupportedAtOnceAndNoPageIsOpened() throws Exception {
        ApprovalLiveSession s = handshake(ApprovalChannel.CLIENT, "{}");
        s.send(post(2, "/v1/orders", ""));
        assertEquals("approval.unsupported", rule(s.receive()));
        assertFalse(s.stderr().contains("approval needed"), s.stderr());
        assertFalse(Files.exists(ApprovalFiles.directory(dir)));
        assertEquals(0, s.http.count());
    }
}
