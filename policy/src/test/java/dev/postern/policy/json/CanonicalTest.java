package dev.postern.policy.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.postern.policy.json.JsonValue.JsonArray;
import dev.postern.policy.json.JsonValue.JsonNumber;
import dev.postern.policy.json.JsonValue.JsonObject;
import dev.postern.policy.json.JsonValue.JsonString;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** RFC 8785's canonical form, checked against the RFC's own examples and ECMAScript's number printing. */
class CanonicalTest {

    @ParameterizedTest(name = "{0} prints as {1}")
    @CsvSource({
            // RFC 8785 Appendix B and ECMA-262 Number::toString
            "0, 0", "-0, 0", "1, 1", "-1, -1", "1.0, 1", "100, 100", "1e21, 1e+21", "1e20, 100000000000000000000",
            "123456789012345680000, 123456789012345680000", "0.000001, 0.000001", "0.0000001, 1e-7",
            "1.5, 1.5", "-1.5e-7, -1.5e-7", "9007199254740992, 9007199254740992", "9007199254740993, 9007199254740992",
            "0.1, 0.1", "333333333.3333333, 333333333.3333333", "4.35, 4.35", "5e-324, 5e-324",
            "1.7976931348623157e308, 1.7976931348623157e+308", "295147905179352830000, 295147905179352830000",
            "1e23, 1e+23", "0.5, 0.5", "2e-3, 0.002"})
    void numbersPrintAsEcmaScriptPrintsTheNearestDouble(String exact, String canonical) {
        assertEquals(canonical, new JsonNumber(new BigDecimal(exact)).canonical());
    }

    @Test
    void aNumberBeyondADoubleHasNoCanonicalForm() {
        assertThrows(IllegalArgumentException.class, () -> new JsonNumber(new BigDecimal("1e400")).canonical());
    }

    @Test
    void membersAreSortedByUtf16CodeUnitsAndStringsEscapeOnlyWhatJsonRequires() {
        // RFC 8785 §3.2.3's sorting example: keys compared as UTF-16 code units, not code points.
        Map<String, JsonValue> m = new LinkedHashMap<>();
        m.put("\u20ac", new JsonString("Euro Sign"));
        m.put("\r", new JsonString("Carriage Return"));
        m.put("\ufb33", new JsonString("Hebrew Letter Dalet With Dagesh"));
        m.put("1", new JsonString("One"));
        m.put("\ud83d\ude00", new JsonString("Emoji: Grinning Face"));
        m.put("\u0080", new JsonString("Control"));
        m.put("\u00f6", new JsonString("Latin Small Letter O With Diaeresis"));
        assertEquals("{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"\u00f6\":\"Latin Small Letter O With Diaeresis\","
                + "\"\u20ac\":\"Euro Sign\",\"\ud83d\ude00\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}",
                new JsonObject(m).canonical());
        assertEquals("\"\\u0000\\u001f\\b\\t\\n\\f\\r\\\"\\\\/\u2028\"", new JsonString("\u0000\u001f\b\t\n\f\r\"\\/\u2028").canonical());
    }

    @Test
    void theSameJsonWrittenInAnotherOrderHasTheSamePinAndAnyChangeMovesIt() {
        JsonObject a = new JsonObject(Map.of("name", new JsonString("echo"), "description", new JsonString("Echoes")));
        Map<String, JsonValue> reordered = new LinkedHashMap<>();
        reordered.put("description", new JsonString("Echoes"));
        reordered.put("name", new JsonString("echo"));
        reordered.put("icons", new JsonArray(List.of())); // not pinned
        assertEquals(Pins.of(a), Pins.of(new JsonObject(reordered)));
        assertNotEquals(Pins.of(a), Pins.of(a.with("description", new JsonString("Echoes!"))));
        assertEquals("sha256:" + Pins.sha256("{\"description\":\"Echoes\",\"name\":\"echo\"}"), Pins.of(a));
    }
}
