// The TypeScript SDK's own client (@modelcontextprotocol/sdk, pinned in ../package.json) calling a
// typed tool of a Postern gateway over stdio. Usage: node typed-client.mjs SERVER_COMMAND TOOL RESULT_FILE
// It initializes, lists tools (recording each whole), calls TOOL with a GET of /v1/hello, then with a
// path outside the target's prefixes and with an argument the tool does not declare, and closes,
// recording what the client saw at each step (a result, or the error the client raised) in RESULT_FILE.
// It writes nothing to stdout; the Java test (TypedToolClientIT) judges the record.
import { writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { step as recordStep } from "./upstream-steps.mjs";

const [serverCommand, tool, resultFile] = process.argv.slice(2);
if (!resultFile) {
  console.error("usage: node typed-client.mjs SERVER_COMMAND TOOL RESULT_FILE");
  process.exit(64);
}

const record = { steps: {} };
const step = (name, action) => recordStep(record, name, action);

const transport = new StdioClientTransport({ command: serverCommand, args: [], stderr: "inherit" });
const client = new Client({ name: "postern-interop-typed", version: "1.0.0" }, { capabilities: {} });

await step("initialize", async () => {
  await client.connect(transport);
  return { serverInfo: client.getServerVersion() };
});
await step("tools/list", async () => (await client.listTools()).tools);
await step("allowed", () => client.callTool({ name: tool, arguments: { method: "GET", path: "/v1/hello" } }));
await step("outside", () => client.callTool({ name: tool, arguments: { method: "GET", path: "/admin/marker-typed" } }));
await step("undeclared", () => client.callTool({ name: tool, arguments: { method: "GET", path: "/v1/hello", url: "http://127.0.0.1:1/" } }));
await step("close", async () => {
  await client.close();
  return "closed";
});

writeFileSync(resultFile, JSON.stringify(record, null, 2));
