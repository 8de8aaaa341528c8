// ACP over HTTP (the remote-transport RFD's Streamable HTTP, and its WebSocket upgrade), and
// reconnect-and-resume, against the official TypeScript SDK's server (`acp-sdk-v2` =
// @agentclientprotocol/sdk 2.4.0: AcpServer + createNodeHttpHandler) with an SDK agent behind it.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { AcpClient, later } from "./helpers.mjs";
import { agent } from "acp-sdk-v2";
import { AcpServer } from "acp-sdk-v2/experimental/server";
import { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } from "acp-sdk-v2/experimental/node";
import { WebSocketServer } from "ws";

const clientInfo = { name: "acp-http-test", version: "1.0.0" };

/**
 * An ACP v1 agent on the SDK whose sessions outlive connections, as the RFD says they do:
 * each session keeps its history and the connection it reports to (the one that created,
 * loaded or resumed it last). Prompts: "ask" asks permission first; "count N" streams N
 * chunks, `pauseMs` apart.
 */
function sdkAgent({ load = true, resume = false, pauseMs = 15 } = {}) {
  const sessions = new Map();
  let made = 0;
  const turns = [];
  async function emit(session, update) {
    session.history.push(update);
    try {
      await session.client.notify("session/update", { sessionId: session.id, update });
    } catch { /* the connection is gone: the history keeps it */ }
  }
  const app = agent()
    .onRequest("initialize", () => ({
      protocolVersion: 1,
      agentCapabilities: { loadSession: load, ...(resume ? { sessionCapabilities: { resume: {} } } : {}) },
      agentInfo: { name: "sdk-http-agent", version: "2.4.0" },
      authMethods: [],
    }))
    .onRequest("session/new", ({ client }) => {
      const id = `http_${++made}`;
      sessions.set(id, { id, history: [], client });
      return { sessionId: id };
    })
    .onRequest("session/load", async ({ params, client }) => {
      const session = sessions.get(params.sessionId);
      // Everything so far, then live updates go to this connection.
      for (const update of session.history) await client.notify("session/update", { sessionId: session.id, update });
      session.client = client;
      return {};
    })
    .onRequest("session/resume", ({ params, client }) => {
      sessions.get(params.sessionId).client = client;
      return {};
    })
    .onRequest("session/prompt", async ({ params, client }) => {
      const session = sessions.get(params.sessionId);
      const text = params.prompt.map((b) => b.text ?? "").join(" ");
      const turn = { done: false };
      turns.push(turn);
      if (text.startsWith("ask")) {
        await emit(session, { sessionUpdate: "tool_call", toolCallId: "t1", title: "write notes.md", kind: "edit", status: "pending" });
        const { outcome } = await client.request("session/request_permission", {
          sessionId: session.id,
          toolCall: { toolCallId: "t1", title: "write notes.md", kind: "edit", status: "pending" },
          options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }, { optionId: "deny", name: "Deny", kind: "reject_once" }],
        });
        await emit(session, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `chose ${outcome.optionId}` } });
      }
      const count = /count (\d+)/.exec(text);
      for (let i = 0; count && i < Number(count[1]); i++) {
        await emit(session, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `${i} ` } });
        await later(pauseMs);
      }
      turn.done = true;
      return { stopReason: "end_turn" };
    });
  return { app, sessions, turns };
}

