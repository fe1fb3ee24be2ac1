package dev.postern.journal;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Reads one journal row as exactly one strict JSON value (no duplicate keys, no trailing tokens). The
 * composition root hands in the protocol's strict parser, so the journal itself never depends on the
 * protocol.
 */
@FunctionalInterface
public interface RowParser {

    /** The value; IllegalArgumentException, saying why, when the text is not exactly one strict JSON value. */
    JsonNode parse(String text);
}
