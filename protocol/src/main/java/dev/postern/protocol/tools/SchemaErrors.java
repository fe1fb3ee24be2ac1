package dev.postern.protocol.tools;

import com.networknt.schema.Error;
import com.networknt.schema.path.NodePath;

/** Turns a networknt validation error into the JSON pointer of the value that failed. */
public final class SchemaErrors {
    private SchemaErrors() {
    }

    /**
     * The pointer into the validated document; for {@code required} and {@code additionalProperties}
     * it names the missing or unexpected member itself.
     */
    public static String pointer(Error e) {
        StringBuilder b = new StringBuilder();
        NodePath path = e.getInstanceLocation();
        for (int i = 0; i < path.getNameCount(); i++) {
            b.append('/').append(escape(String.valueOf(path.getElement(i))));
        }
        String keyword = e.getKeyword();
        if (e.getProperty() != null && ("required".equals(keyword) || "additionalProperties".equals(keyword)
                || "unevaluatedProperties".equals(keyword))) {
            b.append('/').append(escape(e.getProperty()));
        }
        return b.toString();
    }

    /** One JSON-pointer reference token (RFC 6901): {@code ~} as {@code ~0}, {@code /} as {@code ~1}. */
    static String escape(String token) {
        return token.replace("~", "~0").replace("/", "~1");
    }
}
