package dev.postern.protocol.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Validates a tool's arguments against its input schema (JSON Schema 2020-12, networknt) and
 * reports the first failure, deterministically, as a JSON pointer into the arguments. Compiled
 * once per tool; thread-safe.
 */
final class ArgumentValidator {
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

    private final Schema schema;

    ArgumentValidator(JsonNode inputSchema) {
        this.schema = REGISTRY.getSchema(inputSchema.toString());
    }

    Optional<Binding.Invalid> validate(JsonNode arguments) {
        List<Error> errors = schema.validate(arguments);
        return errors.stream()
                .map(e -> new Binding.Invalid(SchemaErrors.pointer(e), e.getMessage()))
                .min(Comparator.comparing(Binding.Invalid::pointer).thenComparing(Binding.Invalid::message));
    }
}
