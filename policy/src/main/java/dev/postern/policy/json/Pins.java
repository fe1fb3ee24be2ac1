package dev.postern.policy.json;

import dev.postern.policy.json.JsonValue.JsonObject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The pin of a tool definition (DESIGN §4): {@code sha256:} and the hex SHA-256 of the RFC 8785
 * canonical JSON of its {@code name}, {@code title}, {@code description}, {@code inputSchema},
 * {@code outputSchema} and {@code annotations} as the upstream lists them, absent members omitted.
 * Other members (a future {@code icons}, {@code _meta}) do not move the pin.
 */
public final class Pins {
    /** The members a pin covers, in the order DESIGN names them. */
    public static final List<String> PINNED_MEMBERS = List.of("name", "title", "description", "inputSchema", "outputSchema", "annotations");

    private Pins() {
    }

    public static String of(JsonObject definition) {
        return "sha256:" + sha256(definition.only(PINNED_MEMBERS).canonical());
    }

    /** Lower-case hex SHA-256 of the text's UTF-8 bytes. */
    public static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
