// The TypeScript SDK's own client (@modelcontextprotocol/sdk, pinned in ../package.json) driving a
// Postern gateway over stdio. Usage: node client.mjs SERVER_COMMAND ALLOWED_URL DENIED_URL RESULT_FILE
// It initializes (declaring form elicitation), lists tools, makes an allowed and a denied http_request
// call, then two POSTs that need a human's approval — its elicitation handler approves the one to
// /v1/approve-me and declines the one to /v1/decline-me — and closes, recording what the client saw
// at each step (a result, or the error the client raised) and every question it was asked in
// RESULT_FILE as JSON.
// It writes nothing to stdout; the Java test (TypeScriptSdkClientIT) judges the record.
import { readFileSync, writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [serverCommand, allowedUrl, deniedUrl, resultFile] = process.argv.slice(2);
if (!resultFile) {
  console.error("usage: node client.mjs SERVER_COMMAND ALLOWED_URL DENIED_URL RESULT_FILE");
  process.exit(64);
}

const record = { sdkVersion: null, steps: {}, elicitations: [] };
const step = async (name, action) => {
  try {
    record.steps[name] = { result: await action() };
  } catch (e) {
    record.steps[name] = { thrown: String(e && e.message ? e.message : e) };
  }
};

const transport = new StdioClientTransport({ command: serverCommand, args: [], stderr: "inherit" });
const client = new Client({ name: "postern-interop-ts", version: "1.0.0" }, { capabilities: { elicitation: {} } });
// The human in this script: approves what shows the URL /v1/approve-me, declines everything else.
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  const { message, requestedSchema, mode } = request.params;
  record.elicitations.push({ message, requestedSchema, mode: mode ?? null });
  return message.includes("/v1/approve-me") ? { action: "accept", content: { approve: true } } : { action: "decline" };
});
const approveUrl = allowedUrl.replace("/v1/hello", "/v1/approve-me");
const declineUrl = allowedUrl.replace("/v1/hello", "/v1/decline-me");

await step("initialize", async () => {
  await client.connect(transport);
  return { serverInfo: client.getServerVersion(), capabilities: client.getServerCapabilities() };
});
await step("tools/list", async () => (await client.listTools()).tools.map((t) => t.name));
await step("allowed", () => client.callTool({ name: "http_request", arguments: { method: "GET", url: allowedUrl } }));
await step("denied", () => client.callTool({ name: "http_request", arguments: { method: "GET", url: deniedUrl } }));
await step("approved", () => client.callTool({ name: "http_request", arguments: { method: "POST", url: approveUrl, body: "approve-me" } }));
await step("declined", () => client.callTool({ name: "http_request", arguments: { method: "POST", url: declineUrl, body: "decline-me" } }));
await step("close", async () => {
  await client.close();
  return "closed";
});

const sdkPackage = new URL("../node_modules/@modelcontextprotocol/sdk/package.json", import.meta.url);
record.sdkVersion = JSON.parse(readFileSync(sdkPackage, "utf8")).version;
writeFileSync(resultFile, JSON.stringify(record, null, 2));
