package dev.postern.protocol.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.Iterator;
import java.util.Map;

/**
 * Parses one frame as exactly one JSON value, strictly: duplicate keys at any depth, trailing
 * tokens, comments, NaN, single quotes, leading zeros and unescaped control characters are errors;
 * nesting, string and number lengths are bounded; and a string (or key) holding a lone UTF-16
 * surrogate, which only a {@code \\uXXXX} escape can produce, is refused, so no such string reaches
 * an HTTP header or a shell. {@code \\u0000} is accepted here; the policy refuses NUL wherever it
 * could matter (URLs, headers, SSH arguments). Numbers are read exactly (BigInteger, BigDecimal),
 * never as a double: {@code 1e309} is a huge decimal, not Infinity, so no non-finite value reaches
 * the schema validator or a binder; the schema then refuses it as an ordinary wrong type or range.
 * Thread-safe.
 */
public final class StrictJson {
    public static final int MAX_DEPTH = 64;
    public static final int MAX_NUMBER_LENGTH = 64;

    private final JsonMapper mapper;

    public StrictJson(int maxStringLength) {
        this.mapper = mapper(maxStringLength);
    }

    /** A mapper with the strict settings, for writing and for callers that parse trusted input. */
    public static JsonMapper mapper(int maxStringLength) {
        JsonMapper m = JsonMapper.builder()
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .disable(JsonReadFeature.ALLOW_JAVA_COMMENTS, JsonReadFeature.ALLOW_YAML_COMMENTS,
                        JsonReadFeature.ALLOW_SINGLE_QUOTES, JsonReadFeature.ALLOW_UNQUOTED_FIELD_NAMES,
                        JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS, JsonReadFeature.ALLOW_LEADING_ZEROS_FOR_NUMBERS,
                        JsonReadFeature.ALLOW_UNESCAPED_CONTROL_CHARS, JsonReadFeature.ALLOW_TRAILING_COMMA,
                        JsonReadFeature.ALLOW_MISSING_VALUES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
                .build();
        m.getFactory().setStreamReadConstraints(StreamReadConstraints.builder()
                .maxNestingDepth(MAX_DEPTH)
                .maxNumberLength(MAX_NUMBER_LENGTH)
                .maxStringLength(Math.max(1, maxStringLength))
                .build());
        return m;
    }

    public JsonMapper mapper() {
        return mapper;
    }

    public JsonNode parse(String text) throws JsonSyntaxError {
        JsonNode node;
        try {
            node = mapper.readTree(text);
        } catch (JsonProcessingException e) {
            var at = e.getLocation();
            throw new JsonSyntaxError(describe(e), at == null ? -1 : at.getLineNr(), at == null ? -1 : at.getColumnNr());
        }
        if (node == null || node.isMissingNode()) {
            throw new JsonSyntaxError("no JSON value");
        }
        checkSurrogates(node, 0);
        return node;
    }

    /** The parser's complaint in words for the peer, without the library's internals. */
    static String describe(JsonProcessingException e) {
        String m = String.valueOf(e.getOriginalMessage());
        if (m.startsWith("Trailing token")) {
            return "trailing content after the JSON value (one value per line)";
        }
        int cut = m.indexOf(" (start marker at");
        if (cut < 0) {
            cut = m.indexOf(" [Source:");
        }
        return (cut < 0 ? m : m.substring(0, cut)).strip();
    }

    private static void checkSurrogates(JsonNode node, int depth) throws JsonSyntaxError {
        if (node.isTextual()) {
            requireWellFormed(node.textValue());
        } else if (node.isArray()) {
            for (JsonNode child : node) {
                checkSurrogates(child, depth + 1);
            }
        } else if (node.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> e = fields.next();
                requireWellFormed(e.getKey());
                checkSurrogates(e.getValue(), depth + 1);
            }
        }
    }

    private static void requireWellFormed(String s) throws JsonSyntaxError {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                    continue;
                }
                throw new JsonSyntaxError("string holds a lone surrogate (\\u" + Integer.toHexString(c) + ")");
            }
            if (Character.isLowSurrogate(c)) {
                throw new JsonSyntaxError("string holds a lone surrogate (\\u" + Integer.toHexString(c) + ")");
            }
        }
    }
}
