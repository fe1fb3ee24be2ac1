package dev.postern.protocol.jsonrpc;

/**
 * The error codes Postern answers with. JSON-RPC's own, MCP's, and Postern's lifecycle codes,
 * which sit outside the reserved range -32768..-32000 (README, "Error codes").
 */
public enum ErrorCode {
    PARSE_ERROR(-32700),
    INVALID_REQUEST(-32600),
    METHOD_NOT_FOUND(-32601),
    INVALID_PARAMS(-32602),
    INTERNAL_ERROR(-32603),
    /** MCP 2026-07-28: the call needs a client capability the request's {@code _meta} did not declare. */
    MISSING_CLIENT_CAPABILITY(-32021),
    /** MCP 2026-07-28: the request's {@code _meta} protocol version is not one Postern speaks. */
    UNSUPPORTED_PROTOCOL_VERSION(-32022),
    /** A handshake-era request other than ping before {@code initialize}. */
    NOT_INITIALIZED(-1001),
    /** A tool call before {@code notifications/initialized}. */
    NOT_READY(-1002),
    /** A second {@code initialize} on one connection. */
    ALREADY_INITIALIZED(-1003),
    /** The gateway's config is invalid: the one answer of the session, naming the file, the pointer and the problem. */
    CONFIG_INVALID(-1004);

    private final int code;

    ErrorCode(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }
}
