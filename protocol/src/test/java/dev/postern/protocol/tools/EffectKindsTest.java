package dev.postern.protocol.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.AuthorizedHttpRequest;
import dev.postern.policy.AuthorizedSqlStatement;
import dev.postern.policy.AuthorizedSshCommand;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.action.Argument;
import dev.postern.policy.action.SqlQueryAction;
import dev.postern.policy.action.SshCommandAction;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Origin;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import dev.postern.policy.model.SshAuth;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.HttpResponseOutcome;
import dev.postern.policy.outcome.SqlRowsOutcome;
import dev.postern.policy.outcome.SshExitOutcome;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The registry of kinds: it refuses two kinds that share a tool name, a postern_targets field or a
 * type; it finds a kind by any of its four types; and it hands each permit, action and outcome to its
 * own kind, writing the registry's own journal fields ({@code action}, {@code tool}, {@code result})
 * before the kind's.
 */
class EffectKindsTest {
    private static final HttpRequestKind HTTP = new HttpRequestKind();
    private static final SshExecKind SSH = new SshExecKind();
    private static final SqlQueryKind SQL = new SqlQueryKind();
    private static final EffectKinds KINDS = EffectKinds.of(HTTP, SSH, SQL);

    private static final Policy POLICY = Policy.of(
            List.of(new HttpTarget("api", Origin.parseBaseUrl("https://api.example.com"), Set.of("GET"), List.of("/"), Set.of(),
                    Optional.empty(), Duration.ofSeconds(5), 1024, false)),
            List.of(new SshHost("web", "10.0.0.5", 22, "deploy", new SshAuth.Key(new CredentialRef("key"), Optional.empty()),
                    Optional.empty(), Optional.of("SHA256:" + "A".repeat(43)), Duration.ofSeconds(5), 1024,
                    List.of(new SshCommandSpec("uptime", List.of("uptime"), Map.of())))),
            List.of(new SqlDatabase("shop", "db.internal", 5432, "shop", "agent", new CredentialRef("db-pw"), SqlDatabase.Tls.verifyFull(),
                    false, Duration.ofSeconds(5), 100, 4096, List.of(new SqlStatementSpec("count", "SELECT count(*) FROM t", Map.of())))));

    private static ObjectNode row() {
        return JsonNodeFactory.instance.objectNode();
    }

