package dev.postern.transport.archfixtures;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Compliant: framing with the JDK alone. Never run. */
public final class LineFramer {
    private LineFramer() {
    }

    static String decode(ByteBuffer line) throws CharacterCodingException {
        return StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .decode(line)
                .toString();
    }
}
