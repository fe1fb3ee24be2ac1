package dev.postern.protocol.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * RenderedSize counts exactly the bytes Java's UTF-8 encoder and Jackson's string writer (then UTF-8) produce:
 * every width boundary of UTF-8, every escape JSON needs, surrogate pairs, and a seeded corpus of
 * mixed text.
 */
class RenderedSizeTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    static Stream<String> strings() {
        Stream<String> boundaries = Stream.of("", "a", "\u007f", "\u0080", "\u07ff", "\u0800", "\ud7ff", "\ue000", "\uffff",
                "\ud83d\ude00", "x\ud83d\ude00y", "\"", "\\", "/", "\b\f\n\r\t", "\u0000", "\u001f", " ", "\u2028", "caf\u00e9 \u2603",
                "\"\\\u0001\ud800\udc00\u00ff");
        Stream<String> controls = IntStream.range(0, 0x20).mapToObj(c -> "<" + (char) c + ">");
        Random random = new Random(17);
        Stream<String> mixed = IntStream.range(0, 500).mapToObj(i -> {
            StringBuilder b = new StringBuilder();
            int length = random.nextInt(40);
            for (int j = 0; j < length; j++) {
                int kind = random.nextInt(5);
                int cp = switch (kind) {
                    case 0 -> random.nextInt(0x20);
                    case 1 -> 0x20 + random.nextInt(0x60);
                    case 2 -> 0x80 + random.nextInt(0x780);
                    case 3 -> 0x800 + random.nextInt(0xd000);
                    default -> 0x10000 + random.nextInt(0x100000 - 0x10000);
                };
                b.appendCodePoint(cp);
            }
            return b.toString();
        });
        return Stream.of(boundaries, controls, mixed).flatMap(s -> s);
    }

    @ParameterizedTest
    @MethodSource("strings")
    void utf8SizeIsTheEncodersByteCount(String s) {
        assertEquals(s.getBytes(StandardCharsets.UTF_8).length, RenderedSize.ofUtf8(s));
    }

    @ParameterizedTest
    @MethodSource("strings")
    void jsonStringSizeIsWhatJacksonWrites(String s) throws JsonProcessingException {
        // As the server writes a line: Jackson to a String, then UTF-8 (Jackson's byte writer would escape surrogate pairs).
        assertEquals(JSON.writeValueAsString(s).getBytes(StandardCharsets.UTF_8).length, RenderedSize.ofJsonString(s));
    }

    /**
     * Strict UTF-8 and strict JSON keep lone surrogates out, but the count must not throw on one
     * (at the very end too) and must not undercount: three bytes each, what a CESU-style encoder
     * would write, above the one byte ('?') Java's encoder substitutes.
     */
    @ParameterizedTest
    @ValueSource(strings = {"\ud800", "a\ud83d", "\udc00", "\udc00\ud800", "x\ud800y"})
    void aLoneSurrogateCountsAsThreeBytesAnywhereEvenLast(String s) throws JsonProcessingException {
        long others = s.chars().filter(c -> !Character.isSurrogate((char) c)).count();
        long lone = s.length() - others;
        assertEquals(others + 3 * lone, RenderedSize.ofUtf8(s));
        assertEquals(2 + others + 3 * lone, RenderedSize.ofJsonString(s));
        assertTrue(RenderedSize.ofJsonString(s) >= JSON.writeValueAsString(s).getBytes(StandardCharsets.UTF_8).length);
    }
}
