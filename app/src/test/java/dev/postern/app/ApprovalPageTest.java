package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.policy.port.ApprovalRecord.Channel;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The loopback approval page over real sockets: it shows the exact action, the rule and the client
 * with headers that keep it uncached, unframed and self-contained; only a same-origin POST with this
 * approval's CSRF token and digest answers it, once; a wrong Host, another origin, a missing or
 * foreign token, a replay or an expired approval answers nothing.
 */
class ApprovalPageTest {
    private static final String DIGEST = "sha256:" + "ab".repeat(32);
    private static final String MESSAGE = "Postern asks you to approve this action (test):\ntool: http_request\nurl: http://x/<b>y</b>";

    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    private LocalApprovals approvals;
    private ApprovalPage page;

    @BeforeEach
    void start() {
        approvals = new LocalApprovals(Clock.systemUTC());
        page = new ApprovalPage(approvals, new PrintStream(stderr, true, StandardCharsets.UTF_8));
        approvals.listen(page);
    }

    @AfterEach
    void stop() {
        approvals.close();
        page.close();
    }

    private LocalApprovals.Held hold(Duration lifetime) {
        return approvals.open(new LocalApprovals.Shown("http_request", "http.target:api", "scripted-client 1", MESSAGE, DIGEST), lifetime);
    }

    private int port() {
        return URI.create(page.origin()).getPort();
    }

    private String path(LocalApprovals.Held held) {
        return URI.create(page.url(held)).getPath();
    }

    private String host() {
        return "127.0.0.1:" + port();
    }

    private String form(String csrf, String digest, String decision) {
        return (csrf == null ? "" : "csrf=" + csrf + "&") + "digest=" + digest.replace(":", "%3A") + "&decision=" + decision;
    }

    @Test
    void thePageShowsTheExactActionTheRuleAndTheClientAndIsNeitherCachedFramedNorScripted() throws Exception {
        LocalApprovals.Held held = hold(Duration.ofSeconds(60));
        RawHttp.Response r = RawHttp.get(port(), path(held), host());
        assertEquals(200, r.status());
        assertTrue(r.body().contains(ApprovalPage.escape(MESSAGE)), r.body());
        assertFalse(r.body().contains("<b>y</b>"), "the action's text is escaped, never markup");
        assertTrue(r.body().contains("http.target:api") && r.body().contains("scripted-client 1"), r.body());
        assertTrue(r.body().contains(">Approve</button>") && r.body().contains(">Deny</button>"), r.body());
        assertFalse(r.body().contains("<script") || r.body().contains("src=") || r.body().contains("href="), "loads nothing");
        assertEquals("no-store", r.header("Cache-Control"));
        assertEquals("DENY", r.header("X-Frame-Options"));
        assertEquals("same-origin", r.header("Referrer-Policy"), "no-referrer would make a browser send Origin: null with the form");
        assertEquals(ApprovalPage.CSP, r.header("Content-Security-Policy"));
        assertTrue(ApprovalPage.CSP.startsWith("default-src 'none'") && ApprovalPage.CSP.contains("form-action 'self'"));
        assertTrue(path(held).length() >= ApprovalPage.PREFIX.length() + 22, "at least 128 random bits in the path");
    }

    @Test
    void aSameOriginApprovalWithTheTokenAnswersOnceAndThePathIsGoneAfterwards() throws Exception {
        LocalApprovals.Held held = hold(Duration.ofSeconds(60));
        String csrf = RawHttp.field(RawHttp.get(port(), path(held), host()).body(), "csrf");
        RawHttp.Response approved = RawHttp.post(port(), path(held), host(), page.origin(), form(csrf, DIGEST, "approve"));
        assertEquals(200, approved.status(), approved.body());
        assertEquals(Optional.of(new LocalApprovals.Answer(true, Channel.PAGE)), held.answer().get(10, TimeUnit.SECONDS));

        assertEquals(410, RawHttp.post(port(), path(held), host(), page.origin(), form(csrf, DIGEST, "deny")).status(),
                "a replayed form");
        RawHttp.Response again = RawHttp.get(port(), path(held), host());
        assertEquals(410, again.status(), "a second tab after the answer");
        assertFalse(again.body().contains("http_request"));
    }

    @Test
    void aDenialOnThePageIsTheAnswer() throws Exception {
        LocalApprovals.Held held = hold(Duration.ofSeconds(60));
        String csrf = RawHttp.field(RawHttp.get(port(), path(held), host()).body(), "csrf");
        assertEquals(200, RawHttp.post(port(), path(held), host(), page.origin(), form(csrf, DIGEST, "deny")).status());
        assertEquals(Optional.of(new LocalApprovals.Answer(false, Channel.PAGE)), held.answer().get(10, TimeUnit.SECONDS));
    }

    @Test
    void aWrongHostACrossOriginPostOrAMissingOrForeignTokenOrDigestAnswersNothing() throws Exception {
        LocalApprovals.Held held = hold(Duration.ofSeconds(60));
        LocalApprovals.Held other = hold(Duration.ofSeconds(60));
        String csrf = RawHttp.field(RawHttp.get(port(), path(held), host()).body(), "csrf");
        String foreign = RawHttp.field(RawHttp.get(port(), path(other), host()).body(), "csrf");

        RawHttp.Response rebound = RawHttp.get(port(), path(held), "evil.example:" + port());
        assertEquals(421, rebound.status());
        assertFalse(rebound.body().contains("http_request"), "a rebound name sees nothing of the action");
        assertEquals(421, RawHttp.get(port(), path(held), "localhost:" + port()).status());
        assertEquals(421, RawHttp.post(port(), path(held), "evil.example", page.origin(), form(csrf, DIGEST, "approve")).status());
        assertEquals(403, RawHttp.post(port(), path(held), host(), "http://evil.example", form(csrf, DIGEST, "approve")).status());
        assertEquals(403, RawHttp.post(port(), path(held), host(), null, form(csrf, DIGEST, "approve")).status(), "no Origin");
        assertEquals(403, RawHttp.post(port(), path(held), host(), page.origin(), form(null, DIGEST, "approve")).status(), "no token");
        assertEquals(403, RawHttp.post(port(), path(held), host(), page.origin(), form(foreign, DIGEST, "approve")).status(),
                "another approval's token");
        assertEquals(403, RawHttp.post(port(), path(held), host(), page.origin(), form(csrf, "sha256:" + "cd".repeat(32), "approve"))
                .status(), "another action's digest");
        assertEquals(404, RawHttp.get(port(), ApprovalPage.PREFIX + "not-a-secret", host()).status());

        assertFalse(held.answer().isDone(), "nothing answered it");
        assertEquals(200, RawHttp.post(port(), path(held), host(), page.origin(), form(csrf, DIGEST, "approve")).status(),
                "and it can still be answered properly");
    }

    @Test
    void anExpiredApprovalIsGoneAndCannotBeAnswered() throws Exception {
        LocalApprovals.Held held = hold(Duration.ofMillis(200));
        String path = path(held);
        assertEquals(Optional.empty(), held.answer().get(10, TimeUnit.SECONDS), "it expired unanswered");
        assertEquals(410, RawHttp.get(port(), path, host()).status());
        assertFalse(approvals.answer(held.id(), DIGEST, true, Channel.TERMINAL), "nor by the terminal");
    }
}
