package dev.postern.protocol.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
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
 * once per tool; thread-safe. An empty arguments object gets the verdict the schema gave {@code {}}
 * when it was compiled (validation is deterministic), so a tool without arguments costs no
 * validation per call.
 */
final class ArgumentValidator {
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

    private final Schema schema;
    private final boolean emptyIsValid;

    ArgumentValidator(JsonNode inputSchema) {
        this.schema = REGISTRY.getSchema(inputSchema.toString());
        this.emptyIsValid = schema.validate(JsonNodeFactory.instance.objectNode()).isEmpty();
    }

    Optional<Binding.Invalid> validate(JsonNode arguments) {
        if (emptyIsValid && arguments.isObject() && arguments.isEmpty()) {
            return Optional.empty();
        }
        List<Error> errors = schema.validate(arguments);
        if (errors.isEmpty()) {
            return Optional.empty();
        }
        return errors.stream()
                .map(e -> new Binding.Invalid(SchemaErrors.pointer(e), e.getMessage()))
                .min(Comparator.comparing(Binding.Invalid::pointer).thenComparing(Binding.Invalid::message));
    }
}
