package dev.postern.transport;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Strict UTF-8, the one way Postern decodes bytes it did not write: malformed or unmappable input is
 * an error, never a replacement character. Executors, which may not depend on transport, keep their
 * own (executor-http's trust-store password decoding). Stateless and thread-safe.
 */
public final class StrictUtf8 {
    private StrictUtf8() {
    }

    /** A fresh decoder that reports malformed and unmappable input; a decoder is not thread-safe. */
    public static CharsetDecoder newDecoder() {
        return StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
    }

    /** {@code bytes} as text, or a {@link CharacterCodingException} when they are not valid UTF-8. */
    public static String decode(byte[] bytes) throws CharacterCodingException {
        return newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
    }
}
