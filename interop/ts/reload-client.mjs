// The TypeScript SDK's own client (@modelcontextprotocol/sdk, pinned in ../package.json) against a
// Postern gateway whose config is edited while it runs. Usage:
//   node reload-client.mjs SERVER_COMMAND CONFIG NARROWED_CONFIG ALLOWED_URL RESULT_FILE
// It initializes, lists tools, makes an allowed http_request of ALLOWED_URL, then renames
// NARROWED_CONFIG over CONFIG (as an editor saves), waits for notifications/tools/list_changed (at most
// 60 s, then records that none came), makes the same request again, lists tools again and closes,
// recording what it saw at each step in RESULT_FILE. It writes nothing to stdout; the Java test
// (ConfigReloadClientIT) judges the record.
import { renameSync, writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { step as recordStep } from "./upstream-steps.mjs";

const [serverCommand, config, narrowed, allowedUrl, resultFile] = process.argv.slice(2);
if (!resultFile) {
  console.error("usage: node reload-client.mjs SERVER_COMMAND CONFIG NARROWED_CONFIG ALLOWED_URL RESULT_FILE");
  process.exit(64);
}

const record = { steps: {}, listChanged: 0 };
const step = (name, action) => recordStep(record, name, action);

const transport = new StdioClientTransport({ command: serverCommand, args: [], stderr: "inherit" });
const client = new Client({ name: "postern-interop-reload", version: "1.0.0" }, { capabilities: {} });
let changed;
const listChanged = new Promise((resolve) => { changed = resolve; });
client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  record.listChanged += 1;
  changed("list_changed");
});

const call = () => client.callTool({ name: "http_request", arguments: { method: "GET", url: allowedUrl } });
await step("initialize", async () => {
  await client.connect(transport);
  return { capabilities: client.getServerCapabilities() };
});
await step("tools/list", async () => (await client.listTools()).tools);
await step("before", call);
await step("edit", async () => {
  renameSync(narrowed, config);
  return await Promise.race([listChanged, new Promise((resolve) => setTimeout(() => resolve("no list_changed in 60 s"), 60000))]);
});
await step("after", call);
await step("tools/list again", async () => (await client.listTools()).tools);
await step("close", async () => {
  await client.close();
  return "closed";
});

writeFileSync(resultFile, JSON.stringify(record, null, 2));
