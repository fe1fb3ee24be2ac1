package dev.postern.protocol.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class StrictJsonTest {
    private final StrictJson json = new StrictJson(1_048_576);

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"a\":1,\"a\":2}",
            "{\"a\":{\"b\":1,\"b\":1}}",
            "[{\"x\":1,\"x\":1}]",
            "{\"a\":1} trailing",
            "{\"a\":1}{\"b\":2}",
            "{\"a\":1} {\"a\":1}",
            "// comment\n{}",
            "{'a':1}",
            "{a:1}",
            "{\"a\":NaN}",
            "{\"a\":01}",
            "{\"a\":[1,]}",
            "{\"a\":\"\u0001\"}",
            "{\"a\":\"\\ud800\"}",
            "{\"a\":\"\\udc00x\"}",
            "{\"\\ud800\":1}",
            "{not json}",
            "debug: entering tool handler",
            "<html>gateway unavailable</html>",
            "",
            "{\"a\":1",
    })
    void refusesAnythingButOneStrictValue(String text) {
        assertThrows(JsonSyntaxError.class, () -> json.parse(text));
    }

    @Test
    void refusesNestingDeeperThanTheBound() {
        String deep = "[".repeat(StrictJson.MAX_DEPTH + 1) + "]".repeat(StrictJson.MAX_DEPTH + 1);
        assertThrows(JsonSyntaxError.class, () -> json.parse(deep));
    }

    @Test
    void refusesNumbersLongerThanTheBound() {
        assertThrows(JsonSyntaxError.class, () -> json.parse("{\"n\":" + "9".repeat(StrictJson.MAX_NUMBER_LENGTH + 1) + "}"));
    }

    @Test
    void acceptsAPairedSurrogateEscapeAndTheNulEscape() throws JsonSyntaxError {
        JsonNode n = json.parse("{\"e\":\"\\ud83d\\ude00\",\"z\":\"a\\u0000b\"}");
        assertEquals("\uD83D\uDE00", n.get("e").textValue());
        assertEquals("a\0b", n.get("z").textValue());
    }

    @Test
    void keepsIntegersExact() throws JsonSyntaxError {
        JsonNode n = json.parse("{\"id\":9223372036854775807}");
        assertTrue(n.get("id").canConvertToLong());
        assertEquals(Long.MAX_VALUE, n.get("id").longValue());
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"a\":1}{\"b\":1}", "[1,2", "{\"a\":"})
    void errorsSayWhatIsWrongWithoutTheLibrarysInternals(String text) {
        JsonSyntaxError e = assertThrows(JsonSyntaxError.class, () -> json.parse(text));
        assertTrue(!e.getMessage().contains("Source:") && !e.getMessage().contains("Feature")
                && !e.getMessage().contains("com.fasterxml"), e.getMessage());
    }

    @Test
    void anErrorSaysTheLineAndColumnWhereTheParserStoppedAndMinusOneWhenThereIsNone() {
        JsonSyntaxError at = assertThrows(JsonSyntaxError.class, () -> json.parse("{\n  \"a\": tru\n}"));
        assertEquals(2, at.line());
        assertEquals(8, at.column(), "where the bad token starts");
        JsonSyntaxError nowhere = assertThrows(JsonSyntaxError.class, () -> json.parse("{\"a\":\"\\ud800\"}"));
        assertEquals(-1, nowhere.line());
        assertEquals(-1, nowhere.column());
    }
}
