package dev.postern.transport;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One protocol line, decoded: its text without the line terminator (never empty, never holding CR
 * or LF) and the lower-case hex SHA-256 of its raw bytes, which journals use as its fingerprint.
 */
public record Frame(String text, String sha256) implements ReadResult {

    public Frame {
        Objects.requireNonNull(text, "text");
        if (text.isEmpty()) {
            throw new IllegalArgumentException("text must not be empty (an empty line is a framing error)");
        }
        if (text.indexOf('\n') >= 0 || text.indexOf('\r') >= 0) {
            throw new IllegalArgumentException("text must not contain CR or LF");
        }
        Sha256.requireHex("sha256", sha256);
    }

    /**
     * A frame for {@code text}, fingerprinted over its UTF-8 bytes, as the reader would produce it
     * (for tests and fixtures; text with an unpaired surrogate has no such bytes and gets {@code ?}).
     */
    public static Frame of(String text) {
        Objects.requireNonNull(text, "text");
        return new Frame(text, Sha256.of(text.getBytes(StandardCharsets.UTF_8)));
    }
}