/** The SDK's HTTP server on a loopback port, every request logged, each socket kept to be killed. */
async function sdkServer(app, { cookie = true, websocket = false } = {}) {
  const acp = new AcpServer({ agent: app });
  const handle = createNodeHttpHandler(acp);
  const log = [];
  const sockets = new Set();
  const server = createServer((req, res) => {
    log.push({ method: req.method, connection: req.headers["acp-connection-id"], session: req.headers["acp-session-id"], cookie: req.headers.cookie });
    // A load balancer's affinity cookie, set with the connection.
    if (cookie && req.method === "POST" && !req.headers["acp-connection-id"]) res.setHeader("set-cookie", ["affinity=backend-7; Path=/; HttpOnly", "gone=x; Max-Age=0"]);
    handle(req, res);
  });
  server.on("connection", (s) => { sockets.add(s); s.on("close", () => sockets.delete(s)); });
  if (websocket) {
    const wss = new WebSocketServer({ noServer: true });
    const upgrade = createNodeWebSocketUpgradeHandler(acp, wss);
    server.on("upgrade", (req, socket, head) => {
      log.push({ method: "GET", upgrade: req.headers.upgrade, cookie: req.headers.cookie });
      upgrade(req, socket, head);
    });
  }
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${server.address().port}/acp`;
  return {
    url, log,
    /** Destroys every socket of the server: the client's streams and requests break. */
    kill() { for (const s of sockets) s.destroy(); },
    async stop() { for (const s of sockets) s.destroy(); await acp.close(); await new Promise((r) => server.close(r)); },
  };
}

const until = async (what, ok, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await later(10);
  }
};
const texts = (updates) => updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text);

test("over HTTP: initialize (200, Acp-Connection-Id), session/new, a prompt turn with a permission request on the session's stream, cookies, DELETE on close", async () => {
  const { app } = sdkAgent();
  const server = await sdkServer(app);
  try {
    const acp = await AcpClient.connect(server.url, { clientInfo, protocolVersions: [1] });
    const frames = [];
    acp.onFrame((f) => frames.push(f));
    const asked = [];
    acp.onRequest("session/request_permission", (params) => {
      asked.push(params);
      return { outcome: { outcome: "selected", optionId: "allow" } };
    });
    const init = await acp.initialize();
    assert.equal(init.protocolVersion, 1);
    assert.equal(init.agentCapabilities.loadSession, true);
    const session = await acp.newSession({ cwd: "/work", mcpServers: [] });
    const connectionId = server.log.find((r) => r.connection)?.connection;
    assert.match(connectionId, /\S{8,}/, "the requests after initialize name the connection");
    assert.equal(session.id, "http_1");
    const updates = [];
    session.onUpdate((u) => updates.push(u));
    const { stopReason } = await session.prompt([{ type: "text", text: "ask, then count 3" }]);
    assert.equal(stopReason, "end_turn");
    assert.equal(asked.length, 1);
    assert.equal(asked[0].sessionId, "http_1");
    assert.deepEqual(texts(updates), ["chose allow", "0 ", "1 ", "2 "]);
    assert.equal(updates[0].sessionUpdate, "tool_call");

    // The wire: initialize POSTed alone; then the connection's stream; the session's stream;
    // the session's POSTs (prompt, the permission answer) with both ids.
    const [first, ...rest] = server.log;
    assert.deepEqual([first.method, first.connection, first.session], ["POST", undefined, undefined]);
    assert.ok(rest.every((r) => r.connection === connectionId), "every later request names the connection");
    assert.ok(rest.some((r) => r.method === "GET" && r.session === undefined), "the connection's stream");
    assert.ok(rest.some((r) => r.method === "GET" && r.session === "http_1"), "the session's stream");
    assert.equal(rest.filter((r) => r.method === "POST" && r.session === "http_1").length, 2, "the prompt and the permission answer name the session");
    // Cookies: the affinity cookie goes back with every later request; the expired one never.
    assert.ok(rest.every((r) => r.cookie === "affinity=backend-7"), JSON.stringify(rest.map((r) => r.cookie)));
    // The frames say which stream carried what.
    const answer = frames.find((f) => f.direction === "in" && f.text.includes('"stopReason"'));
    assert.equal(answer.http.sessionId, "http_1");

    acp.close();
    await until("the DELETE", () => server.log.some((r) => r.method === "DELETE"));
    const del = server.log.find((r) => r.method === "DELETE");
    assert.equal(del.connection, connectionId);
    assert.equal(del.cookie, "affinity=backend-7");
  } finally {
    await server.stop();
  }
});

test("reconnect: a connection killed mid-turn is reconnected, the session loaded, and the app sees every update once", async () => {
  const agentSide = sdkAgent({ load: true });
  const server = await sdkServer(agentSide.app);
  try {
    const acp = await AcpClient.connect(server.url, { clientInfo, protocolVersions: [1], reconnect: { delayMs: 50 } });
    const events = [];
    acp.onDisconnected((ev) => events.push(ev));
    acp.onReconnected((ev) => events.push(ev));
    await acp.initialize();
    const session = await acp.newSession({ cwd: "/work", mcpServers: [] });
    const updates = [];
    session.onUpdate((u) => updates.push(u));
    const all = [];
    acp.onUpdate((id, u) => all.push(id));

    const N = 40;
    const turn = session.prompt([{ type: "text", text: `count ${N}` }]);
    // Killed while the turn runs: every socket of the server dies.
    await until("a few chunks", () => updates.length >= 5);
    server.kill();
    const dropped = await turn.then(() => null, (e) => e);
    assert.ok(dropped, "the turn at the drop rejects, it does not hang");
    assert.equal(dropped.code, -32098);
    assert.equal(dropped.data.reconnecting, true);
    assert.match(dropped.message, /prompt turn/);

    await until("the reconnection", () => events.some((e) => e.type === "reconnected"));
    const [down, up] = events;
    assert.equal(down.type, "disconnected");
    assert.equal(up.type, "reconnected");
    assert.equal(up.sessions.length, 1);
    const [resumed] = up.sessions;
    assert.equal(resumed.sessionId, session.id);
    assert.equal(resumed.method, "session/load");
    assert.equal(resumed.replayed, true);
    assert.equal(resumed.error, undefined);
    assert.ok(resumed.skipped >= 5, `the replayed updates the app had were skipped (${resumed.skipped})`);

    // The turn goes on at the agent; its chunks reach the app once each, in order.
    await until("the turn's end at the agent", () => agentSide.turns[0].done);
    await until("every chunk", () => updates.length >= N);
    await later(100);
    const expected = Array.from({ length: N }, (_, i) => `${i} `);
    assert.deepEqual(texts(updates), expected, "nothing lost, nothing doubled");
    assert.equal(all.length, N);
    assert.deepEqual(updates, agentSide.sessions.get(session.id).history);
    // The transcript (of the new connection's session, from the replay and what followed) too.
    const entries = session.transcript().entries.filter((e) => e.kind === "message");
    assert.equal(entries.map((e) => e.content.map((c) => c.text).join("")).join(""), expected.join(""));

    // A new connection: the second initialize had no connection id, and the rest name the new one.
    const inits = server.log.filter((r) => r.method === "POST" && !r.connection);
    assert.equal(inits.length, 2);
    assert.ok(inits[1].cookie === "affinity=backend-7", "the affinity cookie goes with the new initialize");

    // The connection works on: another prompt.
    const { stopReason } = await session.prompt([{ type: "text", text: "count 2" }]);
    assert.equal(stopReason, "end_turn");
    assert.deepEqual(texts(updates).slice(N), ["0 ", "1 "]);
    acp.close();
  } finally {
    await server.stop();
  }
});

test("reconnect: a long history replayed on the session's stream while the answer to session/load comes on the connection's: still each update once", async () => {
  // The RFD puts the answer to session/load on the connection's stream and the replay on the
  // session's: the answer may come first, with most of the replay still on its way.
  const agentSide = sdkAgent({ load: true, pauseMs: 0 });
  const server = await sdkServer(agentSide.app);
  try {
    const acp = await AcpClient.connect(server.url, { clientInfo, protocolVersions: [1], reconnect: { delayMs: 20 } });
    const up = new Promise((r) => acp.onReconnected(r));
    await acp.initialize();
    const session = await acp.newSession({ cwd: "/work", mcpServers: [] });
    let count = 0;
    session.onUpdate(() => count++);
    await session.prompt([{ type: "text", text: "count 2000" }]);
    assert.equal(count, 2000);
    server.kill();
    const { sessions: [report] } = await up;
    assert.deepEqual([report.method, report.skipped, report.delivered], ["session/load", 2000, 0], "the event comes once the replay is matched");
    await later(300);
    assert.equal(count, 2000, "nothing doubled");
    await session.prompt([{ type: "text", text: "count 1" }]);
    assert.equal(count, 2001);
    acp.close();
  } finally {
    await server.stop();
  }
});

test("reconnect: an agent that only resumes (no replay) keeps the transcript whole from what the app had", async () => {
  const agentSide = sdkAgent({ load: false, resume: true });
  const server = await sdkServer(agentSide.app);
  try {
    const acp = await AcpClient.connect(server.url, { clientInfo, protocolVersions: [1], reconnect: { delayMs: 50 } });
    const up = new Promise((r) => acp.onReconnected(r));
    await acp.initialize();
    const session = await acp.newSession({ cwd: "/work", mcpServers: [] });
    const updates = [];
    session.onUpdate((u) => updates.push(u));
    await session.prompt([{ type: "text", text: "count 3" }]);
    server.kill();
    const { sessions: [resumed] } = await up;
    assert.deepEqual([resumed.method, resumed.replayed, resumed.error], ["session/resume", false, undefined]);
    assert.equal(updates.length, 3, "nothing delivered twice");
    const text = () => session.transcript().entries.filter((e) => e.kind === "message").map((e) => e.content.map((c) => c.text).join("")).join("");
    assert.equal(text(), "0 1 2 ", "the new session's transcript has what came before the drop");
    await session.prompt([{ type: "text", text: "count 2" }]);
    assert.equal(text(), "0 1 2 0 1 ");
    assert.equal(updates.length, 5);
    acp.close();
  } finally {
    await server.stop();
  }
});

test("without reconnect, a dropped connection rejects what is pending at once and closes", async () => {
  const { app } = sdkAgent({ pauseMs: 50 });
  const server = await sdkServer(app);
  try {
    const acp = await AcpClient.connect(server.url, { clientInfo, protocolVersions: [1] });
    const closed = new Promise((r) => acp.onClose(r));
    await acp.initialize();
    const session = await acp.newSession({ cwd: "/work", mcpServers: [] });
    const turn = session.prompt([{ type: "text", text: "count 100" }]);
    await later(120);
    server.kill();
    const e = await turn.then(() => null, (x) => x);
    assert.equal(e?.code, -32098);
    const { error } = await closed;
    assert.match(error.message, /event stream/);
    await assert.rejects(session.prompt([{ type: "text", text: "again" }]), (x) => x.code === -32098);
  } finally {
    await server.stop();
  }
});

test("the WebSocket upgrade of the same endpoint (transport: \"websocket\")", async () => {
  const { app } = sdkAgent();
  const server = await sdkServer(app, { websocket: true });
  try {
    const acp = await AcpClient.connect(server.url, { clientInfo, protocolVersions: [1], transport: "websocket" });
    acp.onRequest("session/request_permission", () => ({ outcome: { outcome: "selected", optionId: "deny" } }));
    await acp.initialize();
    const session = await acp.newSession({ cwd: "/work", mcpServers: [] });
    const updates = [];
    session.onUpdate((u) => updates.push(u));
    assert.equal((await session.prompt([{ type: "text", text: "ask" }])).stopReason, "end_turn");
    assert.deepEqual(texts(updates), ["chose deny"]);
    assert.deepEqual(server.log.map((r) => [r.method, r.upgrade]), [["GET", "websocket"]], "one GET, the upgrade; no POST");
    acp.close();
  } finally {
    await server.stop();
  }
});

test("an endpoint that takes only the WebSocket (POST refused 405): the client upgrades by itself; reconnect works over it too", async () => {
  const { app, sessions } = sdkAgent();
  const acpServer = new AcpServer({ agent: app });
  const wss = new WebSocketServer({ noServer: true });
  const upgrade = createNodeWebSocketUpgradeHandler(acpServer, wss);
  const seen = [];
  const sockets = new Set();
  const server = createServer((req, res) => {
    seen.push(req.method);
    res.writeHead(405, { allow: "GET" }).end("WebSocket only");
  });
  server.on("connection", (s) => { sockets.add(s); s.on("close", () => sockets.delete(s)); });
  server.on("upgrade", (req, socket, head) => { seen.push("upgrade"); upgrade(req, socket, head); });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  try {
    const acp = await AcpClient.connect(`http://127.0.0.1:${server.address().port}/acp`, { clientInfo, protocolVersions: [1], reconnect: { delayMs: 50 } });
    const up = new Promise((r) => acp.onReconnected(r));
    await acp.initialize();
    assert.deepEqual(seen, ["POST", "upgrade"]);
    const session = await acp.newSession({ cwd: "/work", mcpServers: [] });
    const updates = [];
    session.onUpdate((u) => updates.push(u));
    await session.prompt([{ type: "text", text: "count 3" }]);
    for (const s of sockets) s.destroy();
    const { sessions: [report] } = await up;
    assert.deepEqual([report.method, report.replayed, report.skipped, report.delivered], ["session/load", true, 3, 0]);
    await session.prompt([{ type: "text", text: "count 1" }]);
    assert.deepEqual(texts(updates), ["0 ", "1 ", "2 ", "0 "]);
    assert.equal(sessions.get(session.id).history.length, 4);
    acp.close();
  } finally {
    for (const s of sockets) s.destroy();
    await acpServer.close();
    await new Promise((r) => server.close(r));
  }
});

