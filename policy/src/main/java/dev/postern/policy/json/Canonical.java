package dev.postern.policy.json;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * RFC 8785 (JSON Canonicalization Scheme) writing: members sorted by their keys' UTF-16 code units,
 * strings with only the escapes JSON requires (lower-case six-character escapes for the other controls),
 * numbers as ECMAScript's {@code Number.prototype.toString} prints the nearest double. A number
 * beyond a double's range cannot be canonicalized and is refused.
 */
final class Canonical {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Canonical() {
    }

    static void write(JsonValue value, StringBuilder out) {
        if (value instanceof JsonValue.JsonObject o) {
            List<Map.Entry<String, JsonValue>> members = new ArrayList<>(o.members().entrySet());
            members.sort(Map.Entry.comparingByKey()); // String.compareTo orders by UTF-16 code units, as RFC 8785 §3.2.3 asks
            out.append('{');
            boolean first = true;
            for (Map.Entry<String, JsonValue> m : members) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                string(m.getKey(), out);
                out.append(':');
                write(m.getValue(), out);
            }
            out.append('}');
        } else if (value instanceof JsonValue.JsonArray a) {
            out.append('[');
            for (int i = 0; i < a.elements().size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                write(a.elements().get(i), out);
            }
            out.append(']');
        } else if (value instanceof JsonValue.JsonString s) {
            string(s.value(), out);
        } else if (value instanceof JsonValue.JsonNumber n) {
            out.append(number(n.value()));
        } else if (value instanceof JsonValue.JsonBoolean b) {
            out.append(b.value());
        } else {
            out.append("null");
        }
    }

    static void string(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    /** ECMAScript's Number::toString of the double nearest {@code exact} (ECMA-262 §6.1.6.1.20). */
    static String number(BigDecimal exact) {
        double d = exact.doubleValue();
        if (Double.isInfinite(d)) {
            throw new IllegalArgumentException("a number beyond an IEEE double's range has no canonical form");
        }
        if (d == 0) {
            return "0";
        }
        String sign = d < 0 ? "-" : "";
        BigDecimal abs = new BigDecimal(Math.abs(d));
        // The shortest digit string that reads back as the same double; rounding the double's exact
        // value keeps it the closest such string.
        BigDecimal digits = null;
        for (int p = 1; p <= 17; p++) {
            BigDecimal r = abs.round(new MathContext(p, RoundingMode.HALF_EVEN));
            if (r.doubleValue() == Math.abs(d)) {
                digits = r;
                break;
            }
        }
        if (digits == null) {
            digits = abs.round(new MathContext(17, RoundingMode.HALF_EVEN));
        }
        digits = digits.stripTrailingZeros();
        String s = digits.unscaledValue().toString(); // k digits
        int k = s.length();
        int n = k - digits.scale(); // value = s × 10^(n−k)
        StringBuilder out = new StringBuilder(sign);
        if (k <= n && n <= 21) {
            out.append(s).append("0".repeat(n - k));
        } else if (0 < n && n <= 21) {
            out.append(s, 0, n).append('.').append(s, n, k);
        } else if (-6 < n && n <= 0) {
            out.append("0.").append("0".repeat(-n)).append(s);
        } else {
            int e = n - 1;
            out.append(s.charAt(0));
            if (k > 1) {
                out.append('.').append(s, 1, k);
            }
            out.append('e').append(e < 0 ? '-' : '+').append(Math.abs(e));
        }
        return out.toString();
    }
}
