// The TypeScript SDK v2 client (@modelcontextprotocol/client, pinned in ../package.json) calling real
// upstream MCP servers through a Postern gateway over stdio, in the stateless era (its version
// negotiation pinned to 2026-07-28). Usage: node upstream-client-modern.mjs SERVER_COMMAND FILES_DIR RESULT_FILE
// The gateway (see PinnedUpstreams) offers server-everything as "everything" and server-filesystem on
// FILES_DIR as "files". The steps are those of upstream-steps.mjs; an approval comes back as
// input_required and is answered by the elicitation handler (the human of upstream-steps.mjs).
// It records what the client saw at each step and every question it was asked in RESULT_FILE as JSON,
// and writes nothing to stdout; the Java test (TypeScriptSdkV2ClientIT) judges the record.
import { readFileSync, writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { human, runUpstreamSteps } from "./upstream-steps.mjs";

const PINNED = "2026-07-28";
const [serverCommand, filesDir, resultFile] = process.argv.slice(2);
if (!resultFile) {
  console.error("usage: node upstream-client-modern.mjs SERVER_COMMAND FILES_DIR RESULT_FILE");
  process.exit(64);
}

const record = { sdkVersion: null, steps: {}, elicitations: [] };
const transport = new StdioClientTransport({ command: serverCommand, args: [], stderr: "inherit" });
const client = new Client({ name: "postern-interop-ts-v2-upstream", version: "1.0.0" },
  { versionNegotiation: { mode: { pin: PINNED } }, capabilities: { elicitation: { form: {} } } });
client.setRequestHandler("elicitation/create", async (request) => human(record, filesDir, request.params));

await runUpstreamSteps(record, client, filesDir, async () => {
  await client.connect(transport);
  return {
    era: client.getProtocolEra(),
    protocolVersion: client.getNegotiatedProtocolVersion(),
    serverInfo: client.getServerVersion(),
  };
});

const sdkPackage = new URL("../node_modules/@modelcontextprotocol/client/package.json", import.meta.url);
record.sdkVersion = JSON.parse(readFileSync(sdkPackage, "utf8")).version;
writeFileSync(resultFile, JSON.stringify(record, null, 2));
