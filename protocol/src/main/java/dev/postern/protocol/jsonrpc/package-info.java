/**
 * JSON-RPC 2.0 as Postern accepts it: typed ids (string or integer), requests and notifications
 * with string methods and structured params, the client's responses to the few requests Postern sends
 * it ({@code elicitation/create}, for approval), and the error codes of the specification.
 *
 * <p>Depends on Jackson and the JDK only: it knows no MCP method, no tool and no kernel type.
 */
package dev.postern.protocol.jsonrpc;
