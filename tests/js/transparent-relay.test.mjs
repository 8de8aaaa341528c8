// The relay is transparent to WebSocket clients that do not ask for its frames: the official
// ACP SDK's WebSocket client runs a whole turn with a permission request through it, and the
// official MCP SDK's WebSocket client (which offers the `mcp` subprotocol) lists and calls
// tools; neither sees a frame that is not the agent's, and an idle minute carries none.
// agentwire's own client asks for the relay's frames with the `agentwire.relay` subprotocol.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WebSocket as WsSocket } from "ws";
import { client } from "acp-sdk-v2";
import { createWebSocketStream } from "acp-sdk-v2/experimental/ws-client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { WebSocketClientTransport } from "@modelcontextprotocol/sdk/client/websocket.js";
import { AcpClient, later } from "./helpers.mjs";
import { relayWithMcp } from "./http-peers.mjs";

const ROOT = join(import.meta.dirname, "..", "..");
const DEMO = join(ROOT, "target/release/agentwire-demo-agent");

/** A `ws` WebSocket that records every frame it receives (as text) into `frames`. */
function recording(frames) {
  return class extends WsSocket {
    constructor(...args) {
      super(...args);
      this.on("message", (data) => frames.push(String(data)));
    }
  };
}

const relayFrame = (f) => f.trimStart().startsWith('{"relay":');

test("the official ACP SDK's WebSocket client runs a permission turn through the relay and sees only the agent", async (t) => {
  // Node's clients send no Origin: the relay must be told to take them.
  const relay = await relayWithMcp(["--allow-missing-origin", "--agent", `demo=${DEMO}`]);
  t.after(() => relay.close());
  const frames = [];
  const url = `${relay.base.replace("http", "ws")}/ws?token=${relay.token}&agent=demo`;
  const stream = createWebSocketStream(url, { WebSocket: recording(frames) });
  const asked = [];
  const updates = [];
  const connection = client({ name: "sdk-ws" })
    .onRequest("session/request_permission", ({ params }) => {
      asked.push(params);
      return { outcome: { outcome: "selected", optionId: params.options.find((o) => o.kind === "allow_once").optionId } };
    })
    .onNotification("session/update", ({ params }) => { updates.push(params.update); })
    .connect(stream);
  const agent = connection.agent;
  const init = await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: "sdk-ws", version: "1" } });
  assert.equal(init.protocolVersion, 1);
  const { sessionId } = await agent.request("session/new", { cwd: "/tmp", mcpServers: [] });
  const { stopReason } = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "permission please" }] });
  assert.equal(stopReason, "end_turn");
  assert.equal(asked.length, 1, "the permission request reached the SDK's handler");
  assert.ok(updates.some((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed"), JSON.stringify(updates));
  assert.ok(frames.length > 3);
  assert.deepEqual(frames.filter(relayFrame), [], "no relay frame");
  for (const f of frames) assert.equal(JSON.parse(f).jsonrpc, "2.0", f);
  // An idle minute: not one frame either way.
  const before = frames.length;
  await later(60_000);
  assert.equal(frames.length, before, `frames while idle: ${frames.slice(before).join("\n")}`);
  connection.close();
});

test("the official MCP SDK's WebSocket client (subprotocol mcp) lists and calls tools through the relay", async (t) => {
  const relay = await relayWithMcp(["--allow-missing-origin"]);
  t.after(() => relay.close());
  const frames = [];
  const url = new URL(`${relay.base.replace("http", "ws")}/ws?token=${relay.token}&agent=demo-mcp`);
  const saved = globalThis.WebSocket;
  globalThis.WebSocket = recording(frames); // the SDK's transport uses the global WebSocket
  t.after(() => { globalThis.WebSocket = saved; });
  const mcp = new Client({ name: "sdk-ws", version: "1" });
  await mcp.connect(new WebSocketClientTransport(url));
  const { tools } = await mcp.listTools();
  assert.ok(tools.some((x) => x.name === "echo"), tools.map((x) => x.name).join());
  const result = await mcp.callTool({ name: "echo", arguments: { message: "through" } });
  assert.match(JSON.stringify(result.content), /through/);
  assert.deepEqual(frames.filter(relayFrame), []);
  await mcp.close();
});

test("agentwire's client asks for the relay's frames and gets them; relay: false makes it a plain client", async (t) => {
  const relay = await relayWithMcp(["--agent", `demo=${DEMO}`]);
  t.after(() => relay.close());
  const url = `${relay.base.replace("http", "ws")}/ws?token=${relay.token}&agent=demo`;
  const origin = relay.base;
  const Origin = class extends WsSocket {
    constructor(u, protocols, opts) { super(u, protocols, { ...opts, origin }); }
  };
  const withEvents = await AcpClient.connect(url, { WebSocket: Origin, clientInfo: { name: "t", version: "1" } });
  const events = [];
  withEvents.onRelay((e) => events.push(e));
  await withEvents.initialize();
  await later(100);
  assert.ok(events.some((e) => e.event === "spawned"), JSON.stringify(events));
  withEvents.close();
  const plain = await AcpClient.connect(url, { WebSocket: Origin, relay: false, clientInfo: { name: "t", version: "1" } });
  const none = [];
  plain.onRelay((e) => none.push(e));
  await plain.initialize();
  await later(100);
  assert.deepEqual(none, []);
  // Hosting a page's server needs the relay's frames: refused at once, saying how to ask.
  await assert.rejects(plain.hostMcpServer({ name: "ide", setup: () => {} }), (e) => e.code === -32602 && /agentwire\.relay/.test(e.message));
  plain.close();
});
