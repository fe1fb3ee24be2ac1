package dev.postern.policy.port;

/** The pipeline stage that rejected an input, as recorded in the decisions journal. */
public enum Stage {
    FRAMING, JSON, JSONRPC, MCP, SCHEMA, POLICY,
    /** What an upstream MCP server sent that the gateway would not pass on (never its content). */
    UPSTREAM;

    /** The lower-case name written to the journal. */
    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
