// The TypeScript SDK's own client (@modelcontextprotocol/sdk, pinned in ../package.json) driving a
// Postern gateway over stdio. Usage: node client.mjs SERVER_COMMAND ALLOWED_URL DENIED_URL RESULT_FILE
// It initializes, lists tools, makes an allowed and a denied http_request call and closes, recording
// what the client saw at each step (a result, or the error the client raised) in RESULT_FILE as JSON.
// It writes nothing to stdout; the Java test (TypeScriptSdkClientIT) judges the record.
import { readFileSync, writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [serverCommand, allowedUrl, deniedUrl, resultFile] = process.argv.slice(2);
if (!resultFile) {
  console.error("usage: node client.mjs SERVER_COMMAND ALLOWED_URL DENIED_URL RESULT_FILE");
  process.exit(64);
}

const record = { sdkVersion: null, steps: {} };
const step = async (name, action) => {
  try {
    record.steps[name] = { result: await action() };
  } catch (e) {
    record.steps[name] = { thrown: String(e && e.message ? e.message : e) };
  }
};

const transport = new StdioClientTransport({ command: serverCommand, args: [], stderr: "inherit" });
const client = new Client({ name: "postern-interop-ts", version: "1.0.0" });

await step("initialize", async () => {
  await client.connect(transport);
  return { serverInfo: client.getServerVersion(), capabilities: client.getServerCapabilities() };
});
await step("tools/list", async () => (await client.listTools()).tools.map((t) => t.name));
await step("allowed", () => client.callTool({ name: "http_request", arguments: { method: "GET", url: allowedUrl } }));
await step("denied", () => client.callTool({ name: "http_request", arguments: { method: "GET", url: deniedUrl } }));
await step("close", async () => {
  await client.close();
  return "closed";
});

const sdkPackage = new URL("../node_modules/@modelcontextprotocol/sdk/package.json", import.meta.url);
record.sdkVersion = JSON.parse(readFileSync(sdkPackage, "utf8")).version;
writeFileSync(resultFile, JSON.stringify(record, null, 2));
