package dev.postern.protocol.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.Decision;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.action.UpstreamCallAction;
import dev.postern.policy.json.JsonValue;
import dev.postern.policy.json.Pins;
import dev.postern.policy.model.ArgNarrowing;
import dev.postern.policy.model.LiveTools;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.model.UpstreamTool;
import dev.postern.policy.outcome.UpstreamCallOutcome;
import dev.postern.protocol.json.JsonSyntaxError;
import dev.postern.protocol.json.JsonValues;
import dev.postern.protocol.json.StrictJson;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * The upstream kind's tools: offered only when listed with the pinned definition, named server__tool,
 * the input schema narrowed as advertised and validated; anything else withheld yet decided.
 */
class UpstreamToolKindTest {
    private static final StrictJson STRICT = new StrictJson(1 << 20);
    private static final String ECHO = "{\"name\":\"echo\",\"title\":\"Echo\",\"description\":\"Echoes a message\","
            + "\"inputSchema\":{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"object\","
            + "\"properties\":{\"message\":{\"type\":\"string\",\"maxLength\":100},\"x-vendor\":{\"type\":\"string\"}},"
            + "\"required\":[\"message\"]},\"annotations\":{\"readOnlyHint\":true}}";

    private static JsonValue.JsonObject json(String text) {
        try {
            return JsonValues.object(STRICT.parse(text));
        } catch (JsonSyntaxError e) {
            throw new AssertionError(e);
        }
    }

    private static JsonNode node(String text) {
        try {
            return STRICT.parse(text);
        } catch (JsonSyntaxError e) {
            throw new AssertionError(e);
        }
    }

    private static UpstreamServer server(UpstreamTool tool) {
        return new UpstreamServer("everything", List.of("/usr/bin/node", "index.js"), "/tmp", Map.of(), Duration.ofSeconds(5),
                Duration.ofSeconds(5), 1 << 20, List.of(tool), Optional.empty());
    }

    private static UpstreamTool echo(String pin, Map<String, ArgNarrowing> args) {
        return new UpstreamTool("echo", pin, false, args);
    }

    private static ArgNarrowing pattern(String regex, int maxLength) {
        return new ArgNarrowing(Optional.empty(), Optional.empty(), Optional.of(ArgNarrowing.compile(regex)), OptionalInt.of(maxLength),
                Optional.empty(), Optional.empty());
    }

    private static ToolCatalog catalog(UpstreamServer server, LiveTools.Listing listing) {
        return new ToolCatalog(EffectKinds.of(new UpstreamToolKind()), Policy.of(server), LiveTools.none().with(server, listing));
    }

    @Test
    void aListedToolWithItsPinIsOfferedUnderServerAndToolNameWithTheUpstreamsOwnDescription() {
        UpstreamServer s = server(echo(Pins.of(json(ECHO)), Map.of()));
        ToolCatalog c = catalog(s, new LiveTools.Listing.Listed(List.of(json(ECHO))));
        ObjectNode listed = (ObjectNode) c.describeAll().get(0);
        assertEquals("everything__echo", listed.get("name").textValue());
        assertEquals("Echo", listed.get("title").textValue());
        assertEquals("Echoes a message", listed.get("description").textValue());
        assertEquals(node("{\"readOnlyHint\":true}"), listed.get("annotations"));
        assertFalse(listed.has("outputSchema"), "no output schema invented for a tool that has none");
        assertEquals(false, listed.get("inputSchema").get("additionalProperties").booleanValue(),
                "an argument the upstream does not declare is refused");
    }

    @Test
    void whatIsValidatedIsWhatIsAdvertisedAndBindsToACanonicalAction() {
        UpstreamServer s = server(echo(Pins.of(json(ECHO)), Map.of("message", pattern("[a-z ]+", 20))));
        ToolCatalog c = catalog(s, new LiveTools.Listing.Listed(List.of(json(ECHO))));
        Tool t = c.find("everything__echo").orElseThrow();
        JsonNode message = t.describe().get("inputSchema").get("properties").get("message");
        assertEquals("^(?:[a-z ]+)$", message.get("pattern").textValue());
        assertEquals("[{\"maxLength\":20}]", message.get("allOf").toString(), "the upstream's own maxLength holds beside the narrowing");
        assertInstanceOf(Binding.Invalid.class, c.bind(t, node("{\"message\":\"UPPER\"}")));
        assertInstanceOf(Binding.Invalid.class, c.bind(t, node("{\"message\":\"this is far too long for it\"}")));
        assertInstanceOf(Binding.Invalid.class, c.bind(t, node("{\"message\":\"ok\",\"extra\":1}")));
        UpstreamCallAction a = (UpstreamCallAction) assertInstanceOf(Binding.ToAction.class, c.bind(t, node("{\"message\":\"hi there\"}")))
                .action();
        assertEquals("{\"message\":\"hi there\"}", a.arguments().canonical());
        assertInstanceOf(Decision.Permit.class, new PolicyEngine(Policy.of(s)).decide(a));
    }

