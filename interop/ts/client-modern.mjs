// The TypeScript SDK v2 client (@modelcontextprotocol/client, pinned in ../package.json) driving a
// Postern gateway over stdio in the stateless era, its version negotiation pinned to 2026-07-28 (no
// fallback to initialize). Usage: node client-modern.mjs SERVER_COMMAND ALLOWED_URL DENIED_URL RESULT_FILE
// It connects (server/discover), lists tools, makes an allowed and a denied http_request call, then
// two POSTs that need a human's approval (input_required, answered by its elicitation handler, which
// approves the one to /v1/approve-me and declines the one to /v1/decline-me) and closes, recording
// what the client saw at each step (a result, or the error the client raised) and every question it
// was asked in RESULT_FILE as JSON. It writes nothing to stdout; the Java test (TypeScriptSdkV2ClientIT) judges the record.
import { readFileSync, writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const PINNED = "2026-07-28";
const [serverCommand, allowedUrl, deniedUrl, resultFile] = process.argv.slice(2);
if (!resultFile) {
  console.error("usage: node client-modern.mjs SERVER_COMMAND ALLOWED_URL DENIED_URL RESULT_FILE");
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
const client = new Client({ name: "postern-interop-ts-v2", version: "1.0.0" },
  { versionNegotiation: { mode: { pin: PINNED } }, capabilities: { elicitation: { form: {} } } });
// The human in this script: approves what shows the URL /v1/approve-me, declines everything else.
client.setRequestHandler("elicitation/create", async (request) => {
  const { message, requestedSchema, mode } = request.params;
  record.elicitations.push({ message, requestedSchema, mode: mode ?? null });
  return message.includes("/v1/approve-me") ? { action: "accept", content: { approve: true } } : { action: "decline" };
});
const approveUrl = allowedUrl.replace("/v1/hello", "/v1/approve-me");
const declineUrl = allowedUrl.replace("/v1/hello", "/v1/decline-me");

await step("connect", async () => {
  await client.connect(transport);
  return {
    era: client.getProtocolEra(),
    protocolVersion: client.getNegotiatedProtocolVersion(),
    serverInfo: client.getServerVersion(),
    capabilities: client.getServerCapabilities(),
    discover: client.getDiscoverResult(),
  };
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

const sdkPackage = new URL("../node_modules/@modelcontextprotocol/client/package.json", import.meta.url);
record.sdkVersion = JSON.parse(readFileSync(sdkPackage, "utf8")).version;
writeFileSync(resultFile, JSON.stringify(record, null, 2));
