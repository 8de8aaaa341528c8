// What a session costs per frame that is not a session update (those take a path of their
// own: bench/replay), and per call sent, for builds side by side in one Node process, CPU time, short slices of
// each in turn; min and median per frame:
//   node bench/receive/run.mjs DIR...     DIR: a built package (pkg, or another build's)
// Frames, each a real exchange between two agentwire sessions (sans-IO):
// - MCP client: the answer to `tools/call` (a result with text and structured content, 1.4 KB),
//   a `notifications/progress`, and a `notifications/tools/list_changed` (also to a client whose
//   capabilities and server's are a host's and an apps server's);
// - ACP client: the agent's `fs/read_text_file` request (answered untimed, so nothing piles up);
// - ACP agent: the client's `session/prompt` (text and a resource link; answered likewise), and
//   the answer to its `fs/read_text_file` (a file of 1.5 KB);
// - MCP server: the client's `tools/call` whose arguments are that result (answered likewise),
//   in the handshake era and in the stateless era (2026-07-28: `_meta` on every request);
// - sent: an MCP `tools/call` whose arguments are that result, that result as a stateless
//   server's answer, an ACP `session/prompt`;
// - MCP over Streamable HTTP: a JSON body answering a `tools/call` (that result, and one of
//   145 KB), as the transport's state (`McpHttp`, js/http.js) takes it before the session does.
// - MCP over Streamable HTTP: the same answers as one event of an event stream, as a chunk.
// - ACP over HTTP: an agent's message chunk as an event of a session's stream, as the
//   transport reads it before the session does.
// - MCP over Streamable HTTP: the POST of a stateless-era `tools/call` (1.4 KB arguments)
//   planned by that state (its headers, the request it owes).
// Environment: ROUNDS (30), SLICE ms (50).
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { cpuUsage } from "node:process";
import { createRequire } from "node:module";

const dirs = process.argv.slice(2);
if (!dirs.length) throw new Error("usage: node bench/receive/run.mjs DIR...");
const [rounds, slice] = [Number(process.env.ROUNDS ?? 30), Number(process.env.SLICE ?? 50)];
const cpuMs = () => { const u = cpuUsage(); return (u.user + u.system) / 1000; };
const sendOf = (events) => events.find((e) => e.type === "send").text;
const words = "the agent reads the file then edits the function and runs the tests again".split(" ");
const text = (n) => Array.from({ length: n }, (_, i) => words[i % words.length]).join(" ");

