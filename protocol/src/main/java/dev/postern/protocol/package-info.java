/**
 * The protocol ring: strict JSON, JSON-RPC 2.0, the MCP lifecycle and tools, argument schemas,
 * binding validated arguments to the kernel's typed actions, and rendering outcomes back to JSON.
 * {@link dev.postern.protocol.mcp.McpServer} is the entry point; it decides what a frame is and
 * never performs an effect. Depends on transport, policy, Jackson and networknt — never on an
 * executor or the app.
 */
package dev.postern.protocol;
