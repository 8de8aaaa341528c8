// A page's MCP server offered to its agent through the relay (AcpConnection.hostMcpServer):
// the agent's side is the official MCP SDK's Streamable HTTP client, as a real agent would use
// it; the page's side is agentwire over the relay's WebSocket (Node with `ws`).
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { WebSocket } from "ws";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { AcpClient, ProtocolError, codes, later } from "./helpers.mjs";
import { relayWithMcp } from "./http-peers.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
let relay;
before(async () => {
  relay = await relayWithMcp(["--agent", `demo=${join(root, "target/release/agentwire-demo-agent")}`]);
});
after(() => relay?.close());

/** The page: an ACP client of the demo agent through the relay, as the relay's own page. */
async function page() {
  const origin = relay.base;
  const Ws = class extends WebSocket { constructor(url, protocols) { super(url, protocols, { origin }); } };
  const acp = await AcpClient.connect(`${relay.base.replace("http", "ws")}/ws?token=${relay.token}&agent=demo`, { WebSocket: Ws, clientInfo: { name: "ide", version: "1" } });
  await acp.initialize();
  return acp;
}

/** What the agent answers to a prompt, its message chunks joined. */
async function agentSays(session, text) {
  const parts = [];
  const off = session.onUpdate((u) => { if (u.sessionUpdate === "agent_message_chunk") parts.push(u.content.text); });
  await session.prompt([{ type: "text", text }]);
  off();
  return parts.join("");
}

/** The agent's side: the official SDK's client on the hosted entry. */
async function agentClient(entry, capabilities = {}) {
  const headers = Object.fromEntries(entry.headers.map((h) => [h.name, h.value]));
  const client = new Client({ name: "agent", version: "1" }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers } }));
  return client;
}

test("the agent lists and calls the page's tools; progress, an elicitation back to the agent and list_changed flow both ways", { timeout: 20_000 }, async () => {
  const acp = await page();
  const calls = [];
  const servers = [];
  const entry = await acp.hostMcpServer({
    name: "ide",
    serverInfo: { name: "ide-tools", version: "1" },
    capabilities: { tools: { listChanged: true } },
    setup: (server, { session }) => {
      servers.push({ server, session });
      server.onRequest("tools/list", () => ({ tools: [{ name: "open_editors", description: "The files open in the editor", inputSchema: { type: "object", properties: {} } }] }));
      server.onRequest("tools/call", async (params) => {
        calls.push(params.name);
        const token = params._meta?.progressToken;
        if (token !== undefined) await server.notify("notifications/progress", { progressToken: token, progress: 1, total: 1 });
        const answer = await server.request("elicitation/create", { mode: "form", message: "Which one?", requestedSchema: { type: "object", properties: { file: { type: "string" } } } });
        return { content: [{ type: "text", text: `main.rs, lib.rs; picked ${answer.content.file}` }] };
      });
    },
  });
  assert.deepEqual({ ...entry, url: "U", headers: entry.headers.map((h) => h.name) }, { type: "http", name: "ide", url: "U", headers: ["Authorization"] });
  assert.match(entry.url, new RegExp(`^${relay.base}/hosted/[0-9a-f]{32}$`));

  const client = await agentClient(entry, { elicitation: {} });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { file: "lib.rs" } }));
  const changed = new Promise((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, resolve));
  assert.equal(client.getServerVersion().name, "ide-tools");
  assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ["open_editors"]);
  const progress = [];
  const result = await client.callTool({ name: "open_editors", arguments: {} }, undefined, { onprogress: (p) => progress.push(p.progress) });
  assert.equal(result.content[0].text, "main.rs, lib.rs; picked lib.rs");
  assert.deepEqual(progress, [1]);
  assert.deepEqual(calls, ["open_editors"]);
  // A notification the page's server sends unasked reaches the agent on its GET stream.
  await later(100); // the SDK opens its GET stream after initialize, in the background
  await servers[0].server.notify("notifications/tools/list_changed");
  await changed;

  // The agent gives up on a call: its cancellation reaches the page's server, which is told
  // (the `cancelled` event).
  const events = [];
  servers[0].server.onEvent((ev) => events.push(ev.type));
  let release;
  servers[0].server.onRequest("tools/call", () => new Promise((resolve) => { release = resolve; }));
  const abort = new AbortController();
  const call = client.callTool({ name: "open_editors", arguments: {} }, undefined, { signal: abort.signal });
  while (!release) await later(10);
  abort.abort("the user moved on");
  await assert.rejects(call, /the user moved on/);
  while (!events.includes("cancelled")) await later(10);
  release({ content: [{ type: "text", text: "too late" }] });

  // A second MCP session of the agent gets a server of its own.
  const second = await agentClient(entry);
  await second.listTools();
  assert.equal(servers.length, 2);
  assert.notEqual(servers[0].session, servers[1].session);
  await client.close();
  await second.close();
  acp.close();
});