/** A hand-written endpoint for what the SDK's server never does. */
async function rawServer(handler) {
  const server = createServer(handler);
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}/acp`, stop: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) };
}

test("the event stream's reader: a chunk's messages as they came, cut anywhere; other events skipped; an id spotted without a parse", async () => {
  const { createRequire } = await import("node:module");
  const { SseDecoder } = createRequire(import.meta.url)("../../pkg/node/agentwire.js");
  const { messages, mayHaveId } = await import("../../pkg/acp-http.js");
  const update = JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "é 😀 \"q\" \\ \t" } } } });
  const request = '{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{}}';
  const stream = `: open\n\nevent: ping\ndata: {}\n\ndata: ${update}\r\nid: 1\r\n\r\ndata: first line\ndata: second line\n\nid: 2\n\ndata:\n\ndata: ${request}\rretry: 500\r\r`;
  const want = [update, "first line\nsecond line", request];
  const read = (chunks) => {
    const decoder = new SseDecoder();
    const got = chunks.flatMap((c) => messages(decoder.feed(c)));
    decoder.free();
    return got;
  };
  assert.deepEqual(read([stream]), want);
  // Cut between any two characters (the driver's TextDecoder never splits one).
  const chars = [...stream];
  for (let cut = 1; cut < chars.length; cut++) assert.deepEqual(read([chars.slice(0, cut).join(""), chars.slice(cut).join("")]), want, `cut at ${cut}`);
  assert.deepEqual(read([": nothing yet\n\n"]), []);
  // An event past the limit: nothing read, then or after.
  const small = new SseDecoder(64);
  assert.equal(small.feed(`data: ${"x".repeat(100)}`), undefined);
  assert.equal(small.feed("\n\ndata: {}\n\n"), undefined);
  small.free();
  // Requests and answers have an id; a notification's text need not be parsed to know it has none.
  assert.equal(mayHaveId(request), true);
  assert.equal(mayHaveId('{"jsonrpc":"2.0","result":{"sessionId":"s2"},"id":3}'), true);
  assert.equal(mayHaveId('{"jsonrpc":"2.0","\\u0069d":3,"result":{}}'), true, "an escaped name is parsed");
  assert.equal(mayHaveId(update), false);
});

test("hostile endpoints: no Acp-Connection-Id, an HTTP error, an oversized event — each a clear error, never a hang", async () => {
  const answer = (body) => JSON.stringify({ jsonrpc: "2.0", id: JSON.parse(body).id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
  const read = (req) => new Promise((r) => { let b = ""; req.on("data", (c) => { b += c; }); req.on("end", () => r(b)); });

  // 1. initialize answered without the connection id.
  let server = await rawServer(async (req, res) => {
    const body = await read(req);
    res.writeHead(200, { "content-type": "application/json" }).end(answer(body));
  });
  let acp = await AcpClient.connect(server.url, { clientInfo, protocolVersions: [1] });
  await assert.rejects(acp.initialize(), /Acp-Connection-Id/);
  await server.stop();

  // 2. initialize answered 503 with a body.
  server = await rawServer((req, res) => res.writeHead(503, { "content-type": "text/plain" }).end("down for maintenance"));
  acp = await AcpClient.connect(server.url, { clientInfo, protocolVersions: [1] });
  await assert.rejects(acp.initialize(), (e) => e.code === -32097 && e.data.status === 503 && e.data.body === "down for maintenance");
  await server.stop();

  // 3. a stream event beyond maxBytes: the connection is lost, the pending request rejected.
  server = await rawServer(async (req, res) => {
    if (req.method === "POST" && !req.headers["acp-connection-id"]) {
      const body = await read(req);
      return res.writeHead(200, { "content-type": "application/json", "acp-connection-id": "c1" }).end(answer(body));
    }
    if (req.method === "GET") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      return res.write(`data: ${"x".repeat(70_000)}`);
    }
    if (req.method === "POST") await read(req);
    res.writeHead(202).end();
  });
  acp = await AcpClient.connect(server.url, { clientInfo, protocolVersions: [1], maxBytes: 65_536 });
  const closed = new Promise((r) => acp.onClose(r));
  await acp.initialize();
  const { error } = await closed;
  assert.match(error.message, /larger than the limit of 65536 bytes/);
  await server.stop();

  // 4. a flood of cookies: at most 32 kept, none over 4 KB, the expired ones dropped.
  const sent = [];
  server = await rawServer(async (req, res) => {
    sent.push(req.headers.cookie);
    if (req.method === "POST" && !req.headers["acp-connection-id"]) {
      const body = await read(req);
      const flood = [`big=${"x".repeat(5000)}`, ...Array.from({ length: 100 }, (_, i) => `c${i}=${i}`)];
      return res.writeHead(200, { "content-type": "application/json", "acp-connection-id": "c3", "set-cookie": flood }).end(answer(body));
    }
    if (req.method === "GET") return res.writeHead(200, { "content-type": "text/event-stream" }).write(": open\n\n");
    res.writeHead(202).end();
  });
  acp = await AcpClient.connect(server.url, { clientInfo, protocolVersions: [1] });
  await acp.initialize();
  await until("the connection's stream", () => sent.length >= 2);
  const jar = sent[1].split("; ");
  assert.equal(jar.length, 32);
  assert.deepEqual(jar.slice(0, 2), ["c0=0", "c1=1"], "the oversized cookie was not kept");
  acp.close();
  await server.stop();

  // 5. reconnect to a URL where nothing answers any more: gives up after its attempts, and says so.
  server = await rawServer(async (req, res) => {
    if (req.method === "POST" && !req.headers["acp-connection-id"]) {
      const body = await read(req);
      return res.writeHead(200, { "content-type": "application/json", "acp-connection-id": "c2" }).end(answer(body));
    }
    if (req.method === "GET") return res.writeHead(200, { "content-type": "text/event-stream" }).write(": open\n\n");
    res.writeHead(202).end();
  });
  acp = await AcpClient.connect(server.url, { clientInfo, protocolVersions: [1], reconnect: { attempts: 2, delayMs: 20 } });
  await acp.initialize();
  const gone = new Promise((r) => acp.onClose(r));
  await server.stop();
  const end = await gone;
  assert.match(end.error.message, /reconnecting failed after 2 attempts/);
});

test("reconnect, ACP v2: session/resume with replayFrom start, the replay matched against what the app had", async () => {
  const { agent: agentV2 } = await import("acp-sdk-v2/experimental/v2");
  const sessions = new Map();
  let done = false;
  const emit = async (session, update) => {
    session.history.push(update);
    try { await session.client.notify("session/update", { sessionId: session.id, update }); } catch { /* gone */ }
  };
  const resumed = [];
  const app = agentV2()
    .onRequest("initialize", () => ({ protocolVersion: 2, capabilities: { session: {} }, info: { name: "sdk-v2-http", version: "2.4.0" }, authMethods: [] }))
    .onRequest("session/new", ({ client }) => {
      const id = `v2_${sessions.size + 1}`;
      sessions.set(id, { id, history: [], client });
      return { sessionId: id };
    })
    .onRequest("session/resume", async ({ params, client }) => {
      resumed.push(params);
      const session = sessions.get(params.sessionId);
      if (params.replayFrom?.type === "start") {
        for (const update of session.history) await client.notify("session/update", { sessionId: session.id, update });
      }
      session.client = client;
      await client.notify("session/update", { sessionId: session.id, update: { sessionUpdate: "state_update", state: done ? "idle" : "running" } });
      return {};
    })
    .onRequest("session/prompt", ({ params }) => {
      const session = sessions.get(params.sessionId);
      setTimeout(async () => {
        for (let i = 0; i < 30; i++) {
          await emit(session, { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: `${i} ` } });
          await later(15);
        }
        done = true;
        await emit(session, { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
      }, 5);
      return { messageId: "u1" };
    });
  const server = await sdkServer(app);
  try {
    const acp = await AcpClient.connect(server.url, { clientInfo, protocolVersions: [2], reconnect: { delayMs: 50 } });
    const up = new Promise((r) => acp.onReconnected(r));
    await acp.initialize();
    const session = await acp.newSession({ cwd: "/work", mcpServers: [] });
    const updates = [];
    session.onUpdate((u) => updates.push(u));
    const turn = session.prompt([{ type: "text", text: "go" }]);
    await until("a few chunks", () => texts(updates).length >= 5);
    server.kill();
    assert.equal((await turn.then(() => null, (e) => e))?.data?.reconnecting, true);
    const { sessions: [report] } = await up;
    assert.deepEqual([report.method, report.replayed, report.error], ["session/resume", true, undefined]);
    assert.deepEqual(resumed.map((p) => [p.sessionId, p.cwd, p.replayFrom]), [[session.id, "/work", { type: "start" }]]);
    await until("the turn's end", () => updates.some((u) => u.sessionUpdate === "state_update" && u.state === "idle"));
    assert.deepEqual(texts(updates), Array.from({ length: 30 }, (_, i) => `${i} `), "nothing lost, nothing doubled");
    acp.close();
  } finally {
    await server.stop();
  }
});

// ─── through agentwire's relay (/acp/NAME) with stdio agents ─────────────────────────────


let relayStarted;
/** The release relay with the relay tests' mini agent and the file-backed agent above. */
async function relayForAcp() {
  relayStarted ??= (async () => {
    const { relayWithMcp } = await import("./http-peers.mjs");
    const { mkdtempSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const dir = mkdtempSync(join(tmpdir(), "acp-http-"));
    const mini = new URL("../../relay/tests/fixtures/mini-acp.mjs", import.meta.url).pathname;
    const files = new URL("../../relay/tests/fixtures/file-acp.mjs", import.meta.url).pathname;
    const relay = await relayWithMcp(["--agent", `mini=node ${mini}`, "--agent", `files=node ${files} ${dir}`]);
    return Object.assign(relay, { dir });
  })();
  return relayStarted;
}
after(async () => {
  const relay = await relayStarted;
  if (!relay) return;
  await relay.close();
  const { rmSync } = await import("node:fs");
  rmSync(relay.dir, { recursive: true, force: true });
});

/** A fetch whose requests in flight can all be cut at once: the network dropping. */
function cuttableFetch() {
  const inFlight = new Set();
  const f = (url, init = {}) => {
    const c = new AbortController();
    init.signal?.addEventListener("abort", () => c.abort(init.signal.reason), { once: true });
    inFlight.add(c);
    return fetch(url, { ...init, signal: c.signal }).finally(() => {
      // A stream's body outlives its response: kept until cut or the transport stops it.
      if (c.signal.aborted) inFlight.delete(c);
    });
  };
  f.cut = () => { for (const c of inFlight) c.abort(new Error("network down")); inFlight.clear(); };
  return f;
}

test("through the relay: agentwire's client reaches a stdio agent over HTTP (a prompt with a permission request); close ends its process", async () => {
  const relay = await relayForAcp();
  const acp = await AcpClient.connect(`${relay.base}/acp/mini`, { clientInfo, protocolVersions: [1], headers: { authorization: `Bearer ${relay.token}` } });
  acp.onRequest("session/request_permission", ({ options }) => ({ outcome: { outcome: "selected", optionId: options[0].optionId } }));
  await acp.initialize();
  const session = await acp.newSession({ cwd: "/work", mcpServers: [] });
  const updates = [];
  session.onUpdate((u) => updates.push(u.content.text));
  assert.equal((await session.prompt([{ type: "text", text: "ask" }])).stopReason, "end_turn");
  assert.deepEqual(updates, ['outcome {"outcome":"selected","optionId":"allow"}']);
  assert.equal((await session.prompt([{ type: "text", text: "hello" }])).stopReason, "end_turn");
  assert.deepEqual(updates.slice(1), ["echo hello"]);
  assert.equal(relay.pids().length, 1);
  acp.close();
  await until("the agent's process ended (DELETE)", () => relay.pids().length === 0);
});

test("through the relay: the network cut mid-turn; agentwire reconnects, loads the session in the new process, and every update the agent wrote reaches the app once", async () => {
  const relay = await relayForAcp();
  const net = cuttableFetch();
  const acp = await AcpClient.connect(`${relay.base}/acp/files`, {
    clientInfo, protocolVersions: [1], headers: { authorization: `Bearer ${relay.token}` }, fetch: net, reconnect: { delayMs: 50 },
  });
  const up = new Promise((r) => acp.onReconnected(r));
  await acp.initialize();
  const session = await acp.newSession({ cwd: "/work", mcpServers: [] });
  const updates = [];
  session.onUpdate((u) => updates.push(u.content.text));
  const turn = session.prompt([{ type: "text", text: "count 200" }]);
  await until("some chunks", () => updates.length >= 10);
  net.cut();
  assert.equal((await turn.then(() => null, (e) => e))?.data?.reconnecting, true);
  const { sessions: [resumed] } = await up;
  assert.deepEqual([resumed.sessionId, resumed.method, resumed.replayed, resumed.error], [session.id, "session/load", true, undefined]);
  // The old connection's process was ended (DELETE) mid-turn: what it wrote is what the app has, once.
  await later(200);
  const { readFileSync } = await import("node:fs");
  const written = readFileSync(`${relay.dir}/${session.id}.jsonl`, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l).content.text);
  const n = updates.length;
  assert.ok(n >= 10 && n < 200, `${n} updates: the turn was cut`);
  assert.deepEqual(updates, written, "nothing lost, nothing doubled");
  assert.deepEqual(updates, Array.from({ length: n }, (_, i) => `${i} `));
  assert.equal(resumed.skipped + resumed.delivered, n, "the replay held what the app had and what it had missed");
  assert.equal((await session.prompt([{ type: "text", text: "count 2" }])).stopReason, "end_turn");
  assert.deepEqual(updates.slice(n), ["0 ", "1 "]);
  acp.close();
  await until("every process ended", () => relay.pids().length === 0);
});

// ─── in a browser ──────────────────────────────────────────────────────────────────────

test("in Chromium: a page reaches an SDK agent over HTTP (the package from pkg/, same origin): a prompt with a permission request, the agent's cookie kept by the browser", { timeout: 60_000 }, async () => {
  const { readFile } = await import("node:fs/promises");
  const { join, normalize } = await import("node:path");
  const pkg = new URL("../../pkg/", import.meta.url).pathname;
  const { app } = sdkAgent();
  const acpServer = new AcpServer({ agent: app });
  const handle = createNodeHttpHandler(acpServer);
  const cookies = [];
  const page = `<!doctype html><script type="module">
    import init, { AcpClient } from "/pkg/index.js";
    window.run = async () => {
      await init();
      const acp = await AcpClient.connect(location.origin + "/acp", { clientInfo: { name: "page", version: "1" }, protocolVersions: [1] });
      acp.onRequest("session/request_permission", () => ({ outcome: { outcome: "selected", optionId: "allow" } }));
      await acp.initialize();
      const session = await acp.newSession({ cwd: "/page", mcpServers: [] });
      const texts = [];
      session.onUpdate((u) => u.sessionUpdate === "agent_message_chunk" && texts.push(u.content.text));
      const { stopReason } = await session.prompt([{ type: "text", text: "ask, then count 2" }]);
      acp.close();
      return { stopReason, texts };
    };
  </script>`;
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, "http://x");
    if (url.pathname === "/acp") {
      cookies.push([req.method, req.headers.cookie]);
      if (req.method === "POST" && !req.headers["acp-connection-id"]) res.setHeader("set-cookie", "affinity=page-backend; Path=/; SameSite=Strict");
      return handle(req, res);
    }
    if (url.pathname === "/") return res.writeHead(200, { "content-type": "text/html" }).end(page);
    const file = normalize(join(pkg, url.pathname.replace(/^\/pkg\//, "")));
    if (!url.pathname.startsWith("/pkg/") || !file.startsWith(pkg)) return res.writeHead(404).end();
    try {
      const body = await readFile(file);
      const type = file.endsWith(".wasm") ? "application/wasm" : file.endsWith(".js") ? "text/javascript" : "application/octet-stream";
      res.writeHead(200, { "content-type": type }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
  try {
    const tab = await browser.newPage();
    const errors = [];
    tab.on("pageerror", (e) => errors.push(e.message));
    await tab.goto(`http://127.0.0.1:${server.address().port}/`);
    await tab.waitForFunction(() => typeof window.run === "function");
    const result = await tab.evaluate(() => window.run());
    assert.deepEqual(errors, []);
    assert.deepEqual(result, { stopReason: "end_turn", texts: ["chose allow", "0 ", "1 "] });
    // The browser's own jar: every request after the first carried the agent's cookie.
    await until("the DELETE", () => cookies.some(([m]) => m === "DELETE"));
    assert.ok(cookies.length >= 5);
    assert.deepEqual(cookies.slice(1).filter(([, c]) => c !== "affinity=page-backend"), []);
  } finally {
    await browser.close();
    server.closeAllConnections();
    await acpServer.close();
    await new Promise((r) => server.close(r));
  }
});
