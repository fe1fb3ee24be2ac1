package dev.postern.app;

import dev.postern.policy.json.JsonValue;
import dev.postern.policy.outcome.UpstreamCallOutcome;
import dev.postern.protocol.tools.KindResult;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.postern.policy.action.HeaderField;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.HttpResponseOutcome;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.outcome.SqlRowsOutcome;
import dev.postern.policy.outcome.SqlValue;
import dev.postern.policy.outcome.SshExitOutcome;
import dev.postern.protocol.tools.EffectKind;
import dev.postern.protocol.tools.Tool;
import dev.postern.protocol.tools.ToolCatalog;
import dev.postern.protocol.tools.ToolResults;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * Each registered kind presents its own outcome as its tool promises: the rendered
 * {@code structuredContent} (and a failure's {@code partial}) is valid against the tool's output
 * schema. One sample outcome per permitted outcome type; a new type without a sample fails here.
 */
class KindPresentationTest {
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

    /** A sample of every kind's outcome, with bytes that are not UTF-8 where an outcome carries bytes. */
    private static final Map<Class<?>, Outcome> SAMPLES = Map.of(
            HttpResponseOutcome.class, new HttpResponseOutcome("github", 200,
                    List.of(new HeaderField("Content-Type", "application/octet-stream")), new byte[] {(byte) 0xff, 0}, true),
            SshExitOutcome.class, new SshExitOutcome("web-1", OptionalInt.empty(), Optional.of("TERM"),
                    "up 3 days".getBytes(StandardCharsets.UTF_8), false, new byte[] {(byte) 0xc3}, true, "SHA256:recorded"),
            SqlRowsOutcome.class, new SqlRowsOutcome("shop", "order-by-id", List.of(new SqlRowsOutcome.Column("id", "int8"),
                    new SqlRowsOutcome.Column("total", "numeric"), new SqlRowsOutcome.Column("raw", "bytea")),
                    List.of(List.of(new SqlValue.Whole(1), new SqlValue.Decimal(new java.math.BigDecimal("12345678901234567890.01")),
                            new SqlValue.Bytes(new byte[] {(byte) 0xff, 0})),
                            List.of(new SqlValue.Null(), new SqlValue.Float(Double.NaN), new SqlValue.Bool(true))), 2, true),
            UpstreamCallOutcome.class, new UpstreamCallOutcome("tickets", "create_ticket", new JsonValue.JsonObject(Map.of("content",
                    new JsonValue.JsonArray(List.of(new JsonValue.JsonObject(Map.of("type", new JsonValue.JsonString("text"),
                            "text", new JsonValue.JsonString("opened OPS-1"))))))), false));

    @Test
    void everyPermittedOutcomeHasASample() {
        for (Class<?> type : Outcome.class.getPermittedSubclasses()) {
            assertTrue(type == ExecutionFailure.class || SAMPLES.containsKey(type),
                    () -> "add a sample " + type.getSimpleName() + " to KindPresentationTest.SAMPLES");
        }
    }

    @Test
    void eachKindRendersItsOutcomeAndAPartialAsItsOutputSchemaSays() {
        for (EffectKind<?, ?, ?> kind : Gateway.kinds().all()) {
            Tool tool = kind.tools(ToolReferenceTest.examplePolicy(), ToolReferenceTest.exampleLive()).get(0);
            Outcome sample = SAMPLES.get(kind.outcomeType());
            if (Gateway.kinds().result(sample) instanceof KindResult.Whole whole) {
                // A result of the effect's own (an upstream's CallToolResult) is passed on as it is; it has no partial.
                assertEquals(whole.callToolResult(), ToolResults.outcome(Gateway.kinds(), sample), kind.toolName());
                continue;
            }

            // The text item carries the same JSON as structuredContent (however that is held).
            ObjectNode success = ToolResults.outcome(Gateway.kinds(), sample);
            assertEquals(false, success.get("isError").booleanValue());
            assertValid(tool, (ObjectNode) readTree(success.get("content").get(0).get("text").textValue()));

            ObjectNode failure = ToolResults.outcome(Gateway.kinds(),
                    new ExecutionFailure(FailureCode.TIMEOUT, "no answer in time", Optional.of(sample)));
            String text = failure.get("content").get(0).get("text").textValue();
            assertValid(tool, (ObjectNode) readTree(text).get("error").get("partial"));
        }
    }

    /** Outcomes too large for a 64 KiB result, so each kind must shrink them to fit. */
    private static final Map<Class<?>, Outcome> LARGE = Map.of(
            HttpResponseOutcome.class, new HttpResponseOutcome("github", 200,
                    List.of(new HeaderField("Content-Type", "text/plain")), new byte[100_000], false),
            SshExitOutcome.class, new SshExitOutcome("web-1", OptionalInt.of(0), Optional.empty(),
                    new byte[100_000], false, "\"quoted\"\n".repeat(10_000).getBytes(StandardCharsets.UTF_8), false, "SHA256:recorded"),
            SqlRowsOutcome.class, new SqlRowsOutcome("shop", "dump", List.of(new SqlRowsOutcome.Column("v", "text")),
                    java.util.Collections.nCopies(100, List.of(new SqlValue.Text("\u0001".repeat(1000)))), 100, false));

    @Test
    void eachKindShrinksAResultTooLargeForTheCapToOneItsOutputSchemaStillDescribes() {
        ToolCatalog catalog = new ToolCatalog(Gateway.kinds(), ToolReferenceTest.examplePolicy());
        long cap = 64 << 10;
        for (EffectKind<?, ?, ?> kind : Gateway.kinds().all()) {
            if (Gateway.kinds().result(SAMPLES.get(kind.outcomeType())) instanceof KindResult.Whole) {
                // A whole result of the effect's own is capped by its executor below the line cap
                // (maxResponseBytes at most 4 MiB) and refused whole past it: there is nothing to shrink.
                assertFalse(LARGE.containsKey(kind.outcomeType()), kind.toolName());
                continue;
            }
            Tool tool = catalog.find(kind.toolName()).orElseThrow();
            Outcome large = LARGE.get(kind.outcomeType());

            ObjectNode success = ToolResults.outcome(Gateway.kinds(), large, cap);
            String text = success.get("content").get(0).get("text").textValue();
            assertEquals(false, success.get("isError").booleanValue(), text);
            assertTrue(text.getBytes(StandardCharsets.UTF_8).length * 2L < cap, kind.toolName() + " fits the cap");
            ObjectNode structured = (ObjectNode) readTree(text);
            assertValid(tool, structured);
            assertTrue(structured.toString().contains("\"truncated\":true") || structured.toString().contains("Truncated\":true"),
                    kind.toolName() + " says it was cut: " + text.substring(0, 300));

            ObjectNode failure = ToolResults.outcome(Gateway.kinds(),
                    new ExecutionFailure(FailureCode.TIMEOUT, "no answer in time", Optional.of(large)), cap);
            String error = failure.get("content").get(0).get("text").textValue();
            assertTrue(readTree(error).get("error").has("partial"), kind.toolName() + " keeps its partial: " + error.substring(0, 300));
            assertValid(tool, (ObjectNode) readTree(error).get("error").get("partial"));
        }
    }

    private static void assertValid(Tool tool, ObjectNode structured) {
        List<Error> errors = SCHEMAS.getSchema(tool.outputSchema().toString()).validate(structured);
        assertEquals(List.of(), errors.stream().map(Error::getMessage).toList(), () -> tool.name() + ": " + structured);
    }

    private static JsonNode readTree(String text) {
        try {
            return new ObjectMapper().readTree(text);
        } catch (JsonProcessingException e) {
            throw new AssertionError(e);
        }
    }
}