test("the page's server answers only while its connection lives; a second name is refused; without a relay it times out", { timeout: 20_000 }, async () => {
  const acp = await page();
  const entry = await acp.hostMcpServer({ name: "ide", serverInfo: { name: "ide-tools", version: "1" }, capabilities: { tools: {} }, setup: (s) => s.onRequest("tools/list", () => ({ tools: [] })) });
  await assert.rejects(acp.hostMcpServer({ name: "ide" }), (e) => e instanceof ProtocolError && e.code === codes.LOCAL_REFUSAL && /already hosts/.test(e.message));
  const client = await agentClient(entry);
  assert.deepEqual((await client.listTools()).tools, []);
  acp.close();
  await later(200);
  await assert.rejects(client.listTools(), /404|ended|left/);
  const gone = await fetch(entry.url, { method: "POST", headers: { authorization: entry.headers[0].value, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "a", version: "1" } } }) });
  assert.equal(gone.status, 404);

  // An ACP connection that is not through the relay: nobody answers the hosting request.
  // And an agent that takes no HTTP MCP servers is told apart before anything is asked.
  const agentAnswering = (caps) => {
    const t = { send: (text) => {
      const m = JSON.parse(text);
      if (m.method === "initialize") queueMicrotask(() => t.onmessage({ data: JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: 1, agentCapabilities: caps } }) }));
    } };
    return t;
  };
  const direct = await AcpClient.connect(agentAnswering({ mcpCapabilities: { http: true } }), { clientInfo: { name: "ide", version: "1" }, protocolVersions: [1] });
  await direct.initialize();
  await assert.rejects(direct.hostMcpServer({ name: "x", timeoutMs: 100 }), (e) => e.code === codes.TIMEOUT && /through agentwire's relay/.test(e.message));
  direct.close();
  const stdioOnly = await AcpClient.connect(agentAnswering({}), { clientInfo: { name: "ide", version: "1" }, protocolVersions: [1] });
  await stdioOnly.initialize();
  await assert.rejects(stdioOnly.hostMcpServer({ name: "x" }), (e) => e.code === codes.LOCAL_REFUSAL && e.data.capability === "mcp.http" && /mcpCapabilities\.http/.test(e.message));
  stdioOnly.close();
});

test("the demo agent, given the hosted server in session/new, lists the page's tools and calls one", { timeout: 20_000 }, async () => {
  const acp = await page();
  const seen = [];
  const entry = await acp.hostMcpServer({
    name: "ide",
    serverInfo: { name: "ide-tools", version: "1" },
    capabilities: { tools: {} },
    setup: (server) => {
      server.onRequest("tools/list", () => ({ tools: [{ name: "open_editors", description: "The files open in the editor", inputSchema: { type: "object" } }] }));
      server.onRequest("tools/call", (params) => {
        seen.push(params);
        return params.name === "open_editors"
          ? { content: [{ type: "text", text: `main.rs (limit ${params.arguments.limit})` }] }
          : { content: [{ type: "text", text: "no such tool" }], isError: true };
      });
    },
  });
  const session = await acp.newSession({ cwd: "/tmp", mcpServers: [entry] });
  const said = (text) => agentSays(session, text);
  assert.equal(await said("tools"), "The MCP servers of this session offer:\n- ide: open_editors — The files open in the editor");
  assert.equal(await said('use open_editors {"limit": 2}'), "open_editors answered: main.rs (limit 2)");
  assert.deepEqual(seen.map((p) => [p.name, p.arguments]), [["open_editors", { limit: 2 }]]);
  assert.equal(await said("use close_all {}"), "close_all failed: no MCP server of this session has a tool named close_all");
  acp.close();
});

