/**
 * Strict JSON: one value per frame, no duplicate keys, no lone surrogates, bounded sizes.
 * {@link dev.postern.protocol.json.StrictJson} parses; a syntax failure is a
 * {@link dev.postern.protocol.json.JsonSyntaxError}, never {@code null}.
 *
 * <p>Depends on Jackson and the JDK only: it knows nothing of JSON-RPC, MCP, the kernel or the
 * transport.
 */
package dev.postern.protocol.json;
