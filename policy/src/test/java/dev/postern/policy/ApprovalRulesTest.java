package dev.postern.policy;

import static dev.postern.policy.TestPolicies.get;
import static dev.postern.policy.TestPolicies.host;
import static dev.postern.policy.TestPolicies.httpEngine;
import static dev.postern.policy.TestPolicies.request;
import static dev.postern.policy.TestPolicies.ssh;
import static dev.postern.policy.TestPolicies.sshEngine;
import static dev.postern.policy.TestPolicies.target;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.policy.action.HeaderField;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.action.Argument;
import dev.postern.policy.action.SqlQueryAction;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import dev.postern.policy.model.SshCommandSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Rules marked confirm: the decision holds the permit back until a human approves exactly the shown action. */
class ApprovalRulesTest {
    private static final HttpTarget API = target("api", "https://api.example.com", Set.of("GET", "POST", "DELETE"),
            List.of("/v1/"), Set.of("content-type")).withConfirm(Set.of("POST", "DELETE"));
    private static final PolicyEngine HTTP = httpEngine(API);

    private static HttpRequestAction post(String url, String body) {
        return new HttpRequestAction("POST", url, List.of(), List.of(new HeaderField("Content-Type", "application/json")),
                Optional.of(body));
    }

    private static PendingApproval pending(Decision d) {
        return assertInstanceOf(Decision.ApprovalRequired.class, d).pending();
    }

    @Test
    void aMethodListedInConfirmNeedsApprovalAndShowsTheExactRequest() {
        PendingApproval p = pending(HTTP.decide(post("https://API.example.com:443/v1/orders?x=1", "{\"n\":1}")));
        assertEquals("http.target:api", p.rule());
        assertEquals("http_request", p.shown().kind());
        assertEquals(List.of(
                new ShownAction.Field("target", "api"),
                new ShownAction.Field("method", "POST"),
                new ShownAction.Field("url", "https://api.example.com:443/v1/orders?x=1"),
                new ShownAction.Field("header Content-Type", "application/json"),
                new ShownAction.Field("body", "{\"n\":1}")), p.shown().fields());
        assertTrue(Pattern.matches("sha256:[0-9a-f]{64}", p.digest()));
        assertTrue(p.reason().contains("POST"), p.reason());
    }

    @Test
    void aMethodNotListedInConfirmIsPermittedWithoutAsking() {
        assertInstanceOf(Decision.Permit.class, HTTP.decide(get("https://api.example.com/v1/orders")));
    }

    @Test
    void aDeniedCallIsDeniedBeforeAnyoneIsAsked() {
        Decision d = HTTP.decide(post("https://api.example.com/v2/orders", "{}"));
        assertEquals("http.path", assertInstanceOf(Decision.Deny.class, d).rule());
    }

    @Test
    void grantingWithTheApprovalOfThisDigestYieldsThePermitForTheSameRequestOnce() {
        PendingApproval p = pending(HTTP.decide(post("https://api.example.com/v1/orders", "{}")));
        Decision.Permit permit = p.grant(new HumanApproval(p.digest(), "test"));
        AuthorizedHttpRequest r = assertInstanceOf(AuthorizedHttpRequest.class, permit.permit());
        assertEquals("https://api.example.com:443/v1/orders", r.uri().toString());
        assertEquals("http.target:api", r.rule());
        assertThrows(IllegalStateException.class, () -> p.grant(new HumanApproval(p.digest(), "test")));
    }

    @Test
    void anApprovalOfAnotherActionGrantsNothingAndLeavesThePendingApprovalUnused() {
        PendingApproval a = pending(HTTP.decide(post("https://api.example.com/v1/orders", "{\"id\":1}")));
        PendingApproval b = pending(HTTP.decide(post("https://api.example.com/v1/orders", "{\"id\":2}")));
        assertNotEquals(a.digest(), b.digest());
        assertThrows(IllegalArgumentException.class, () -> a.grant(new HumanApproval(b.digest(), "test")));
        assertInstanceOf(AuthorizedHttpRequest.class, a.grant(new HumanApproval(a.digest(), "test")).permit());
    }

    @Test
    void theDigestIsStableForTheSameActionAndCoversEveryPartOfIt() {
        String base = pending(HTTP.decide(post("https://api.example.com/v1/orders", "{}"))).digest();
        assertEquals(base, pending(HTTP.decide(post("https://api.example.com/v1/orders", "{}"))).digest());
        assertEquals(base, pending(HTTP.decide(post("https://api.example.com:443/v1/orders", "{}"))).digest(),
                "the same canonical URL is the same action");
        assertNotEquals(base, pending(HTTP.decide(post("https://api.example.com/v1/order", "{}"))).digest());
        assertNotEquals(base, pending(HTTP.decide(post("https://api.example.com/v1/orders", "{ }"))).digest());
        assertNotEquals(base, pending(HTTP.decide(new HttpRequestAction("POST", "https://api.example.com/v1/orders",
                List.of(), List.of(new HeaderField("Content-Type", "text/plain")), Optional.of("{}")))).digest());
        assertNotEquals(base, pending(HTTP.decide(new HttpRequestAction("DELETE", "https://api.example.com/v1/orders",
                List.of(), List.of(new HeaderField("Content-Type", "application/json")), Optional.of("{}")))).digest());
    }

    @Test
    void labelsAndValuesCannotBeShiftedIntoEachOtherToCollideDigests() {
        ShownAction one = new ShownAction("k", List.of(new ShownAction.Field("a", "bc")));
        ShownAction two = new ShownAction("k", List.of(new ShownAction.Field("ab", "c")));
        assertNotEquals(one.digest(), two.digest());
    }

