package dev.postern.protocol.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.postern.policy.json.JsonValue;
import dev.postern.policy.json.JsonValue.JsonObject;
import dev.postern.policy.port.SchemaValidator;
import dev.postern.protocol.json.JsonValues;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The {@link SchemaValidator} port over the validator the gateway checks arguments with (JSON Schema
 * 2020-12 by default, networknt, nothing fetched): what the upstream executor checks a result's
 * {@code structuredContent} with. A schema that refers outside itself is never compiled, so no
 * reference is ever followed. The first failure is reported deterministically (least pointer, then
 * message). Thread-safe.
 */
public final class StrictSchemaValidator implements SchemaValidator {
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

    @Override
    public Check compile(JsonObject schema) {
        JsonNode node = JsonValues.node(schema);
        if (UpstreamToolKind.refersOutside(node)) {
            return refusing("the schema refers to a schema outside itself ($ref not starting with #), which Postern does not fetch");
        }
        Schema compiled;
        try {
            compiled = REGISTRY.getSchema(node.toString());
            compiled.initializeValidators();
        } catch (RuntimeException | StackOverflowError e) {
            return refusing("the schema could not be compiled");
        }
        return value -> {
            List<Error> errors;
            try {
                errors = compiled.validate(JsonValues.node(value));
            } catch (RuntimeException | StackOverflowError e) {
                return Optional.of("the value could not be validated against the schema");
            }
            return errors.stream()
                    .map(e -> new Failure(SchemaErrors.pointer(e), e.getMessage()))
                    .min(Comparator.comparing(Failure::pointer).thenComparing(Failure::message))
                    .map(f -> "at " + (f.pointer().isEmpty() ? "the root" : f.pointer()) + ": " + f.message());
        };
    }

    private static Check refusing(String why) {
        return value -> Optional.of(why);
    }

    private record Failure(String pointer, String message) {
    }
}
