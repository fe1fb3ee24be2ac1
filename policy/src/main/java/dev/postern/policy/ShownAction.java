package dev.postern.policy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * An action exactly as a human is asked to approve it: its kind (the tool's name) and an ordered list
 * of labelled values, every value that decides what runs and never a credential nor an address the
 * agent may not see (the agent's client relays the question). Each kind's rules build it; in order,
 * each kind shows:
 * <ul>
 * <li>{@code http_request}: target, method, url (canonical), header NAME (one per header the agent set), body (when there is one)</li>
 * <li>{@code ssh_exec}: host (its name, not its address), command, command line (every argv element single-quoted)</li>
 * <li>{@code sql_query}: database (its name, not its host or user), statement, sql, value NAME (one per argument; text as a JSON string)</li>
 * <li>{@code upstream}: server (its name, not its command), tool, arguments (RFC 8785 canonical JSON)</li>
 * </ul>
 * {@code ShownActionListTest} keeps this list honest: it fails when a kind of action has no line
 * here, or when a line's labels are not the ones that kind's rules show. {@link #digest()} is a
 * SHA-256 over every value in full, so two actions that differ anywhere have different digests.
 * Immutable.
 */
public record ShownAction(String kind, List<Field> fields) {

    /** One labelled value; the value is shown in full to whoever renders it, and digested in full. */
    public record Field(String label, String value) {
        public Field {
            Objects.requireNonNull(label, "label");
            Objects.requireNonNull(value, "value");
            if (label.isBlank()) {
                throw new IllegalArgumentException("a shown field needs a label");
            }
        }
    }

    public ShownAction {
        Objects.requireNonNull(kind, "kind");
        fields = List.copyOf(Objects.requireNonNull(fields, "fields"));
        if (fields.isEmpty()) {
            throw new IllegalArgumentException("a shown action needs at least one field");
        }
    }

    /**
     * {@code sha256:} and 64 lower-case hex digits over the kind and every label and value, each
     * length-prefixed, so no two different actions share an encoding.
     */
    public String digest() {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
        update(sha, kind);
        for (Field f : fields) {
            update(sha, f.label());
            update(sha, f.value());
        }
        return "sha256:" + HexFormat.of().formatHex(sha.digest());
    }

    private static void update(MessageDigest sha, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        sha.update(String.valueOf(bytes.length).getBytes(StandardCharsets.US_ASCII));
        sha.update((byte) ':');
        sha.update(bytes);
    }
}
