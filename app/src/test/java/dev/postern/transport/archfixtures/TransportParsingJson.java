package dev.postern.transport.archfixtures;

import com.fasterxml.jackson.core.JsonFactory;

/** Violation: framing that pulls in a JSON library. Never run. */
public final class TransportParsingJson {
    private TransportParsingJson() {
    }

    static JsonFactory parser() {
        return new JsonFactory();
    }
}