/** For one build: each case a function that handles one frame (and what the frame asks). */
function cases(aw, glue, steps, acpHttp) {
  const clientInfo = { name: "bench", version: "1" };
  // MCP: a client in the handshake era, answered by an agentwire server.
  const mcp = new aw.McpClient({ clientInfo, protocolVersions: ["2025-11-25"], era: "handshake" });
  const server = new aw.McpServer({ serverInfo: clientInfo, protocolVersions: ["2025-11-25"], capabilities: { tools: {} } });
  for (const e of mcp.receive(sendOf(server.receive(mcp.initialize().text)))) if (e.type === "send") server.receive(e.text);
  // The stateless era: the client discovers the server, then every request carries `_meta`.
  const stateless = new aw.McpClient({ clientInfo, protocolVersions: ["2026-07-28"], era: "stateless" });
  const statelessServer = new aw.McpServer({ serverInfo: clientInfo, protocolVersions: ["2026-07-28"], capabilities: { tools: {} } });
  for (const e of stateless.receive(sendOf(statelessServer.receive(stateless.initialize().text)))) if (e.type === "send") statelessServer.receive(e.text);
  // The same pair with capabilities as a host and a server with apps advertise them, which a
  // session reads for every message it checks.
  const hostCaps = { roots: { listChanged: true }, sampling: { context: {}, tools: {} }, elicitation: { form: {}, url: {} }, experimental: { trace: { level: "debug" } }, extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } };
  const serverCaps = { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, logging: {}, completions: {}, extensions: { "io.modelcontextprotocol/ui": {} } };
  const host = new aw.McpClient({ clientInfo, protocolVersions: ["2025-11-25"], era: "handshake", capabilities: hostCaps });
  const appServer = new aw.McpServer({ serverInfo: clientInfo, protocolVersions: ["2025-11-25"], capabilities: serverCaps });
  for (const e of host.receive(sendOf(appServer.receive(host.initialize().text)))) if (e.type === "send") appServer.receive(e.text);
  const toolResult = { content: [{ type: "text", text: text(120) }], structuredContent: { files: Array.from({ length: 12 }, (_, i) => ({ path: `/work/src/m${i}.rs`, lines: 100 + i, changed: i % 2 === 0 })) }, isError: false };
  // ACP: a v1 client and agent (v2 has no fs methods), with a session.
  const client = new aw.AcpClient({ clientInfo, protocolVersions: [1], capabilities: { fs: { readTextFile: true } } });
  const agent = new aw.AcpAgent({ agentInfo: clientInfo, protocolVersions: [1] });
  client.receive(sendOf(agent.receive(client.initialize().text)));
  const newSession = client.request("session/new", { cwd: "/work", mcpServers: [] });
  const asked = agent.receive(newSession.text).find((e) => e.type === "request");
  client.receive(agent.respond(asked.id, { sessionId: "s1" }));
  const read = { sessionId: "s1", path: "/work/src/main.rs", line: 10, limit: 200 };
  const listChanged = '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}';
  const progress = JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "call-7", progress: 3, total: 10, message: "reading the files" } });
  const file = Array.from({ length: 24 }, (_, i) => `    let line_${i} = "${text(8)}";`).join("\n");
  // By the names js/http.js gives the state's steps (a build before `steps`: its own methods).
  const http = steps ? steps(new glue.McpHttp(1 << 24)) : new glue.McpHttp(1 << 24);
  const bigResult = { content: Array.from({ length: 2000 }, (_, i) => ({ type: "text", text: `line ${i} of the tool's output, with some words` })) };
  const updateEvent = `data: ${JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: text(236) } } } })}\n\n`;
  const prompt = { sessionId: "s1", prompt: [{ type: "text", text: text(60) }, { type: "resource_link", uri: "file:///work/src/main.rs", name: "main.rs" }] };
  return {
    "MCP client: tools/call result": () => {
      const out = mcp.request("tools/call", { name: "search", arguments: { q: "x" } });
      return () => mcp.receive(`{"jsonrpc":"2.0","id":${JSON.stringify(out.id)},"result":${JSON.stringify(toolResult)}}`);
    },
    "MCP client: notifications/progress": () => () => mcp.receive(progress),
    "MCP client: notifications/tools/list_changed": () => () => mcp.receive(listChanged),
    "MCP client with a host's capabilities: notifications/tools/list_changed": () => () => host.receive(listChanged),
    "ACP client: fs/read_text_file request": () => {
      const out = agent.request("fs/read_text_file", read);
      const handle = () => client.receive(out.text);
      handle.after = (events) => agent.receive(client.respond(events[0].id, { content: "fn main() {}" }));
      return handle;
    },
    "ACP agent: session/prompt request": () => {
      const out = client.request("session/prompt", prompt);
      const handle = () => agent.receive(out.text);
      handle.after = (events) => client.receive(agent.respond(events[0].id, { stopReason: "end_turn" }));
      return handle;
    },
    "ACP agent: fs/read_text_file result (1.5 KB file)": () => {
      const out = agent.request("fs/read_text_file", read);
      return () => agent.receive(`{"jsonrpc":"2.0","id":${JSON.stringify(out.id)},"result":${JSON.stringify({ content: file })}}`);
    },
    "MCP server: tools/call request (1.4 KB arguments)": () => {
      const out = mcp.request("tools/call", { name: "apply", arguments: toolResult });
      const handle = () => server.receive(out.text);
      handle.after = (events) => mcp.receive(server.respond(events[0].id, { content: [] }));
      return handle;
    },
    "MCP server, stateless era: tools/call request (1.4 KB arguments)": () => {
      const out = stateless.request("tools/call", { name: "apply", arguments: toolResult });
      const handle = () => statelessServer.receive(out.text);
      handle.after = (events) => stateless.receive(statelessServer.respond(events[0].id, { content: [] }));
      return handle;
    },
    "MCP server, stateless era: tools/call result sent (1.4 KB)": () => {
      const asked = statelessServer.receive(stateless.request("tools/call", { name: "search", arguments: { q: "x" } }).text).find((e) => e.type === "request");
      const handle = () => statelessServer.respond(asked.id, toolResult);
      handle.after = (text) => stateless.receive(text);
      return handle;
    },
    ...Object.fromEntries([["1.4 KB", toolResult], ["145 KB", bigResult]].map(([size, result]) => [`MCP over HTTP: a tools/call answer's body (${size})`, () => {
      const post = http.post('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search","arguments":{}}}');
      http.response(post.stream, 200, "application/json", undefined);
      const body = `{"jsonrpc":"2.0","id":7,"result":${JSON.stringify(result)}}`;
      const handle = () => http.body(post.stream, body);
      // The fetch is over: its stream closes (as js/http.js tells the state).
      handle.after = () => http.end(post.stream, false);
      return handle;
    }])),
    // The same answers as one event of a stream (how the official SDKs' servers answer by
    // default), fed to the state as the chunk `js/http.js` decodes.
    ...Object.fromEntries([["1.4 KB", toolResult], ["145 KB", bigResult]].map(([size, result]) => [`MCP over HTTP: a tools/call answer's event (${size})`, () => {
      const post = http.post('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search","arguments":{}}}');
      http.response(post.stream, 200, "text/event-stream", undefined);
      const chunk = `event: message\nid: e1\ndata: {"jsonrpc":"2.0","id":7,"result":${JSON.stringify(result)}}\n\n`;
      const handle = () => http.chunk(post.stream, chunk);
      handle.after = () => http.end(post.stream, false);
      return handle;
    }])),
    // ACP over HTTP: an agent's message chunk as one event of a session's stream, as the
    // transport (js/acp-http.js) reads a chunk: its messages, and which of them it must parse
    // to route (requests and answers). The session's own receive is the rows above.
    "ACP over HTTP: a session update's event (1.4 KB)": () => {
      const decoder = new glue.SseDecoder();
      const handle = acpHttp.messages
        ? () => { for (const t of acpHttp.messages(decoder.feed(updateEvent))) if (acpHttp.mayHaveId(t)) JSON.parse(t); }
        : () => { for (const e of decoder.feed(updateEvent).events) if (e.event === "message" && e.data !== "") JSON.parse(e.data); };
      handle.after = () => decoder.free();
      return handle;
    },
    // The state planning the POST of a stateless-era call: its id and version read, its
    // method, name and marked arguments mirrored into headers (the fetch ends untimed).
    "MCP over HTTP: a tools/call POSTed (1.4 KB arguments, stateless era)": () => {
      const posting = steps ? steps(new glue.McpHttp(1 << 24)) : new glue.McpHttp(1 << 24);
      const call = stateless.request("tools/call", { name: "apply", arguments: toolResult }).text;
      const handle = () => posting.post(call);
      handle.after = (plan) => posting.end(plan.stream, false);
      return handle;
    },
    // Sending: the call checked, written once and validated as it goes (answered untimed).
    "MCP client: tools/call sent (1.4 KB arguments)": () => {
      const handle = () => mcp.request("tools/call", { name: "apply", arguments: toolResult });
      handle.after = (out) => mcp.receive(`{"jsonrpc":"2.0","id":${JSON.stringify(out.id)},"result":{"content":[]}}`);
      return handle;
    },
    "ACP client: session/prompt sent": () => {
      const handle = () => client.request("session/prompt", prompt);
      handle.after = (out) => {
        const asked = agent.receive(out.text).find((e) => e.type === "request");
        client.receive(agent.respond(asked.id, { stopReason: "end_turn" }));
      };
      return handle;
    },
  };
}

