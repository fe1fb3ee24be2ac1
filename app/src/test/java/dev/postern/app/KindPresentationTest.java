package dev.postern.app;

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
import dev.postern.app.samples.KindSamples;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.Outcome;
import dev.postern.protocol.tools.EffectKind;
import dev.postern.protocol.tools.KindResult;
import dev.postern.protocol.tools.Tool;
import dev.postern.protocol.tools.ToolCatalog;
import dev.postern.protocol.tools.ToolResults;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Each registered kind presents its own outcome as its tool promises: the rendered
 * {@code structuredContent} (and a failure's {@code partial}) is valid against the tool's output
 * schema. The samples are each kind's own ({@link KindSamples}); a kind without them fails here.
 */
class KindPresentationTest {
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

    @Test
    void everyRegisteredKindHasSamplesOfItsOwn() {
        for (EffectKind<?, ?, ?> kind : Gateway.kinds().all()) {
            KindSamples.of(kind);
        }
    }

    @Test
    void everyPermittedOutcomeBelongsToARegisteredKind() {
        for (Class<?> type : Outcome.class.getPermittedSubclasses()) {
            assertTrue(type == ExecutionFailure.class || Gateway.kinds().all().stream().anyMatch(k -> k.outcomeType() == type),
                    () -> type.getSimpleName() + " is the outcome of no registered kind, so no samples present it");
        }
    }

    @Test
    void eachKindRendersItsOutcomeAndAPartialAsItsOutputSchemaSays() {
        for (EffectKind<?, ?, ?> kind : Gateway.kinds().all()) {
            Tool tool = kind.tools(ToolReferenceTest.examplePolicy(), ToolReferenceTest.exampleLive()).get(0);
            Outcome sample = KindSamples.of(kind).outcome();
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

    @Test
    void eachKindShrinksAResultTooLargeForTheCapToOneItsOutputSchemaStillDescribes() {
        ToolCatalog catalog = new ToolCatalog(Gateway.kinds(), ToolReferenceTest.examplePolicy());
        long cap = 64 << 10;
        for (EffectKind<?, ?, ?> kind : Gateway.kinds().all()) {
            KindSamples samples = KindSamples.of(kind);
            if (Gateway.kinds().result(samples.outcome()) instanceof KindResult.Whole) {
                // A whole result of the effect's own is capped by its executor below the line cap
                // (maxResponseBytes at most 4 MiB) and refused whole past it: there is nothing to shrink.
                assertFalse(samples.tooLargeForAResult().isPresent(), kind.toolName());
                continue;
            }
            Tool tool = catalog.find(kind.toolName()).orElseThrow();
            Outcome large = samples.tooLargeForAResult().orElseThrow(() -> new AssertionError(kind.toolName()
                    + "'s samples give no outcome too large for a result, though its results are its own rendering"));

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
