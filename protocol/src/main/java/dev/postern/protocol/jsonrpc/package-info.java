/**
 * JSON-RPC 2.0 as Postern accepts it: typed ids (string or integer), requests and notifications
 * with string methods and structured params, no responses (Postern never sends a request), and
 * the error codes of the specification.
 */
package dev.postern.protocol.jsonrpc;
