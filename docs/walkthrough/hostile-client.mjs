// docs/operator-walkthrough.md: the TypeScript SDK calling http_request for each PATH; run with node_modules -> interop/node_modules beside it.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
const [cfg, base, ...paths] = process.argv.slice(2);
const transport = new StdioClientTransport({ command: process.env.POSTERN ?? "bin/postern", args: ["mcp-stdio", "--config", cfg], stderr: "pipe" });
let err = "";
transport.stderr?.on("data", (d) => { err += d; });
const client = new Client({ name: "tryout", version: "1" });
await client.connect(transport);
for (const p of paths) {
  const t0 = Date.now();
  try {
    const r = await client.callTool({ name: "http_request", arguments: { method: "GET", url: base + p } });
    const text = r.content[0].text;
    console.error(`${p} [${Date.now()-t0} ms] isError=${!!r.isError} ${text.length > 300 ? text.slice(0,300) + "...(" + text.length + " chars)" : text}`);
  } catch (e) { console.error(`${p} THROWN ${e.message}`); }
}
await client.close();
console.error("--- gateway stderr ---\n" + err);
