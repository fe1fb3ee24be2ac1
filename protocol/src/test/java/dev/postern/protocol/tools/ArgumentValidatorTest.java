package dev.postern.protocol.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.postern.protocol.json.StrictJson;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ArgumentValidatorTest {
    private static final StrictJson JSON = new StrictJson(1 << 20);

    @Test
    void aFailureInsideTheSchemaLibraryIsARejectionAtTheRootNeverAnEscape() throws Exception {
        // java.util.regex recurses per repetition of an alternation: a long enough string overflows the stack.
        ArgumentValidator v = new ArgumentValidator(JSON.parse("{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\",\"pattern\":\"^(a|b)*$\"}}}"));
        JsonNode args = JSON.mapper().createObjectNode().put("s", "a".repeat(500_000));

        Optional<Binding.Invalid> invalid = v.validate(args);

        assertTrue(invalid.isPresent());
        assertEquals("", invalid.get().pointer());
    }

    @Test
    void aNumberWithAnExponentBeyondTheBoundIsRefusedAtItsPointerBeforeTheSchemaSeesIt() throws Exception {
        ArgumentValidator v = new ArgumentValidator(JSON.parse("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"array\","
                + "\"items\":{\"enum\":[\"x\"]}}}}"));

        Optional<Binding.Invalid> invalid = v.validate(JSON.parse("{\"a\":[\"x\",1E999999999]}"));

        assertEquals("/a/1", invalid.orElseThrow().pointer());
        assertTrue(invalid.get().message().contains("out of range"), invalid.get().message());
        assertTrue(v.validate(JSON.parse("{\"a\":[\"x\"]}")).isEmpty(), "a valid value still passes");
    }

    @Test
    void emptyArgumentsAreRefusedAtTheMissingMemberWhenTheSchemaNeedsOne() throws Exception {
        ArgumentValidator v = new ArgumentValidator(JSON.parse("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},"
                + "\"required\":[\"a\"],\"additionalProperties\":false}"));

        assertEquals("/a", v.validate(JSON.parse("{}")).orElseThrow().pointer());
    }

    @Test
    void aToolThatTakesNoArgumentsAcceptsNoneAndStillRefusesAnyGiven() throws Exception {
        ArgumentValidator v = new ArgumentValidator(JSON.parse("{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}"));

        assertTrue(v.validate(JSON.parse("{}")).isEmpty());
        assertEquals("", v.validate(JSON.parse("[]")).orElseThrow().pointer(), "an empty array is not an empty arguments object");
        assertEquals("/x", v.validate(JSON.parse("{\"x\":1}")).orElseThrow().pointer(), "an unknown member is refused, not skipped");
    }
}
