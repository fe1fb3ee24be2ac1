// The TypeScript SDK v2 client (@modelcontextprotocol/client, pinned in ../package.json) driving a
// Postern gateway over stdio in the stateless era, its version negotiation pinned to 2026-07-28 (no
// fallback to initialize). Usage: node client-modern.mjs SERVER_COMMAND ALLOWED_URL DENIED_URL RESULT_FILE
// It connects (server/discover), lists tools, makes an allowed and a denied http_request call and
// closes, recording what the client saw at each step (a result, or the error the client raised) in
// RESULT_FILE as JSON. It writes nothing to stdout; the Java test (TypeScriptSdkV2ClientIT) judges the record.
import { readFileSync, writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const PINNED = "2026-07-28";
const [serverCommand, allowedUrl, deniedUrl, resultFile] = process.argv.slice(2);
if (!resultFile) {
  console.error("usage: node client-modern.mjs SERVER_COMMAND ALLOWED_URL DENIED_URL RESULT_FILE");
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
const client = new Client({ name: "postern-interop-ts-v2", version: "1.0.0" }, { versionNegotiation: { mode: { pin: PINNED } } });

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
await step("close", async () => {
  await client.close();
  return "closed";
});

const sdkPackage = new URL("../node_modules/@modelcontextprotocol/client/package.json", import.meta.url);
record.sdkVersion = JSON.parse(readFileSync(sdkPackage, "utf8")).version;
writeFileSync(resultFile, JSON.stringify(record, null, 2));
