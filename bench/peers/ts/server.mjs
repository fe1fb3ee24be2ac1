// The TypeScript SDK's stdio server with one trivial tool, postern_targets (no arguments, a fixed text
// answer): the peer the load driver measures beside Postern (DESIGN §9). The SDK's defaults throughout.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const server = new Server({ name: "ts-sdk-peer", version: "1.32.2" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{
    name: "postern_targets",
    description: "Trivial benchmark tool: answers a fixed text.",
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
  }],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  if (request.params.name !== "postern_targets") {
    throw new Error("unknown tool " + request.params.name);
  }
  return { content: [{ type: "text", text: "ok" }] };
});
process.stdin.on("end", () => process.exit(0));
await server.connect(new StdioServerTransport());
