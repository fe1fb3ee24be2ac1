// The steps both TypeScript clients take against real upstream MCP servers behind a Postern gateway
// (everything: server-everything; files: server-filesystem on FILES_DIR), and the human who answers
// their approval questions. Each step records what the client saw: a result, or the error it raised.
// Nothing here writes to stdout.

/** Runs `action` and records its result, or what it threw, as record.steps[name]. */
export const step = async (record, name, action) => {
  try {
    record.steps[name] = { result: await action() };
  } catch (e) {
    record.steps[name] = { thrown: String(e && e.message ? e.message : e) };
  }
};

/** The human: records the question; approves only one that names FILES_DIR/approved.txt. */
export const human = (record, filesDir, params) => {
  const { message, requestedSchema, mode } = params;
  record.elicitations.push({ message, requestedSchema, mode: mode ?? null });
  return message.includes(`${filesDir}/approved.txt`) ? { action: "accept", content: { approve: true } } : { action: "decline" };
};

/**
 * Connects (with `connect`), lists the tools, calls everything__echo, then what the gateway must refuse
 * before the server sees it (an undeclared argument, an argument past the operator's narrowing), then
 * an allowed get-sum; then files__write_file three times (approved, declined, and a path outside its
 * narrowing), reads the approved file back with files__read_text_file, and closes.
 */
export const runUpstreamSteps = async (record, client, filesDir, connect) => {
  await step(record, "connect", connect);
  await step(record, "tools/list", async () => (await client.listTools()).tools
    .map(({ name, title, description, inputSchema, annotations }) => ({ name, title, description, inputSchema, annotations })));
  const call = (name, args) => client.callTool({ name, arguments: args });
  await step(record, "echo", () => call("everything__echo", { message: "hello through postern" }));
  await step(record, "undeclared", () => call("everything__echo", { message: "undeclared-marker", sneaky: "never-sent" }));
  await step(record, "narrowed", () => call("everything__get-sum", { a: 1000, b: 1 }));
  await step(record, "sum", () => call("everything__get-sum", { a: 2, b: 3 }));
  await step(record, "write-approved", () => call("files__write_file", { path: `${filesDir}/approved.txt`, content: "written after approval" }));
  await step(record, "write-declined", () => call("files__write_file", { path: `${filesDir}/declined.txt`, content: "must never be written" }));
  await step(record, "write-outside", () => call("files__write_file", { path: `${filesDir}/run.sh`, content: "must never be written" }));
  await step(record, "read", () => call("files__read_text_file", { path: `${filesDir}/approved.txt` }));
  await step(record, "close", async () => {
    await client.close();
    return "closed";
  });
};
