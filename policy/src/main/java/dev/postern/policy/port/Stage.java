package dev.postern.policy.port;

/** The pipeline stage that rejected an input, as recorded in the decisions journal. */
public enum Stage {
    FRAMING, JSON, JSONRPC, MCP, SCHEMA, POLICY;

    /** The lower-case name written to the journal. */
    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
