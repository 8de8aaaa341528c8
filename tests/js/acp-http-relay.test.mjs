// The relay's ACP-over-HTTP endpoint (`/acp/<agent>`) with clients nobody here wrote: the
// official TS SDK's HTTP client (`createHttpStream`, @agentclientprotocol/sdk 2.4.0) driving
// the official SDK's example agent (run over stdio by the relay) through a prompt turn with a
// permission request, and reconnecting with session/load; and acp-http-client 0.4.2.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import * as acp from "acp-sdk-v2";
import { createHttpStream, MemoryAcpCookieStore } from "acp-sdk-v2/experimental/http-client";
import { AcpHttpClient } from "acp-http-client";
const later = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
import { relayWithMcp } from "./http-peers.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const example = join(root, "node_modules/@agentclientprotocol/sdk/dist/examples/agent.js");
const mini = join(root, "relay/tests/fixtures/mini-acp.mjs");
const relay = await relayWithMcp(["--agent", `example=node ${example}`, "--agent", `mini=node ${mini}`]);
after(() => relay.close());
const auth = { Authorization: `Bearer ${relay.token}` };

async function until(what, check) {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await later(25);
  }
  assert.fail(`never: ${what}`);
}

test("the official SDK's createHttpStream drives the SDK's example agent through the relay: a prompt turn with a permission request", async () => {
  const stream = createHttpStream(`${relay.base}/acp/example`, { headers: auth });
  const updates = [];
  let asked;
  const { initialized, session, result, processes } = await acp
    .client({ name: "relay-test" })
    .onRequest(acp.methods.client.session.requestPermission, (ctx) => {
      asked = ctx.params;
      return { outcome: { outcome: "selected", optionId: "allow" } };
    })
    .onNotification(acp.methods.client.session.update, (ctx) => {
      updates.push(ctx.params.update);
    })
    .connectWith(stream, async (ctx) => {
      const initialized = await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      const session = await ctx.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
      const result = await ctx.request(acp.methods.agent.session.prompt, { sessionId: session.sessionId, prompt: [{ type: "text", text: "Hello over HTTP" }] });
      // Counted while the connection is open: connectWith closes it (DELETE) once this returns.
      return { initialized, session, result, processes: relay.pids().length };
    });
  assert.equal(initialized.protocolVersion, 1);
  assert.match(initialized.connectionId, /^[0-9a-f]{64}$/, "the RFD's initialize answer names the connection");
  assert.match(session.sessionId, /^[0-9a-f]{32}$/);
  assert.equal(asked.sessionId, session.sessionId);
  assert.equal(asked.toolCall.toolCallId, "call_2");
  assert.equal(result.stopReason, "end_turn");
  assert.ok(updates.some((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "call_2" && u.status === "completed"),
    "the agent saw the permission granted");
  assert.match(updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join(""), /successfully updated the configuration/);
  assert.equal(processes, 1, "one process for the connection");
  // connectWith closed the stream when its work was done: DELETE.
  await until("the connection's process ended", () => relay.pids().length === 0);
});

test("the official SDK's WebSocket client (createWebSocketStream, Node's ws) on the same endpoint: the upgrade, a turn with a permission request, the process ending with the socket", async () => {
  const { createWebSocketStream } = await import("acp-sdk-v2/experimental/ws-client");
  const { WebSocket } = await import("ws");
  const stream = createWebSocketStream(`${relay.base.replace("http:", "ws:")}/acp/example`, { WebSocket, headers: auth });
  let asked;
  const result = await acp.client({ name: "relay-test" })
    .onRequest(acp.methods.client.session.requestPermission, (ctx) => {
      asked = ctx.params.toolCall.toolCallId;
      return { outcome: { outcome: "selected", optionId: "reject" } };
    })
    .connectWith(stream, async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
      assert.equal(relay.pids().length, 1);
      return ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "over a WebSocket" }] });
    });
  assert.equal(asked, "call_2");
  assert.equal(result.stopReason, "end_turn");
  await until("the process ended with the socket", () => relay.pids().length === 0);
});

test("the official SDK's reconnect flow: a new connection, initialize, then session/load with its session stream opened first", async () => {
  const cookieStore = new MemoryAcpCookieStore();
  const texts = [];
  const connect = () => acp.client({ name: "relay-test" })
    .onNotification(acp.methods.client.session.update, (ctx) => { texts.push(ctx.params.update.content.text); });
  const first = createHttpStream(`${relay.base}/acp/mini`, { headers: auth, cookieStore });
  const sessionId = await connect().connectWith(first, async (ctx) => {
    await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    assert.equal((await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "one" }] })).stopReason, "end_turn");
    return sessionId;
  });
  const second = createHttpStream(`${relay.base}/acp/mini`, { headers: auth, cookieStore });
  await connect().connectWith(second, async (ctx) => {
    const init = await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    assert.equal(init.agentCapabilities.loadSession, true);
    await ctx.request(acp.methods.agent.session.load, { sessionId, cwd: root, mcpServers: [] });
    assert.equal((await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "two" }] })).stopReason, "end_turn");
  });
  assert.deepEqual(texts, ["echo one", "replayed", "echo two"]);
  await until("both processes ended", () => relay.pids().length === 0);
});

