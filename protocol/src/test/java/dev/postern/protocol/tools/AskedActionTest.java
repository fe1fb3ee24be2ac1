package dev.postern.protocol.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.action.Action;
import dev.postern.policy.action.HeaderField;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.action.QueryParameter;
import dev.postern.policy.action.Argument;
import dev.postern.policy.action.SqlQueryAction;
import dev.postern.policy.action.SshCommandAction;
import dev.postern.policy.action.UpstreamCallAction;
import dev.postern.policy.json.JsonValue;
import dev.postern.protocol.json.StrictJson;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The {@code asked} field of a journal row rebuilds the action exactly ({@link EffectKind#asked},
 * {@link EffectKind#actionOf}), after the text round trip a journal reader makes with a plain mapper
 * (which reads decimals as doubles), and refuses to rebuild what it does not hold.
 */
class AskedActionTest {
    private static final JsonMapper PLAIN = JsonMapper.builder().build();
    private static final EffectKinds KINDS = EffectKinds.of(new HttpRequestKind(), new SshExecKind(), new SqlQueryKind(),
            new UpstreamToolKind());

    private static Optional<Action> throughText(Action action) throws Exception {
        String text = PLAIN.writeValueAsString(KINDS.asked(action));
        return KINDS.actionOf(PLAIN.readTree(text));
    }

    @Test
    void anHttpRequestComesBackWithItsQueryAndHeadersButNoBody() throws Exception {
        HttpRequestAction asked = new HttpRequestAction("POST", "https://api.example/v1/items?x=1",
                List.of(new QueryParameter("q", "a b"), new QueryParameter("q", "c")), List.of(new HeaderField("X-Trace", "t\u00e9")),
                Optional.empty());
        assertEquals(Optional.of(asked), throughText(asked));
        HttpRequestAction withBody = new HttpRequestAction("POST", "https://api.example/v1", List.of(), List.of(), Optional.of("secret body"));
        assertEquals(Optional.of(new HttpRequestAction("POST", "https://api.example/v1", List.of(), List.of(), Optional.empty())),
                throughText(withBody));
        assertFalse(KINDS.asked(withBody).toString().contains("secret body"), "a body is never journaled");
    }

    @Test
    void anHttpRequestWhoseUserInfoWasDroppedIsNotRebuilt() throws Exception {
        HttpRequestAction asked = new HttpRequestAction("GET", "https://me:hunter2@api.example/v1", List.of(), List.of(), Optional.empty());
        ObjectNode row = KINDS.asked(asked);
        assertFalse(row.toString().contains("hunter2"), row.toString());
        assertTrue(row.path("userInfoDropped").asBoolean());
        assertEquals(Optional.empty(), throughText(asked));
    }

    @Test
    void anSshCommandComesBackWithTextAndWholeArguments() throws Exception {
        SshCommandAction asked = new SshCommandAction("web", "tail", Map.of("lines", new Argument.Whole(50),
                "file", new Argument.Text("50")));
        assertEquals(Optional.of(asked), throughText(asked));
    }

    @Test
    void aSqlQueryKeepsEveryValueTypeAndADecimalsScale() throws Exception {
        SqlQueryAction asked = new SqlQueryAction("shop", "order", Map.of("id", new Argument.Whole(7),
                "price", new Argument.Decimal(new BigDecimal("1.50")), "note", new Argument.Text("1.50"),
                "paid", new Argument.Bool(true)));
        assertEquals(Optional.of(asked), throughText(asked));
    }

    @Test
    void anUpstreamCallKeepsItsExactNumbersAndTheLiveDefinitionItWasBoundAgainst() throws Exception {
        JsonValue.JsonObject args = (JsonValue.JsonObject) dev.postern.protocol.json.JsonValues.of(
                new StrictJson(1000).parse("{\"amount\":1.50,\"tags\":[\"a\",null,true],\"n\":12345678901234567890}"));
        UpstreamCallAction bound = new UpstreamCallAction("files", "read", args,
                Optional.of(new UpstreamCallAction.LiveDefinition("sha256:" + "a".repeat(64), Set.of("amount", "tags", "n"))));
        assertEquals(Optional.of(bound), throughText(bound));
        UpstreamCallAction unlisted = new UpstreamCallAction("files", "gone", JsonValue.JsonObject.empty(), Optional.empty());
        assertEquals(Optional.of(unlisted), throughText(unlisted));
    }

    @Test
    void anAskedObjectOfAnotherShapeIsNotGuessedAt() throws Exception {
        for (String text : List.of("{}", "{\"kind\":\"nope\"}", "{\"kind\":\"ssh_exec\",\"host\":\"web\",\"command\":\"tail\"}",
                "{\"kind\":\"ssh_exec\",\"host\":\"web\",\"command\":\"tail\",\"args\":{\"lines\":1.5}}",
                "{\"kind\":\"sql_query\",\"database\":\"d\",\"statement\":\"s\",\"args\":{\"x\":{\"decimal\":\"one\"}}}",
                "{\"kind\":\"http_request\",\"method\":\"GET\",\"url\":\"http://a\",\"query\":[{\"name\":1,\"value\":\"v\"}],\"headers\":[]}",
                "{\"kind\":\"upstream\",\"server\":\"s\",\"tool\":\"t\",\"arguments\":\"[1]\"}")) {
            JsonNode asked = PLAIN.readTree(text);
            assertEquals(Optional.empty(), KINDS.actionOf(asked), text);
        }
    }
}
