package dev.postern.protocol.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Validates a tool's arguments against its input schema (JSON Schema 2020-12, networknt) and
 * reports the first failure, deterministically, as a JSON pointer into the arguments. Compiled
 * once per tool; thread-safe. Numbers arrive exact (see {@code StrictJson}); one whose decimal
 * exponent lies beyond {@link #MAX_EXPONENT} is refused here before the schema library sees it, since
 * its keywords may expand it to every digit (1e999999999 would fill the heap). Total: an exception thrown inside the schema library on hostile input
 * becomes a failure at the root pointer, never an escape onto the reader thread.
 * An empty arguments object gets the verdict the schema gave {@code {}} when it was compiled
 * (validation is deterministic), so a tool without arguments costs no validation per call.
 */
final class ArgumentValidator {
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

    /** Past any double and any 64-bit integer, and still cheap to print in full. */
    static final int MAX_EXPONENT = 400;

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
        Optional<Binding.Invalid> huge = hugeNumber(arguments, "");
        if (huge.isPresent()) {
            return huge;
        }
        List<Error> errors;
        try {
            errors = schema.validate(arguments);
        } catch (RuntimeException | StackOverflowError e) {
            return Optional.of(new Binding.Invalid("", "the arguments could not be validated against the schema"));
        }
        return errors.stream()
                .map(e -> new Binding.Invalid(SchemaErrors.pointer(e), e.getMessage()))
                .min(Comparator.comparing(Binding.Invalid::pointer).thenComparing(Binding.Invalid::message));
    }

    /** The first number (in document order) whose exponent is out of range, as a failure at its pointer. */
    private static Optional<Binding.Invalid> hugeNumber(JsonNode node, String pointer) {
        if (node.isNumber()) {
            int exponent = node.isBigDecimal() ? Math.abs(node.decimalValue().scale()) : 0;
            return exponent > MAX_EXPONENT
                    ? Optional.of(new Binding.Invalid(pointer, "number out of range (exponent beyond " + MAX_EXPONENT + ")"))
                    : Optional.empty();
        }
        if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                Optional<Binding.Invalid> found = hugeNumber(node.get(i), pointer + "/" + i);
                if (found.isPresent()) {
                    return found;
                }
            }
        } else if (node.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> e = fields.next();
                String key = SchemaErrors.escape(e.getKey());
                Optional<Binding.Invalid> found = hugeNumber(e.getValue(), pointer + "/" + key);
                if (found.isPresent()) {
                    return found;
                }
            }
        }
        return Optional.empty();
    }
}
