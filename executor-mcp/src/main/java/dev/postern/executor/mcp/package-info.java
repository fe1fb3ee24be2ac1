/**
 * The upstream MCP executor: calls the tools of the operator's own stdio MCP servers, started as
 * child processes and spoken to as a strict MCP client, and reports their tool listings.
 * {@link dev.postern.executor.mcp.McpActionExecutor} is the only public class. Depends on policy
 * (the kernel and the {@code JsonCodec} port the gateway's strict JSON comes through) and transport
 * (the {@code FrameReader} the gateway reads its own stdin with), nothing else.
 */
package dev.postern.executor.mcp;
