// The TypeScript SDK's own client (@modelcontextprotocol/sdk) connecting to a Postern gateway whose
// config is invalid. Usage: node broken-config.mjs SERVER_COMMAND RESULT_FILE
// It tries to connect (initialize) and records what the client raised, as a user's client would show
// it, in RESULT_FILE as JSON. It writes nothing to stdout; the Java test (BrokenConfigClientIT) judges it.
import { writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [serverCommand, resultFile] = process.argv.slice(2);
if (!resultFile) {
  console.error("usage: node broken-config.mjs SERVER_COMMAND RESULT_FILE");
  process.exit(64);
}
const record = { connected: false, thrown: null, code: null };
const transport = new StdioClientTransport({ command: serverCommand, args: [], stderr: "inherit" });
const client = new Client({ name: "postern-interop-broken-config", version: "1.0.0" }, { capabilities: {} });
try {
  await client.connect(transport);
  record.connected = true;
} catch (e) {
  record.thrown = String(e && e.message ? e.message : e);
  record.code = e && typeof e.code === "number" ? e.code : null;
}
try {
  await client.close();
} catch (e) {
  // already closed by the gateway's exit
}
writeFileSync(resultFile, JSON.stringify(record, null, 2));