    @Test
    void anSshCommandMarkedConfirmShowsHostCommandAndTheQuotedCommandLineButNoAddress() {
        SshCommandSpec restart = new SshCommandSpec("restart", List.of("systemctl", "restart", "{unit}"),
                Map.of("unit", new ParamSpec.StringParam(Optional.of(Pattern.compile("[a-z]+")), Optional.empty(), 32)), true);
        SshCommandSpec uptime = new SshCommandSpec("uptime", List.of("uptime"), Map.of());
        PolicyEngine engine = sshEngine(host("web-1", restart, uptime));
        PendingApproval p = pending(engine.decide(ssh("web-1", "restart", Map.of("unit", new Argument.Text("nginx")))));
        assertEquals(List.of(
                new ShownAction.Field("host", "web-1"),
                new ShownAction.Field("command", "restart"),
                new ShownAction.Field("command line", "'systemctl' 'restart' 'nginx'")), p.shown().fields());
        AuthorizedSshCommand c = assertInstanceOf(AuthorizedSshCommand.class,
                p.grant(new HumanApproval(p.digest(), "test")).permit());
        assertEquals(List.of("systemctl", "restart", "nginx"), c.argv());
        assertInstanceOf(Decision.Permit.class, engine.decide(ssh("web-1", "uptime", Map.of())));
        PendingApproval other = pending(engine.decide(ssh("web-1", "restart", Map.of("unit", new Argument.Text("redis")))));
        assertNotEquals(p.digest(), other.digest());
    }

    @Test
    void anSqlStatementMarkedConfirmShowsDatabaseStatementSqlAndValuesButNoHostUserOrCredential() {
        SqlDatabase shop = new SqlDatabase("shop", "db.internal", 5432, "shop", "agent_rw", new CredentialRef("shop-pw"),
                SqlDatabase.Tls.verifyFull(), false, Duration.ofSeconds(5), 100, 1 << 20, List.of(
                        new SqlStatementSpec("cancel", "UPDATE orders SET status = :status WHERE id = :id",
                                Map.of("id", new ParamSpec.IntegerParam(1, 1000),
                                        "status", new ParamSpec.StringParam(Optional.empty(), Optional.empty(), 32)), false, true),
                        new SqlStatementSpec("count", "SELECT count(*) FROM orders", Map.of())));
        PolicyEngine engine = new PolicyEngine(Policy.of(shop));
        PendingApproval p = pending(engine.decide(new SqlQueryAction("shop", "cancel",
                Map.of("id", new Argument.Whole(7), "status", new Argument.Text("said \"no\"")))));
        assertEquals(List.of(
                new ShownAction.Field("database", "shop"),
                new ShownAction.Field("statement", "cancel"),
                new ShownAction.Field("sql", "UPDATE orders SET status = :status WHERE id = :id"),
                new ShownAction.Field("value id", "7"),
                new ShownAction.Field("value status", "\"said \\\"no\\\"\"")), p.shown().fields());
        assertFalse(p.shown().fields().stream().anyMatch(f -> f.value().contains("db.internal")
                || f.value().contains("agent_rw") || f.value().contains("shop-pw")));
        AuthorizedSqlStatement s = assertInstanceOf(AuthorizedSqlStatement.class,
                p.grant(new HumanApproval(p.digest(), "test")).permit());
        assertEquals(List.of(new Argument.Text("said \"no\""), new Argument.Whole(7)), s.boundValues());
        assertEquals("sql.statement:shop.cancel", s.rule());
        assertInstanceOf(Decision.Permit.class, engine.decide(new SqlQueryAction("shop", "count", Map.of())));
        PendingApproval other = pending(engine.decide(new SqlQueryAction("shop", "cancel",
                Map.of("id", new Argument.Whole(8), "status", new Argument.Text("said \"no\"")))));
        assertNotEquals(p.digest(), other.digest());
    }

    @Test
    void aFailedApprovalDeniesWithItsStableRule() {
        PendingApproval p = pending(HTTP.decide(post("https://api.example.com/v1/orders", "{}")));
        assertEquals("approval.declined", p.refuse(ApprovalFailure.DECLINED, "declined").rule());
        assertEquals("approval.timeout", p.refuse(ApprovalFailure.TIMEOUT, "late").rule());
        assertEquals("approval.unsupported", p.refuse(ApprovalFailure.UNSUPPORTED, "no").rule());
        assertEquals("approval.invalid", p.refuse(ApprovalFailure.INVALID, "bad").rule());
        assertFalse(p.toString().contains("{}"), "toString names the digest, not the body");
    }

    @Test
    void aConfirmMethodMustBeOneOfTheTargetsMethods() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> target("t", "https://api.example.com", Set.of("GET"), List.of("/"), Set.of()).withConfirm(Set.of("POST")));
        assertTrue(e.getMessage().contains("confirm"), e.getMessage());
    }

    @Test
    void anApprovalValueNamesADigest() {
        assertThrows(IllegalArgumentException.class, () -> new HumanApproval("abc", "test"));
        assertThrows(IllegalArgumentException.class, () -> new HumanApproval("sha256:" + "0".repeat(64), " "));
    }

    @Test
    void aGetOnATargetConfirmingOnlyPostIsNotHeld() {
        PolicyEngine engine = httpEngine(target("t", "https://api.example.com", Set.of("GET", "POST"), List.of("/"), Set.of())
                .withConfirm(Set.of("POST")));
        assertInstanceOf(Decision.Permit.class, engine.decide(request("GET", "https://api.example.com/x", List.of(), List.of())));
        assertInstanceOf(Decision.ApprovalRequired.class,
                engine.decide(request("POST", "https://api.example.com/x", List.of(), List.of())));
    }
}
