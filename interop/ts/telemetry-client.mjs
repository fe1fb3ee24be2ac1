// The TypeScript SDK's own client (@modelcontextprotocol/sdk, pinned in ../package.json) driving a
// Postern gateway that exports telemetry. Usage:
//   node telemetry-client.mjs SERVER_COMMAND ALLOWED_URL DENIED_URL UPSTREAM_TOOL|- RESULT_FILE
// Every tools/call carries its own W3C trace context in params._meta (SEP-414): an allowed GET, a
// denied GET, a POST its elicitation handler approves, and (unless UPSTREAM_TOOL is "-") a call of an
// upstream echo tool; each argument holds a marker value the Java test (TelemetryClientIT) searches
// the collector for. It records what the client saw at each step and the trace context it sent, and
// writes nothing to stdout.
import { writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { step as recordStep } from "./upstream-steps.mjs";

const [serverCommand, allowedUrl, deniedUrl, upstreamTool, resultFile] = process.argv.slice(2);
if (!resultFile) {
  console.error("usage: node telemetry-client.mjs SERVER_COMMAND ALLOWED_URL DENIED_URL UPSTREAM_TOOL|- RESULT_FILE");
  process.exit(64);
}

const record = { steps: {}, traces: {} };
const step = (name, action) => recordStep(record, name, action);
const transport = new StdioClientTransport({ command: serverCommand, args: [], stderr: "inherit" });
const client = new Client({ name: "postern-interop-telemetry", version: "1.0.0" }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async (request) =>
  request.params.message.includes("/v1/approve-me") ? { action: "accept", content: { approve: true } } : { action: "decline" });

// A fixed trace per step, so the test can find each call's spans: trace ids 1.., parent span ids a..
const traced = (name, n, params) => {
  const trace = n.toString(16).padStart(32, "0").replace(/^0/, "4");
  const parent = (0xa0 + n).toString(16).padStart(16, "0").replace(/^0/, "b");
  record.traces[name] = { trace, parent };
  return client.callTool({ ...params, _meta: { traceparent: `00-${trace}-${parent}-01`, tracestate: "interop=t" + n } });
};

await step("initialize", async () => {
  await client.connect(transport);
  return { serverInfo: client.getServerVersion() };
});
await step("tools/list", async () => (await client.listTools()).tools.map((t) => t.name));
await step("allowed", () => traced("allowed", 1, { name: "http_request", arguments: { method: "GET", url: allowedUrl + "?q=allowed-VALUE-4411" } }));
await step("denied", () => traced("denied", 2, { name: "http_request", arguments: { method: "GET", url: deniedUrl + "-VALUE-5522" } }));
await step("approved", () => traced("approved", 3, { name: "http_request",
  arguments: { method: "POST", url: allowedUrl.replace("/v1/hello", "/v1/approve-me"), body: "approve-VALUE-6633" } }));
if (upstreamTool !== "-") {
  await step("upstream", () => traced("upstream", 4, { name: upstreamTool, arguments: { message: "echo-VALUE-7744" } }));
}
await step("close", async () => {
  await client.close();
  return "closed";
});
writeFileSync(resultFile, JSON.stringify(record, null, 2));
