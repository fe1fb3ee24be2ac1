package dev.postern.policy.outcome;

/**
 * Stable failure codes an agent sees in a tool result's {@code error.code}. Their names are part of
 * Postern's public surface: add, never rename.
 */
public enum FailureCode {
    /** A connect, response or total deadline passed. */
    TIMEOUT,
    /** The connection could not be made (refused, unreachable, name not resolved). */
    CONNECT_FAILED,
    /** Every address the name resolved to is one the target may not reach. */
    ADDRESS_REFUSED,
    /** The TLS handshake failed: untrusted chain, wrong host name, protocol error. */
    TLS_FAILED,
    /** The SSH server's host key is unknown or changed. */
    HOST_KEY_REJECTED,
    /** The SSH server refused the configured credentials. */
    AUTH_FAILED,
    /** A credential the permit names could not be read. */
    CREDENTIAL_UNAVAILABLE,
    /** The response exceeded its cap and the target asks for refusal rather than truncation. */
    RESPONSE_TOO_LARGE,
    /** The client cancelled the call. */
    CANCELLED,
    /** The intent row could not be written to the actions journal, so nothing ran. */
    JOURNAL_UNAVAILABLE,
    /**
     * The database refused or failed the statement (a constraint, a read-only transaction, a bad
     * value); the message starts with {@code SQLSTATE xxxxx:}, the server's five-character code.
     */
    QUERY_FAILED,
    /** Anything else that went wrong inside an executor. */
    EXECUTOR_FAILED,
    /**
     * The target broke its protocol in a way that makes its answer untrustworthy, such as an HTTP
     * response with bytes after its declared end (a smuggled second response); nothing of it is returned.
     */
    UPSTREAM_PROTOCOL_ERROR,
    /** The target's rate limit was reached; the message says how long to wait. Nothing ran. */
    RATE_LIMITED,
    /**
     * An upstream MCP server could not be started, exited, or stopped answering; the message says
     * whether the request had been sent (its effect is then unknown). The server is started again at
     * the next call, with back-off.
     */
    UPSTREAM_UNAVAILABLE
}
