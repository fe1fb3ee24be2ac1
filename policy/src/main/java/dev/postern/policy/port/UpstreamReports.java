package dev.postern.policy.port;

/**
 * What an upstream MCP server sent that the gateway would not pass on, for the decisions journal
 * (stage {@code upstream}): the server, a stable reason code, and the line's SHA-256 and length,
 * never its content. Implemented by the journal; thread-safe; never throws.
 */
public interface UpstreamReports {

    /**
     * One dropped line or message. Reasons: {@code framing} (not one valid UTF-8 line within the limit),
     * {@code json} (not exactly one strict JSON value), {@code jsonrpc} (no well-formed message),
     * {@code unsolicited} (a response to no pending request), {@code request} (a request the gateway
     * answers {@code -32601}), {@code shape} (a result of the wrong shape, or whose {@code structuredContent} the tool's
     * pinned {@code outputSchema} refuses), {@code pin} (a definition
     * that no longer matches its pin; {@code sha256} is then the live definition's pin digest).
     */
    void dropped(String server, String reason, String sha256, long bytes);
}
