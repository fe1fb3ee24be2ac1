package dev.postern.app.journal.archfixtures;

import com.fasterxml.jackson.databind.JsonNode;
import dev.postern.protocol.json.JsonSyntaxError;
import dev.postern.protocol.json.StrictJson;

/** Violation: the journal reaching into the protocol for its parser. Never run. */
public final class JournalParsingWithProtocol {
    static JsonNode row(String text) throws JsonSyntaxError {
        return new StrictJson(1024).parse(text);
    }
}
