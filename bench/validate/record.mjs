// Records the benchmark corpus from real sessions with peers agentwire did not write:
//   ACP v1  the official ACP SDK's example agent (streams updates and tool calls, asks for
//           permission), several prompt turns answered allow / reject / cancelled
//   MCP     @modelcontextprotocol/server-everything over stdio: initialize, tools/list and
//           calls (progress, sampling, elicitation, roots), resources, prompts, completion,
//           logging, subscriptions, ping
// agentwire's own clients (the built package) drive both over stdio; every frame in both
// directions is recorded as it crossed the pipe, labelled with the official schema definition
// of its checked part, and checked with Ajv per definition. Anything Ajv rejects is printed
// (and kept in the corpus): it is a finding about the peer or about agentwire.
//   node scripts/build.mjs; node bench/validate/record.mjs [out.json]
// Writes bench/validate/recorded/corpus.json by default, in the format of corpus.mjs.
import { root, stdio, writeCorpus } from "./recording.mjs";

const out = process.argv[2] ?? `${root}bench/validate/recorded/corpus.json`;
const { AcpClient, McpClient } = await import(`${root}pkg/node.js`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- ACP: the SDK's example agent
async function recordAcp() {
  const t = stdio(["node_modules/@agentclientprotocol/sdk/dist/examples/agent.js"]);
  const acp = await AcpClient.connect(t, {
    clientInfo: { name: "agentwire-recorder", title: "agentwire recorder", version: "0.1.0" },
    capabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
    protocolVersions: [1],
  });
  // What the user answers to each turn's permission request; "cancel" cancels the turn while
  // the request is open (agentwire answers it `cancelled`), "early" cancels before it is asked.
  const turns = [
    ["allow", "Tidy up the configuration: the database host moved to new-host."],
    ["reject", "Try the configuration change again, but explain it first."],
    ["allow", "Read README.md and summarise the project structure."],
    ["cancel", "Change the database host once more."],
    ["early", "Start over and read every file under /project."],
    ["allow", "Apply the configuration change and report what changed."],
  ];
  let session;
  let answer;
  acp.onRequest("session/request_permission", ({ options }) => {
    if (answer === "cancel") {
      session.cancel();
      return new Promise(() => {}); // answered by the session's cancel
    }
    return { outcome: { outcome: "selected", optionId: options.find((o) => o.optionId === answer)?.optionId ?? options[0].optionId } };
  });
  acp.onRequest("fs/read_text_file", () => ({ content: "# My Project\n\nThis is a sample project.\n" }));
  await acp.initialize();
  session = await acp.newSession({ cwd: "/home/user/project", mcpServers: [] });
  for (const [i, [choice, text]] of turns.entries()) {
    answer = choice;
    const prompt = [{ type: "text", text }];
    if (i % 2 === 0) prompt.push({ type: "resource_link", uri: "file:///home/user/project/config.json", name: "config.json", mimeType: "application/json" });
    const timer = choice === "early" ? setTimeout(() => session.cancel(), 1500) : null;
    const { stopReason } = await session.prompt(prompt);
    clearTimeout(timer);
    console.error(`ACP turn ${i + 1} (${choice}): ${stopReason}`);
  }
  t.closing = true;
  acp.close();
  return { frames: t.frames, version: "1" };
}

// ---------------------------------------------------------------- MCP: server-everything
/** A value that fits a JSON Schema property: its default, else the first allowed value. */
function sample(schema, key) {
  if (schema.default !== undefined) return schema.default;
  if (schema.enum) return schema.enum[0];
  const choice = schema.oneOf ?? schema.anyOf;
  if (choice) return choice[0].const ?? sample(choice[0], key);
  if (schema.const !== undefined) return schema.const;
  switch (schema.type) {
    case "boolean": return true;
    case "integer": case "number": return schema.minimum ?? 1;
    case "array": return [sample(schema.items ?? {}, key)];
    case "object": return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, s]) => [k, sample(s, k)]));
    default:
      return { email: "ada@example.com", uri: "https://example.com/ada", date: "1990-12-10", "date-time": "1990-12-10T10:00:00Z" }[schema.format]
        ?? `sample ${key}`;
  }
}