/** The release demo agent over stdio, saving its sessions in a folder of its own that is
 * removed once its process has exited (after the test). */
async function demoAgent(t, prefix) {
  const { stdioTransport } = await import("./helpers.mjs");
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const agent = await stdioTransport(join(root, "target/release/agentwire-demo-agent"), ["--data-dir", dir]);
  const exited = new Promise((resolve) => agent.child.once("exit", resolve));
  t.after(async () => {
    agent.close();
    await exited;
    rmSync(dir, { recursive: true, force: true });
  });
  return agent;
}

test("MCP over ACP: with an agent that advertises it and allowUnstable, the page's server rides the ACP connection itself (no relay)", { timeout: 20_000 }, async (t) => {
  const agent = await demoAgent(t, "agentwire-mcp-acp-");
  const acp = await AcpClient.connect(agent, { clientInfo: { name: "ide", version: "1" }, allowUnstable: true });
  const frames = [];
  acp.onFrame((f) => frames.push(JSON.parse(f.text)));
  const violations = [];
  acp.onViolation((v) => violations.push(v));
  await acp.initialize();
  const seen = [];
  const entry = await acp.hostMcpServer({
    name: "ide", serverInfo: { name: "ide-tools", version: "1" }, capabilities: { tools: {} },
    setup: (server) => {
      server.onRequest("tools/list", () => ({ tools: [{ name: "open_editors", description: "The files open in the editor", inputSchema: { type: "object" } }] }));
      server.onRequest("tools/call", (params) => {
        seen.push(params.arguments);
        return { content: [{ type: "text", text: `main.rs (limit ${params.arguments.limit})` }] };
      });
    },
  });
  assert.equal(entry.type, "acp");
  assert.match(entry.serverId, /^ide-[0-9a-f]{16}$/);
  const session = await acp.newSession({ cwd: "/tmp", mcpServers: [entry] });
  const said = (text) => agentSays(session, text);
  assert.equal(await said("tools"), "The MCP servers of this session offer:\n- ide: open_editors — The files open in the editor");
  assert.equal(await said('use open_editors {"limit": 3}'), "open_editors answered: main.rs (limit 3)");
  assert.deepEqual(seen, [{ limit: 3 }]);
  // One MCP session for both turns: each MCP message went as an mcp/message request naming the
  // server, every frame valid against the ACP schema.
  const asked = frames.filter((m) => m.method === "mcp/message");
  assert.deepEqual(asked.map((m) => m.params.method), ["initialize", "notifications/initialized", "tools/list", "tools/list", "tools/call"]);
  assert.ok(asked.every((m) => m.params.serverId === entry.serverId && typeof m.params.requestId === "string"));
  assert.deepEqual(violations, []);
  // Forcing the relay route on a connection without a relay times out, naming why.
  await assert.rejects(acp.hostMcpServer({ name: "other", route: "http", timeoutMs: 100 }), /through agentwire's relay/);
  acp.close();
});

test("the route follows what the agent advertises and what the connection allows", { timeout: 20_000 }, async (t) => {
  const agent = await demoAgent(t, "agentwire-route-");
  // The demo agent advertises MCP over ACP, but without allowUnstable the relay route is the one left.
  const acp = await AcpClient.connect(agent, { clientInfo: { name: "ide", version: "1" } });
  await acp.initialize();
  await assert.rejects(acp.hostMcpServer({ name: "x", route: "acp" }), (e) => e.code === codes.LOCAL_REFUSAL && e.data.capability === "allowUnstable");
  await assert.rejects(acp.hostMcpServer({ name: "x", route: "sideways" }), (e) => e.code === codes.INVALID_PARAMS);
  await assert.rejects(acp.hostMcpServer({ name: "x", timeoutMs: 100 }), (e) => e.code === codes.TIMEOUT, "auto took the relay route");
  acp.close();
});