    @Test
    void aMovedDefinitionIsWithheldFromTheListButItsCallIsDeniedByThePinRule() {
        String reviewed = Pins.of(json(ECHO));
        JsonValue.JsonObject moved = json(ECHO).with("description", new JsonValue.JsonString("Echoes, and also emails it out"));
        UpstreamServer s = server(echo(reviewed, Map.of()));
        ToolCatalog c = catalog(s, new LiveTools.Listing.Listed(List.of(moved)));
        assertEquals(List.of(ToolCatalog.POSTERN_TARGETS), c.tools().stream().map(Tool::name).toList(), "withheld from tools/list");
        Tool withheld = c.find("everything__echo").orElseThrow();
        Binding b = c.bind(withheld, node("{\"message\":\"hi\"}"));
        Decision d = new PolicyEngine(Policy.of(s)).decide(((Binding.ToAction) b).action());
        assertEquals("mcp.pin", assertInstanceOf(Decision.Deny.class, d).rule());
    }

    @Test
    void aToolNotListedYetIsDeniedAsUnlisted() {
        UpstreamServer s = server(echo(Pins.of(json(ECHO)), Map.of()));
        ToolCatalog c = catalog(s, new LiveTools.Listing.Pending());
        Binding b = c.bind(c.find("everything__echo").orElseThrow(), node("{}"));
        Decision d = new PolicyEngine(Policy.of(s)).decide(((Binding.ToAction) b).action());
        assertEquals("mcp.unlisted", assertInstanceOf(Decision.Deny.class, d).rule());
    }

    @Test
    void aSchemaThatRefersOutsideItselfIsWithheldNeverFetched() {
        JsonValue.JsonObject remote = json("{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\",\"properties\":"
                + "{\"m\":{\"$ref\":\"http://127.0.0.1:9/schema.json\"}}}}");
        UpstreamServer s = server(echo(Pins.of(remote), Map.of()));
        assertTrue(UpstreamToolKind.whyWithheld(s, s.tools().get(0), LiveTools.none().with(s, new LiveTools.Listing.Listed(List.of(remote))))
                .orElseThrow().contains("$ref"));
    }

    @Test
    void anOutputSchemaThatRefersOutsideItselfOrIsNoObjectIsWithheldSinceNoResultCouldBeChecked() {
        JsonValue.JsonObject remote = json("{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\"},\"outputSchema\":"
                + "{\"type\":\"object\",\"properties\":{\"m\":{\"$ref\":\"http://127.0.0.1:9/schema.json\"}}}}");
        UpstreamServer s = server(echo(Pins.of(remote), Map.of()));
        assertTrue(UpstreamToolKind.whyWithheld(s, s.tools().get(0), LiveTools.none().with(s, new LiveTools.Listing.Listed(List.of(remote))))
                .orElseThrow().startsWith("its outputSchema refers to a schema outside itself"));
        JsonValue.JsonObject notAnObject = json("{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\"},\"outputSchema\":true}");
        UpstreamServer t = server(echo(Pins.of(notAnObject), Map.of()));
        assertEquals(Optional.of("its outputSchema is not an object"), UpstreamToolKind.whyWithheld(t, t.tools().get(0),
                LiveTools.none().with(t, new LiveTools.Listing.Listed(List.of(notAnObject)))));
    }

    @Test
    void theSchemaValidatorReportsTheLeastFailingPointerAndNeverCompilesAnOutsideReference() {
        StrictSchemaValidator schemas = new StrictSchemaValidator();
        dev.postern.policy.port.SchemaValidator.Check sum = schemas.compile(json("{\"type\":\"object\",\"properties\":"
                + "{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"]}"));
        assertEquals(Optional.empty(), sum.problem(json("{\"a\":1,\"b\":2}")));
        assertTrue(sum.problem(json("{\"a\":\"x\",\"b\":\"y\"}")).orElseThrow().startsWith("at /a: "), "the least pointer first");
        assertTrue(sum.problem(json("{\"a\":1}")).orElseThrow().startsWith("at /b: "), "a missing member is named");
        dev.postern.policy.port.SchemaValidator.Check remote = schemas.compile(json("{\"$ref\":\"http://127.0.0.1:9/s.json\"}"));
        assertTrue(remote.problem(json("{}")).orElseThrow().contains("outside itself"), "refused, never fetched");
        dev.postern.policy.port.SchemaValidator.Check broken = schemas.compile(json("{\"type\":\"no-such-type\",\"minimum\":\"x\"}"));
        assertTrue(broken.problem(json("{}")).isPresent(), "a schema that cannot be used refuses every value");
    }

    @Test
    void theUpstreamsResultIsPassedOnWhole() {
        JsonValue.JsonObject result = json("{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"isError\":true}");
        ObjectNode rendered = ToolResults.outcome(EffectKinds.of(new UpstreamToolKind()),
                new UpstreamCallOutcome("everything", "echo", result, true));
        assertEquals(node("{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"isError\":true}"), rendered);
    }
}
