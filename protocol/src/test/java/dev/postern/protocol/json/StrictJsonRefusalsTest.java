package dev.postern.protocol.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The words a refused line gets (the parser's complaint without its internals), and lone
 * surrogates found wherever they hide: in nested arrays, nested objects and keys.
 */
class StrictJsonRefusalsTest {
    private final StrictJson json = new StrictJson(1 << 20);

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"a\":1}{}|trailing content after the JSON value (one value per line)",
        "{\"a\":|Unexpected end-of-input within/between Object entries",
        "\"abc|Unexpected end-of-input: was expecting closing quote for a string value",
        "{\"a\":1,\"a\":2}|Duplicate field 'a'",
        "01|Invalid numeric value: Leading zeroes not allowed"})
    void aRefusedLineIsDescribedInTheParsersWordsWithoutItsSource(String text, String words) {
        assertEquals(words, assertThrows(JsonSyntaxError.class, () -> json.parse(text)).getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "[\"\\ud800\"]|string holds a lone surrogate (\\ud800)",
        "[[1,\"ok\",[\"\\udc00\"]]]|string holds a lone surrogate (\\udc00)",
        "{\"k\":{\"x\":[\"\\ud800x\"]}}|string holds a lone surrogate (\\ud800)",
        "{\"a\":1,\"b\":{\"c\":\"\\ud800\"}}|string holds a lone surrogate (\\ud800)",
        "\"x\\ud83d\"|string holds a lone surrogate (\\ud83d)"})
    void aLoneSurrogateIsRefusedWhereverItSits(String text, String words) {
        assertEquals(words, assertThrows(JsonSyntaxError.class, () -> json.parse(text)).getMessage());
    }

    /** Jackson itself refuses a lone surrogate in a key, before StrictJson's own check sees it. */
    @ParameterizedTest
    @ValueSource(strings = {"{\"\\ud800\":1}", "{\"k\":{\"\\ud800 \":1}}", "{\"\\udc00\":1}"})
    void aLoneSurrogateInAKeyIsRefused(String text) {
        String words = assertThrows(JsonSyntaxError.class, () -> json.parse(text)).getMessage();
        assertTrue(words.contains("surrogate"), words);
    }

    @ParameterizedTest
    @ValueSource(strings = {"[\"\\ud83d\\ude00\"]", "{\"\\ud83d\\ude00\":[{\"k\":\"\\ud83d\\ude00\"}]}"})
    void pairedSurrogatesAnywhereAreAccepted(String text) throws Exception {
        assertEquals(new StrictJson(1 << 20).mapper().readTree(text), json.parse(text));
    }
}