    /** A kind that answers only its names and types: enough for the registry's checks, which read nothing else. */
    private static EffectKind<?, ?, ?> namedKind(String toolName, String targetsField, Class<?>... types) {
        return (EffectKind<?, ?, ?>) Proxy.newProxyInstance(EffectKind.class.getClassLoader(), new Class<?>[] {EffectKind.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "toolName" -> toolName;
                    case "targetsField" -> targetsField;
                    case "actionType" -> types[0];
                    case "permitType" -> types[1];
                    case "outcomeType" -> types[2];
                    case "allowanceType" -> types[3];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private static AuthorizedHttpRequest get() {
        return Permits.permit(POLICY, new HttpRequestAction("GET", "https://api.example.com/x", List.of(), List.of(), Optional.empty()),
                AuthorizedHttpRequest.class);
    }

    @Test
    void theKindsStayInRegistrationOrder() {
        assertEquals(List.of(HTTP, SSH, SQL), KINDS.all());
        assertEquals(List.of(SQL, HTTP), EffectKinds.of(SQL, HTTP).all());
    }

    @Test
    void twoKindsWithOneToolNameOrOneTargetsFieldOrOneTypeAreRefused() {
        assertEquals("two kinds are registered as http_request",
                assertThrows(IllegalArgumentException.class, () -> EffectKinds.of(HTTP, new HttpRequestKind())).getMessage());
        assertEquals("two kinds list their allowances as postern_targets field http", assertThrows(IllegalArgumentException.class,
                () -> EffectKinds.of(HTTP, namedKind("other", "http", String.class, Integer.class, Long.class, Short.class))).getMessage());
        assertEquals("two kinds claim SshExitOutcome", assertThrows(IllegalArgumentException.class,
                () -> EffectKinds.of(SSH, namedKind("other", "other", String.class, Integer.class, SshExitOutcome.class, Short.class)))
                .getMessage());
        assertEquals("two kinds claim String", assertThrows(IllegalArgumentException.class,
                () -> EffectKinds.of(namedKind("self", "self", String.class, String.class, Long.class, Short.class))).getMessage(),
                "one kind naming one type twice is refused as well");
    }

    @Test
    void eachOfAKindsFourTypesFindsIt() {
        for (Class<?> type : List.of(HttpRequestAction.class, AuthorizedHttpRequest.class, HttpResponseOutcome.class, HttpTarget.class)) {
            assertSame(HTTP, KINDS.owning(type).orElseThrow(), type.getSimpleName());
        }
        assertSame(SQL, KINDS.owning(SqlRowsOutcome.class).orElseThrow());
        assertEquals(Optional.empty(), KINDS.owning(ExecutionFailure.class), "the kind-neutral failure belongs to no kind");
        assertSame(HTTP, KINDS.ofPermit(get()));
    }

    @Test
    void aPermitOfAnUnregisteredKindIsRefusedByName() {
        EffectKinds httpOnly = EffectKinds.of(HTTP);
        AuthorizedSshCommand uptime = Permits.permit(POLICY, new SshCommandAction("web", "uptime", Map.of()), AuthorizedSshCommand.class);
        assertEquals("no registered kind of effect handles dev.postern.policy.AuthorizedSshCommand",
                assertThrows(IllegalArgumentException.class, () -> httpOnly.ofPermit(uptime)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> httpOnly.explain(uptime));
        assertThrows(IllegalArgumentException.class, () -> httpOnly.journalIntent(uptime, row(), false));
    }

    @Test
    void explainAndRenderAreTheOwningKinds() {
        AuthorizedSqlStatement count = Permits.permit(POLICY, new SqlQueryAction("shop", "count", Map.of()), AuthorizedSqlStatement.class);
        assertEquals(SQL.explain(count), KINDS.explain(count));
        assertEquals(HTTP.explain(get()), KINDS.explain(get()));
        SshExitOutcome exit = new SshExitOutcome("web", OptionalInt.of(0), Optional.empty(), new byte[0], false, new byte[0], false,
                "SHA256:" + "A".repeat(43));
        assertEquals(SSH.render(exit), KINDS.render(exit));
    }

    @Test
    void anIntentRowStartsWithTheToolNameAsActionThenTheKindsFields() {
        ObjectNode row = row();
        KINDS.journalIntent(get(), row, false);
        ObjectNode kindOnly = row();
        HTTP.journalIntent(get(), kindOnly, false);
        kindOnly.set("asked", KINDS.asked(get().action()));
        assertEquals("{\"action\":\"http_request\"," + kindOnly.toString().substring(1), row.toString());

        ObjectNode redacted = row();
        KINDS.journalIntent(get(), redacted, true);
        assertEquals("GET https://api.example.com:443/x", redacted.get("preview").textValue());
        assertTrue(redacted.has("argumentsSha256"), "redaction reaches the kind");
        assertFalse(redacted.has("asked"), "a redacted row holds no action to replay");
    }

    @Test
    void aDenialRowStartsWithTheToolNameThenWhatTheKindSaysWasRefused() {
        ObjectNode row = row();
        KINDS.journalDenial(new SqlQueryAction("shop", "drop", Map.of("x", new Argument.Whole(1))), row, false);
        assertEquals("{\"tool\":\"sql_query\",\"target\":\"shop\",\"refused\":\"drop x=1\","
                + "\"asked\":{\"kind\":\"sql_query\",\"database\":\"shop\",\"statement\":\"drop\",\"args\":{\"x\":1}}}", row.toString());

        ObjectNode redacted = row();
        KINDS.journalDenial(new SqlQueryAction("shop", "drop", Map.of("x", new Argument.Whole(1))), redacted, true);
        assertEquals("drop", redacted.get("refused").textValue(), "redaction reaches the kind");
        assertFalse(redacted.has("asked"), "a redacted row holds no action to replay");
    }

    @Test
    void anOutcomeRowSaysOkThenTheKindsFieldsOrAFailuresCodeAndDetail() {
        ObjectNode ok = row();
        KINDS.journalOutcome(new HttpResponseOutcome("api", 201, List.of(), new byte[5], false), ok);
        assertEquals("{\"result\":\"ok\",\"status\":201,\"bytes\":5,\"truncated\":false}", ok.toString());

        ObjectNode failed = row();
        KINDS.journalOutcome(new ExecutionFailure(FailureCode.TIMEOUT, "no answer in time",
                Optional.of(new HttpResponseOutcome("api", 200, List.of(), new byte[5], true))), failed);
        assertEquals("{\"result\":\"TIMEOUT\",\"detail\":\"no answer in time\"}", failed.toString(),
                "a failure's partial adds nothing to the row; without a detail the row repeats the message");

        ObjectNode detailed = row();
        KINDS.journalOutcome(new ExecutionFailure(FailureCode.CONNECT_FAILED, "cannot connect to web").withDetail("10.0.0.5:22"), detailed);
        assertEquals("{\"result\":\"CONNECT_FAILED\",\"detail\":\"cannot connect to web | 10.0.0.5:22\"}", detailed.toString());

        ObjectNode long_ = row();
        KINDS.journalOutcome(new ExecutionFailure(FailureCode.QUERY_FAILED, "m").withDetail("d".repeat(5000)), long_);
        assertEquals(EffectKinds.MAX_DETAIL_CHARS + 1, long_.get("detail").textValue().length(), "cut, with an ellipsis");
    }

    @Test
    void phrasesAreJoinedAsInASentence() {
        assertEquals("", EffectKinds.inWords(List.of()));
        assertEquals("HTTP targets", EffectKinds.inWords(List.of("HTTP targets")));
        assertEquals("HTTP targets and SSH hosts", EffectKinds.inWords(List.of("HTTP targets", "SSH hosts")));
        assertEquals("HTTP targets, SSH hosts and SQL databases", EffectKinds.inWords(List.of("HTTP targets", "SSH hosts", "SQL databases")));
    }
}
