// The TypeScript SDK's own client (@modelcontextprotocol/sdk, pinned in ../package.json) calling real
// upstream MCP servers through a Postern gateway over stdio, in the handshake era.
// Usage: node upstream-client.mjs SERVER_COMMAND FILES_DIR RESULT_FILE
// The gateway (see PinnedUpstreams) offers server-everything as "everything" and server-filesystem on
// FILES_DIR as "files". The steps are those of upstream-steps.mjs; the human in this script (its
// elicitation handler) approves a question that names FILES_DIR/approved.txt and declines every other.
// It records what the client saw at each step and every question it was asked in RESULT_FILE as JSON,
// and writes nothing to stdout; the Java test (TypeScriptSdkClientIT) judges the record.
import { readFileSync, writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { human, runUpstreamSteps } from "./upstream-steps.mjs";

const [serverCommand, filesDir, resultFile] = process.argv.slice(2);
if (!resultFile) {
  console.error("usage: node upstream-client.mjs SERVER_COMMAND FILES_DIR RESULT_FILE");
  process.exit(64);
}

const record = { sdkVersion: null, steps: {}, elicitations: [] };
const transport = new StdioClientTransport({ command: serverCommand, args: [], stderr: "inherit" });
const client = new Client({ name: "postern-interop-ts-upstream", version: "1.0.0" }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async (request) => human(record, filesDir, request.params));

await runUpstreamSteps(record, client, filesDir, async () => {
  await client.connect(transport);
  return { serverInfo: client.getServerVersion(), capabilities: client.getServerCapabilities() };
});

const sdkPackage = new URL("../node_modules/@modelcontextprotocol/sdk/package.json", import.meta.url);
record.sdkVersion = JSON.parse(readFileSync(sdkPackage, "utf8")).version;
writeFileSync(resultFile, JSON.stringify(record, null, 2));