test("acp-http-client 0.4.2: its initialize through the relay; its stream, naming no connection, gets the RFD's 400 at once", async () => {
  // acp-http-client speaks an earlier single-stream dialect: it never sends Acp-Connection-Id
  // and reads one GET stream. Its initialize is answered as the RFD says (200, the answer in
  // the body); its GET without the header is refused with 400, never left hanging.
  const seen = [];
  const observed = async (url, init = {}) => {
    const response = await fetch(url, init);
    seen.push(`${init.method} ${response.status}`);
    return response;
  };
  const client = new AcpHttpClient({ baseUrl: relay.base, token: relay.token, fetch: observed, transport: { path: "/acp/example" } });
  const init = await client.initialize({ protocolVersion: 1, clientCapabilities: {} });
  assert.equal(init.protocolVersion, 1);
  assert.match(init.connectionId, /^[0-9a-f]{64}$/);
  await until("its stream was answered", () => seen.includes("GET 400"));
  assert.deepEqual(seen.sort(), ["GET 400", "POST 200"]);
  await client.disconnect();
  assert.ok(seen.includes("DELETE 400"), "its DELETE named no connection either");
  // The id in the initialize answer's body ends it.
  const gone = await fetch(`${relay.base}/acp/example`, { method: "DELETE", headers: { ...auth, "Acp-Connection-Id": init.connectionId } });
  assert.equal(gone.status, 202);
  await until("the process ended", () => relay.pids().length === 0);
});

test("acp-http-client 0.4.2 with its fetch hook adding the connection id: connection-scoped requests work, disconnect ends the process", async () => {
  let connection;
  const fetchWithConnection = async (url, init = {}) => {
    const headers = new Headers(init.headers);
    if (connection) headers.set("Acp-Connection-Id", connection);
    const response = await fetch(url, { ...init, headers });
    connection ??= response.headers.get("acp-connection-id") ?? undefined;
    return response;
  };
  const client = new AcpHttpClient({ baseUrl: relay.base, token: relay.token, fetch: fetchWithConnection, transport: { path: "/acp/example" } });
  await client.initialize({ protocolVersion: 1, clientCapabilities: {} });
  assert.match(connection, /^[0-9a-f]{64}$/);
  // session/new is answered on the connection's stream, the one stream this client reads.
  const { sessionId } = await client.newSession({ cwd: root, mcpServers: [] });
  assert.match(sessionId, /^[0-9a-f]{32}$/);
  assert.equal(relay.pids().length, 1);
  await client.disconnect(); // DELETE with the connection id
  await until("the process ended", () => relay.pids().length === 0);
});

test("a page on another origin the relay allows: the official SDK's client in Chromium, with its credentialed fetches, through a turn with a permission request", { timeout: 90000 }, async () => {
  const { createServer } = await import("node:http");
  const { build } = await import("esbuild");
  const bundled = await build({
    stdin: { contents: 'export * as acp from "acp-sdk-v2"; export { createHttpStream } from "acp-sdk-v2/experimental/http-client";', resolveDir: root },
    bundle: true, format: "esm", platform: "browser", write: false, logLevel: "silent",
  });
  const page = `<!doctype html><script type="module">
    import { acp, createHttpStream } from "/sdk.js";
    window.run = async (endpoint, token) => {
      const stream = createHttpStream(endpoint, { headers: { Authorization: "Bearer " + token } });
      let asked;
      const updates = [];
      const { initialized, result } = await acp.client({ name: "page" })
        .onRequest(acp.methods.client.session.requestPermission, (ctx) => {
          asked = ctx.params.toolCall.toolCallId;
          return { outcome: { outcome: "selected", optionId: "allow" } };
        })
        .onNotification(acp.methods.client.session.update, (ctx) => { updates.push(ctx.params.update.sessionUpdate); })
        .connectWith(stream, async (ctx) => {
          const initialized = await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
          const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: "/page", mcpServers: [] });
          const result = await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] });
          return { initialized, result };
        });
      return { version: initialized.protocolVersion, stopReason: result.stopReason, asked, completed: updates.includes("tool_call_update") };
    };
  </script>`;
  const server = createServer((req, res) => {
    if (req.url === "/") return res.writeHead(200, { "content-type": "text/html" }).end(page);
    if (req.url === "/sdk.js") return res.writeHead(200, { "content-type": "text/javascript" }).end(bundled.outputFiles[0].contents);
    res.writeHead(404).end();
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const other = await relayWithMcp(["--agent", `example=node ${example}`, "--allow-origin", origin]);
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
  try {
    const tab = await browser.newPage();
    const errors = [];
    tab.on("pageerror", (e) => errors.push(e.message));
    await tab.goto(`${origin}/`);
    await tab.waitForFunction(() => typeof window.run === "function");
    const result = await tab.evaluate(([endpoint, token]) => window.run(endpoint, token), [`${other.base}/acp/example`, other.token]);
    assert.deepEqual(errors, []);
    assert.deepEqual(result, { version: 1, stopReason: "end_turn", asked: "call_2", completed: true });
    await until("the page's connection ended (its DELETE)", () => other.pids().length === 0);
  } finally {
    await browser.close();
    other.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});
