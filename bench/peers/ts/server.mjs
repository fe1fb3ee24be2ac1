// The TypeScript SDK's stdio server with one trivial tool, postern_targets (no arguments, a fixed text
// answer): the peer the load driver measures beside Postern (DESIGN §9). Written the way the SDK's
// documentation writes a server (McpServer.registerTool with a zod input shape, which the SDK checks
// on every call, as Postern checks its input schema); the SDK's defaults throughout.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const server = new McpServer({ name: "ts-sdk-peer", version: "1.32.2" });
server.registerTool(
  "postern_targets",
  { description: "Trivial benchmark tool: answers a fixed text.", inputSchema: {} },
  async () => ({ content: [{ type: "text", text: "ok" }] }),
);
process.stdin.on("end", () => process.exit(0));
await server.connect(new StdioServerTransport());
