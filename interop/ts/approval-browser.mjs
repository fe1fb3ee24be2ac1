// The loopback approval page end to end: the TypeScript SDK's stock client (@modelcontextprotocol/sdk,
// declaring no elicitation) calls through a Postern gateway, and headless Chromium (Debian's, driven by
// playwright-core with executablePath) is the human on the page whose URL the gateway wrote to its
// stderr. Usage:
//   node approval-browser.mjs SERVER_COMMAND GATEWAY_STDERR BASE_URL SCREENSHOT RESULT_FILE
// Steps, each with its own timeout and logged to stderr (so a hang says where):
//   approve on the page (screenshot taken), then a second tab and a replayed form on that URL;
//   deny on the page; then, on a third approval: a wrong Host (a name mapped to 127.0.0.1, as DNS
//   rebinding would), a cross-origin form POST, a POST without the CSRF token and one with the first
//   approval's token; then that approval expires and its page is gone.
// RESULT_FILE gets what each step saw, as JSON; the Java test (ApprovalPageBrowserIT) judges it and
// counts the effects at its loopback service. Nothing is written to stdout.
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { chromium } from "playwright-core";

const [serverCommand, gatewayStderr, baseUrl, screenshot, resultFile] = process.argv.slice(2);
if (!resultFile) {
  console.error("usage: node approval-browser.mjs SERVER_COMMAND GATEWAY_STDERR BASE_URL SCREENSHOT RESULT_FILE");
  process.exit(64);
}

const STEP_MS = 15000;
const record = { steps: {} };
const log = (message) => console.error(`[approval-browser ${new Date().toISOString()}] ${message}`);

function within(ms, what, promise) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function step(name, action, ms = STEP_MS) {
  log(`start ${name}`);
  try {
    const result = await within(ms, name, action());
    record.steps[name] = { result };
    log(`done ${name}: ${JSON.stringify(result)}`);
    return result;
  } catch (e) {
    record.steps[name] = { thrown: String(e && e.message ? e.message : e) };
    log(`FAILED ${name}: ${record.steps[name].thrown}`);
    throw e;
  }
}

// The n-th "postern: approval needed: URL (...)" line the gateway wrote to its stderr.
async function approvalUrl(n) {
  for (;;) {
    const lines = readFileSync(gatewayStderr, "utf8").split("\n").filter((l) => l.startsWith("postern: approval needed: "));
    if (lines.length >= n) {
      return lines[n - 1].split(" ")[3];
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

const post = (path) => ({ name: "http_request", arguments: { method: "POST", url: baseUrl + path, body: path } });
const text = (result) => result.content?.[0]?.text ?? "";
const outcome = (result) => ({ isError: result.isError === true, text: text(result) });

const client = new Client({ name: "postern-interop-browser", version: "1.0.0" });
const transport = new StdioClientTransport({ command: serverCommand, args: [], stderr: "inherit" });
const profile = mkdtempSync(join(tmpdir(), "postern-chromium-"));
let context;
let exit = 0;
try {
  await step("initialize", () => client.connect(transport).then(() => client.getServerVersion()));
  context = await step("launch chromium", () => chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
      "--host-resolver-rules=MAP rebound.example 127.0.0.1"],
    timeout: STEP_MS,
  }), 30000);
  context.setDefaultTimeout(STEP_MS);
  context.setDefaultNavigationTimeout(STEP_MS);

  // 1. Approve on the page: exactly one effect.
  const approving = client.callTool(post("/v1/approve-me"));
  const first = await step("first approval's URL", () => approvalUrl(1));
  const origin = new URL(first).origin;
  const page = await context.newPage();
  await step("open the page", async () => {
    const response = await page.goto(first);
    return { status: response.status(), body: await page.textContent("body"), csp: response.headers()["content-security-policy"] };
  });
  await step("screenshot", () => page.screenshot({ path: screenshot, fullPage: true }).then(() => screenshot));
  const firstCsrf = await page.inputValue("input[name=csrf]");
  const firstDigest = await page.inputValue("input[name=digest]");
  await step("click approve", async () => {
    const [response] = await Promise.all([page.waitForNavigation(), page.click("button[value=approve]")]);
    return { status: response.status(), body: await page.textContent("body") };
  });
  await step("approved call's result", () => approving.then(outcome));
  await step("second tab after the answer", async () => {
    const tab = await context.newPage();
    const response = await tab.goto(first);
    const status = response.status();
    await tab.close();
    return { status };
  });
  await step("replayed form", async () => {
    const response = await context.request.post(first, { headers: { Origin: origin },
      form: { csrf: firstCsrf, digest: firstDigest, decision: "approve" } });
    return { status: response.status() };
  });

  // 2. Deny on the page: nothing runs.
  const denying = client.callTool(post("/v1/decline-me"));
  const second = await step("second approval's URL", () => approvalUrl(2));
  await step("click deny", async () => {
    await page.goto(second);
    const [response] = await Promise.all([page.waitForNavigation(), page.click("button[value=deny]")]);
    return { status: response.status() };
  });
  await step("denied call's result", () => denying.then(outcome));

  // 3. Forgeries on a third approval: none answers it; then it expires.
  const attacked = client.callTool(post("/v1/attack-me"));
  const third = await step("third approval's URL", () => approvalUrl(3));
  await step("wrong host", async () => {
    const response = await page.goto(third.replace("127.0.0.1", "rebound.example"));
    return { status: response.status(), body: await page.textContent("body") };
  });
  await page.goto(third);
  const thirdDigest = await page.inputValue("input[name=digest]");
  const thirdCsrf = await page.inputValue("input[name=csrf]");
  await step("cross-origin form post", async () => {
    const form = `<form method="post" action="${third}"><input name="csrf" value="${thirdCsrf}">`
      + `<input name="digest" value="${thirdDigest}"><button name="decision" value="approve">go</button></form>`;
    await page.goto("data:text/html," + encodeURIComponent(form));
    const [response] = await Promise.all([page.waitForNavigation(), page.click("button")]);
    return { status: response.status() };
  });
  await step("missing csrf token", async () => {
    const response = await context.request.post(third, { headers: { Origin: origin }, form: { digest: thirdDigest, decision: "approve" } });
    return { status: response.status() };
  });
  await step("reused csrf token", async () => {
    const response = await context.request.post(third, { headers: { Origin: origin },
      form: { csrf: firstCsrf, digest: thirdDigest, decision: "approve" } });
    return { status: response.status() };
  });
  await step("expired call's result", () => attacked.then(outcome), 30000);
  await step("expired page", async () => {
    const response = await page.goto(third);
    return { status: response.status() };
  });
} catch (e) {
  exit = 1;
} finally {
  await step("close chromium", () => (context ? context.close() : Promise.resolve()).then(() => "closed")).catch(() => { exit = 1; });
  await step("close client", () => client.close().then(() => "closed")).catch(() => { exit = 1; });
  rmSync(profile, { recursive: true, force: true });
  writeFileSync(resultFile, JSON.stringify(record, null, 2));
}
process.exit(exit);