async function recordMcp() {
  const t = stdio(["node_modules/@modelcontextprotocol/server-everything/dist/index.js", "stdio"]);
  const mcp = await McpClient.connect(t, {
    clientInfo: { name: "agentwire-recorder", version: "0.1.0" },
    capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } },
    protocolVersions: ["2025-11-25", "2025-06-18"],
    era: "handshake",
  });
  mcp.onRequest("roots/list", () => ({ roots: [{ uri: "file:///home/user/project", name: "project" }] }));
  mcp.onRequest("sampling/createMessage", ({ messages }) => ({
    role: "assistant", model: "recorded-model", stopReason: "endTurn",
    content: { type: "text", text: `A short answer to: ${JSON.stringify(messages.at(-1)?.content?.text ?? "")}` },
  }));
  // The official schemas allow only string, integer, boolean and string[] values in the
  // answer, though the server asks for a "number" (default 3.14): answer whole numbers.
  mcp.onRequest("elicitation/create", ({ requestedSchema }) => ({ action: "accept",
    content: Object.fromEntries(Object.entries(sample(requestedSchema)).map(([k, v]) => [k, typeof v === "number" ? Math.round(v) : v])) }));

  const init = await mcp.initialize();
  console.error(`MCP negotiated ${init.protocolVersion} with ${init.serverInfo?.name}`);
  await mcp.setLoggingLevel("debug");
  await mcp.ping();
  const { tools } = await mcp.listTools();
  const has = new Set(tools.map((tool) => tool.name));
  const call = async (name, args, opts) => has.has(name) && mcp.callTool(name, args, opts);
  // Periodic server traffic: log messages and resource updates every 5 s while the rest runs.
  await call("toggle-simulated-logging", {});
  await mcp.subscribe("demo://resource/dynamic/text/1");
  await call("toggle-subscriber-updates", {});

  for (const [i, message] of ["hello", "a longer message with some punctuation: yes, really!", "ünïcödé ✓ 日本語"].entries()) {
    await call("echo", { message });
    await call("get-sum", { a: i * 17, b: 3.5 });
  }
  for (const messageType of ["error", "success", "debug"]) await call("get-annotated-message", { messageType, includeImage: messageType === "success" });
  await call("get-tiny-image", {});
  await call("get-resource-links", { count: 5 });
  for (const resourceId of [1, 2]) await call("get-resource-reference", { resourceType: resourceId === 1 ? "Text" : "Blob", resourceId });
  await call("get-structured-content", { location: "New York" });
  await call("get-roots-list", {});
  await call("trigger-long-running-operation", { duration: 2, steps: 4 }, { onProgress: () => {} });
  await call("trigger-sampling-request", { prompt: "Name three prime numbers.", maxTokens: 50 });
  await call("trigger-elicitation-request", {});

  let cursor;
  const resources = [];
  do {
    const page = await mcp.listResources(cursor ? { cursor } : {});
    resources.push(...page.resources);
    cursor = page.nextCursor;
  } while (cursor);
  await mcp.listResourceTemplates({});
  for (const r of resources.slice(0, 4)) await mcp.readResource(r.uri);
  for (const uri of ["demo://resource/dynamic/text/7", "demo://resource/dynamic/blob/8"]) await mcp.readResource(uri);

  const { prompts } = await mcp.listPrompts({});
  for (const p of prompts) {
    const args = Object.fromEntries((p.arguments ?? []).map((a) => [a.name, { city: "Lisbon", state: "Lisboa", department: "Engineering",
      name: "Ada", resourceType: "Text", resourceId: "3" }[a.name] ?? "x"]));
    await mcp.getPrompt(p.name, args);
  }
  const completable = prompts.find((p) => p.name === "completable-prompt");
  if (completable) await mcp.complete({ type: "ref/prompt", name: completable.name }, { name: "department", value: "En" });

  await sleep(11_000); // two rounds of the periodic log messages and resource updates
  await call("toggle-subscriber-updates", {});
  await mcp.unsubscribe("demo://resource/dynamic/text/1");
  await call("toggle-simulated-logging", {});
  await mcp.ping();
  t.closing = true;
  mcp.close();
  return { frames: t.frames, version: init.protocolVersion };
}

// ---------------------------------------------------------------- labelling with the official schemas
writeCorpus([
  ["acp", await recordAcp()],
  ["mcp", await recordMcp()],
], out);