const builds = [];
const require = createRequire(import.meta.url);
for (const dir of dirs) {
  const aw = await import(pathToFileURL(`${resolve(dir)}/node.js`).href);
  const { steps } = await import(pathToFileURL(`${resolve(dir)}/http.js`).href);
  const acpHttp = await import(pathToFileURL(`${resolve(dir)}/acp-http.js`).href);
  builds.push({ dir, cases: cases(aw, require(`${resolve(dir)}/node/agentwire.js`), steps, acpHttp) });
}
const names = Object.keys(builds[0].cases);
console.log(`| frame | ${dirs.map((d) => `${d} min / median µs`).join(" | ")} |`);
console.log(`|---|${dirs.map(() => "---:").join("|")}|`);
for (const name of names) {
  const times = builds.map(() => []);
  for (let r = -3; r < rounds; r++) {
    builds.forEach((b, k) => {
      let n = 0, spent = 0;
      while (spent < slice) {
        // The frame's preparation (the peer's call) and its answer are not timed.
        const handle = b.cases[name]();
        const t0 = cpuMs();
        const events = handle();
        spent += cpuMs() - t0;
        handle.after?.(events);
        n++;
      }
      if (r >= 0) times[k].push((spent * 1000) / n);
    });
  }
  const cell = (xs) => { const s = [...xs].sort((a, b) => a - b); return `${s[0].toFixed(2)} / ${s[s.length >> 1].toFixed(2)}`; };
  console.log(`| ${name} | ${times.map(cell).join(" | ")} |`);
}
