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
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import Ajv from "ajv";
import { schemaPath } from "./contenders.mjs";

const root = new URL("../../", import.meta.url).pathname;
const shared = process.env.AGENTWIRE_SHARED ?? new URL("../shared/", `file://${root}`).pathname;
const out = process.argv[2] ?? `${root}bench/validate/recorded/corpus.json`;
const { AcpClient, McpClient, Validator } = await import(`${root}pkg/node.js`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A child process speaking newline-delimited JSON-RPC, as a transport; records every frame. */
function stdio(args) {
  const child = spawn(process.execPath, args, { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
  const frames = [];
  let stderr = "";
  child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-4000)));
  const transport = {
    frames,
    send(text) {
      frames.push({ sent: true, text });
      child.stdin.write(`${text}\n`);
    },
    close() {
      child.stdin.end();
      child.kill();
    },
  };
  createInterface({ input: child.stdout }).on("line", (line) => {
    if (!line.trim()) return;
    frames.push({ sent: false, text: line });
    transport.onmessage?.({ data: line });
  });
  child.on("exit", (code) => {
    if (code && code !== 143 && !transport.closing) console.error(`${args.join(" ")} exited ${code}: ${stderr}`);
    transport.onclose?.({ code: 1000, reason: "exited" });
  });
  return transport;
}

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
/** Method -> definition, for requests/notifications and for results, from the schema itself. */
function definitions(protocol, doc) {
  const defs = doc.$defs ?? doc.definitions;
  const call = new Map();
  const result = new Map();
  const put = (map, method, name) => {
    if (map.has(method)) throw new Error(`${protocol}: ${method} is both ${map.get(method)} and ${name}`);
    map.set(method, name);
  };
  for (const [name, def] of Object.entries(defs)) {
    if (protocol === "acp") {
      // ACP marks each method's request/notification and response with x-method.
      if (def["x-method"]) put(name.endsWith("Response") ? result : call, def["x-method"], name);
    } else if (def.properties?.method?.const) {
      put(call, def.properties.method.const, name);
      // MCP names a request's result after it; requests without one answer EmptyResult.
      if (name.endsWith("Request")) put(result, def.properties.method.const, defs[name.replace(/Request$/, "Result")] ? name.replace(/Request$/, "Result") : "EmptyResult");
    }
  }
  const error = ["JSONRPCErrorResponse", "JSONRPCError", "Error"].find((n) => defs[n]);
  return { call, result, error, key: doc.$defs ? "$defs" : "definitions" };
}

function label(protocol, version, frames) {
  const doc = JSON.parse(readFileSync(join(shared, schemaPath(protocol, version)), "utf8"));
  const { call, result, error, key } = definitions(protocol, doc);
  const ajv = String(doc.$schema ?? "").includes("2020-12") ? new Ajv2020({ strict: false, logger: false }) : new Ajv({ strict: false, logger: false });
  ajv.addSchema(doc, "root");
  const validator = new Validator({ protocol, version });
  const open = new Map(); // direction + id of a request -> its method
  const entries = [];
  const findings = [];
  for (const { sent, text } of frames) {
    const direction = sent ? "clientToServer" : "serverToClient";
    const msg = JSON.parse(text);
    let def, part, inReplyTo = null;
    if (msg.method !== undefined) {
      if (msg.id !== undefined) open.set(`${direction}${JSON.stringify(msg.id)}`, msg.method);
      def = call.get(msg.method);
      part = protocol === "acp" ? "params" : "message";
    } else {
      const asked = sent ? "serverToClient" : "clientToServer";
      inReplyTo = open.get(`${asked}${JSON.stringify(msg.id)}`) ?? null;
      open.delete(`${asked}${JSON.stringify(msg.id)}`);
      if (msg.error !== undefined) [def, part] = protocol === "acp" ? [error, "error"] : [error, "message"];
      else [def, part] = [result.get(inReplyTo), "result"];
    }
    const entry = { protocol, version, direction, inReplyTo, def, part, text };
    entries.push(entry);
    const problems = [];
    if (!def) problems.push(`no official definition for ${msg.method ?? inReplyTo ?? "this message"}`);
    else {
      const check = ajv.compile({ $ref: `root#/${key}/${def}` });
      const value = part === "message" ? msg : msg[part];
      if (!check(value)) problems.push(`Ajv ${def}: ${ajv.errorsText(check.errors.slice(0, 4))}`);
    }
    const report = validator.validate(text, { direction, inReplyTo: inReplyTo ?? undefined });
    const errors = report.issues.filter((i) => i.severity === "error");
    if (!report.ok || errors.length) problems.push(`agentwire: ${errors.map((i) => `${i.path} ${i.code} ${i.message}`).join("; ")}`);
    if (problems.length) findings.push({ entry, problems });
  }
  return { entries, findings };
}

const sessions = [
  ["acp", await recordAcp()],
  ["mcp", await recordMcp()],
];
const corpus = [];
let findings = 0;
for (const [protocol, { frames, version }] of sessions) {
  const labelled = label(protocol, version, frames);
  corpus.push(...labelled.entries);
  for (const { entry, problems } of labelled.findings) {
    findings++;
    console.log(`FINDING ${protocol} ${version} ${entry.direction} ${entry.def ?? "?"}: ${problems.join(" | ")}\n  ${entry.text.slice(0, 400)}`);
  }
  const counts = {};
  for (const e of labelled.entries) counts[e.def] = (counts[e.def] ?? 0) + 1;
  console.error(`${protocol} ${version}: ${labelled.entries.length} frames; ${Object.entries(counts).map(([d, n]) => `${d} ${n}`).join(", ")}`);
}
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(corpus, null, 0).replace(/\},\{"protocol"/g, '},\n{"protocol"')}\n`);
console.error(`${corpus.length} messages, ${corpus.reduce((n, m) => n + m.text.length, 0)} bytes, ${findings} findings -> ${out}`);
