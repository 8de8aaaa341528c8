// McpClient over Streamable HTTP in Node, against servers nobody here wrote (the reference
// server-everything, a server on the official SDK's transport, server-everything's old
// HTTP+SSE mode) and against a raw server sending what a good server never would.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { McpClient, codes, later } from "./helpers.mjs";
import { everything, sdkServer, rawServer } from "./http-peers.mjs";

const clientInfo = { name: "http-test", version: "1" };
const closers = [];
after(() => closers.forEach((f) => f()));
const track = (peer) => { closers.push(peer.close); return peer; };

test("server-everything over Streamable HTTP: the era fallback is immediate; tools, progress, resources and a server request work", async () => {
  const peer = track(await everything("streamableHttp"));
  const client = await McpClient.connect(`${peer.url}/mcp`, { clientInfo, capabilities: { sampling: {} } });
  const frames = [];
  client.onFrame((f) => frames.push(f));
  const started = Date.now();
  const init = await client.initialize();
  // The 2026 discovery request is refused with HTTP 400 (id null): the fallback to
  // initialize must not wait for a timeout.
  assert.ok(Date.now() - started < 5000, `initialize took ${Date.now() - started} ms`);
  assert.equal(init.serverInfo.name, "mcp-servers/everything");
  const answered = frames.find((f) => f.direction === "in" && f.http?.sessionId);
  assert.match(answered.http.sessionId, /^[\x21-\x7e]+$/);
  assert.equal(answered.http.status, 200);

  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === "echo"));
  assert.deepEqual(await client.callTool("echo", { message: "hi" }), { content: [{ type: "text", text: "Echo: hi" }] });

  const progress = [];
  const long = await client.callTool("trigger-long-running-operation", { duration: 0.3, steps: 3 }, { onProgress: (p) => progress.push(p.params?.progress ?? p.progress) });
  assert.match(long.content[0].text, /completed/);
  assert.deepEqual(progress, [1, 2, 3]);

  const { resources } = await client.listResources();
  const read = await client.readResource(resources[0].uri);
  assert.equal(read.contents[0].uri, resources[0].uri);

  // A server→client request travels inside the POST's event stream; the answer is a POST.
  let asked;
  client.onRequest("sampling/createMessage", (params) => {
    asked = params;
    return { role: "assistant", content: { type: "text", text: "sampled" }, model: "m" };
  });
  const sampled = await client.callTool("trigger-sampling-request", { prompt: "p", maxTokens: 5 });
  assert.ok(asked?.messages?.length > 0);
  assert.match(JSON.stringify(sampled), /sampled/);
  client.close();
});

test("a server on the official SDK's StreamableHTTPServerTransport: progress, resources, elicitation, and DELETE on close", async () => {
  const peer = track(await sdkServer());
  const client = await McpClient.connect(peer.url, { clientInfo, capabilities: { elicitation: {} } });
  const violations = [];
  client.onViolation((v) => violations.push(v));
  const init = await client.initialize();
  assert.equal(init.serverInfo.name, "sdk-http");
  const progress = [];
  const slow = await client.callTool("slow", {}, { onProgress: (p) => progress.push(p.params?.progress ?? p.progress) });
  assert.deepEqual(slow.content, [{ type: "text", text: "slow done" }]);
  assert.deepEqual(progress, [1, 2, 3]);
  assert.equal((await client.readResource("test://one")).contents[0].text, "one");
  client.onRequest("elicitation/create", () => ({ action: "accept", content: { name: "Ada" } }));
  assert.equal((await client.callTool("ask", {})).content[0].text, "hello Ada");
  // Every request after discovery and initialize named the session.
  const sid = [...peer.sessions.keys()][0];
  assert.ok(peer.requests.slice(2).every((r) => r.sessionId === sid), JSON.stringify(peer.requests));
  client.close();
  for (let i = 0; i < 100 && peer.sessions.size > 0; i++) await later(10);
  assert.ok(peer.requests.some((r) => r.method === "DELETE" && r.sessionId === sid), "the session was deleted");
  assert.equal(peer.sessions.size, 0);
  assert.deepEqual(violations, []);
});

test("server-everything's 2024-11-05 HTTP+SSE mode: the initialize POST is refused, the old transport takes over", async () => {
  const peer = track(await everything("sse"));
  const client = await McpClient.connect(`${peer.url}/sse`, { clientInfo, era: "handshake" });
  const init = await client.initialize();
  assert.equal(init.serverInfo.name, "mcp-servers/everything");
  assert.deepEqual(await client.callTool("echo", { message: "old" }), { content: [{ type: "text", text: "Echo: old" }] });
  client.close();
});

/** A connected, initialized client of a raw server scripted by `handle` (see rawServer). */
async function rawClient(handle, options = {}) {
  const peer = track(await rawServer(handle));
  const client = await McpClient.connect(peer.url, { clientInfo, era: "handshake", ...options });
  const violations = [];
  client.onViolation((v) => violations.push(v));
  // Input that is not a message: the session's reply and a `protocolError`, as in ACP.
  const breaches = [];
  client.onEvent((e) => e.type === "protocolError" && breaches.push(e.error));
  await client.initialize();
  return { peer, client, violations, breaches };
}

const sse = (res, status = 200) => res.writeHead(status, { "content-type": "text/event-stream" });
const isCall = (m) => m?.method === "tools/call";

test("HTTP failures become ProtocolErrors with the status and a short body", async () => {
  const { client } = await rawClient((req, m, res) => {
    if (!isCall(m)) return false;
    if (m.params.name === "500") return res.writeHead(500, { "content-type": "text/plain" }).end("database on fire");
    if (m.params.name === "html") return res.writeHead(200, { "content-type": "text/html" }).end("<html>");
    if (m.params.name === "403") return res.writeHead(403, { "content-type": "application/json" }).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Forbidden origin"}}');
  });
  await assert.rejects(client.callTool("500"), (e) => e.code === codes.HTTP_ERROR && e.data.status === 500 && e.data.body === "database on fire");
  await assert.rejects(client.callTool("html"), (e) => e.code === codes.HTTP_ERROR && e.data.status === 200);
  await assert.rejects(client.callTool("403"), (e) => e.code === -32600 && e.message === "Forbidden origin" && e.data.status === 403);
  client.close();
});

test("a non-JSON body or a malformed stream is reported, and the request still gets an answer", async () => {
  const { client, breaches } = await rawClient((req, m, res) => {
    if (!isCall(m)) return false;
    if (m.params.name === "garbage") return res.writeHead(200, { "content-type": "application/json" }).end("{not json");
    sse(res);
    res.write("data: {broken\n\n");
    res.end(`id: 1\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { content: [] } })}\n\n`);
  });
  await assert.rejects(client.callTool("garbage"), (e) => e.code === codes.HTTP_ERROR && /did not answer/.test(e.message));
  assert.ok(breaches.some((e) => e.code === codes.PARSE_ERROR && /Parse error/.test(e.message)), JSON.stringify(breaches));
  const count = breaches.length;
  assert.deepEqual(await client.callTool("stream"), { content: [] });
  assert.ok(breaches.length > count, "the broken event was reported");
  client.close();
});

test("an oversize body or event is refused at maxBytes without being read to the end", async () => {
  const { client } = await rawClient((req, m, res) => {
    if (!isCall(m)) return false;
    if (m.params.name === "json") return res.writeHead(200, { "content-type": "application/json" }).end(`{"pad":"${"x".repeat(5000)}"}`);
    sse(res);
    res.write(`data: ${"y".repeat(5000)}`);
  }, { maxBytes: 1024 });
  await assert.rejects(client.callTool("json"), (e) => e.code === codes.HTTP_ERROR && /larger than the limit/.test(e.message));
  await assert.rejects(client.callTool("event"), (e) => e.code === codes.HTTP_ERROR && /larger than the limit/.test(e.message));
  client.close();
});

test("a 404 for the session means it expired: the error says so, and a fresh initialize() goes on", async () => {
  let expired = true;
  const { client, peer } = await rawClient((req, m, res) => {
    if (!isCall(m)) return false;
    if (expired) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { content: [] } }));
  });
  await assert.rejects(client.callTool("x"), (e) => e.code === codes.HTTP_ERROR && e.data.sessionExpired === true && /expired/.test(e.message));
  assert.equal(peer.seen.find((r) => isCall(JSON.parse(r.body || "null"))).headers["mcp-session-id"], "s-1");
  expired = false;
  const again = await client.initialize();
  assert.equal(again.serverInfo.name, "raw");
  const inits = peer.seen.filter((r) => JSON.parse(r.body || "null")?.method === "initialize");
  assert.equal(inits.length, 2);
  assert.equal(inits[1].headers["mcp-session-id"], undefined, "no stale session id");
  assert.deepEqual(await client.callTool("x"), { content: [] });
  client.close();
});

test("a stream closed before its answer is resumed with GET and Last-Event-ID after `retry`", async () => {
  let owed;
  let closedAt;
  const { client, peer } = await rawClient((req, m, res) => {
    if (isCall(m)) {
      owed = m.id;
      sse(res);
      res.write("id: ev-1\nretry: 150\ndata: \n\n");
      setTimeout(() => { closedAt = Date.now(); res.end(); }, 20);
      return;
    }
    if (req.method === "GET" && req.headers["last-event-id"] === "ev-1") {
      sse(res);
      res.end(`id: ev-2\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: owed, result: { content: [{ type: "text", text: "resumed" }] } })}\n\n`);
      return;
    }
    return false;
  });
  const result = await client.callTool("x");
  assert.equal(result.content[0].text, "resumed");
  const resumed = peer.seen.find((r) => r.method === "GET" && r.headers["last-event-id"] === "ev-1");
  assert.equal(resumed.headers["mcp-session-id"], "s-1");
  assert.equal(resumed.headers["mcp-protocol-version"], "2025-11-25");
  assert.ok(closedAt !== undefined);
  client.close();
});

test("a stream that breaks with no event id fails its request at once, nothing hangs", async () => {
  const { client } = await rawClient((req, m, res) => {
    if (!isCall(m)) return false;
    sse(res);
    res.write(": working\n\n");
    setTimeout(() => res.destroy(), 20);
  });
  const started = Date.now();
  await assert.rejects(client.callTool("x"), (e) => e.code === codes.HTTP_ERROR && /before answering/.test(e.message));
  assert.ok(Date.now() - started < 5000);
  client.close();
});

test("an unreachable server fails initialize with the network error, and options reach the transport", async () => {
  const client = await McpClient.connect("http://127.0.0.1:9/mcp", { clientInfo, era: "handshake" });
  await assert.rejects(client.initialize(), (e) => e.code === codes.HTTP_ERROR && e.data.status === 0);
  client.close();
  // Headers go with every request; a 401 reaches `authorize`, whose headers retry it once.
  const auth = [];
  const { client: c2, peer } = await rawClient((req, m, res) => {
    if (req.headers.authorization !== "Bearer good") return res.writeHead(401, { "www-authenticate": "Bearer" }).end();
    return false;
  }, { headers: { authorization: "Bearer stale", "x-extra": "1" }, authorize: async (info) => { auth.push(info.status); return { headers: { authorization: "Bearer good" } }; } });
  assert.deepEqual(auth, [401]);
  assert.ok(peer.seen.every((r) => r.headers["x-extra"] === "1"));
  c2.close();
  await assert.rejects(McpClient.connect("http://x/mcp", { clientInfo, nonsense: 1 }), (e) => e.code === codes.INVALID_PARAMS);
});

test("a timeout or an abort stops the request's own fetch and tells the server", async () => {
  const closedStreams = [];
  const cancelled = [];
  const { client } = await rawClient((req, m, res) => {
    if (m?.method === "notifications/cancelled") {
      cancelled.push(m.params.requestId);
      return res.writeHead(202).end();
    }
    if (!isCall(m)) return false;
    sse(res);
    res.write(": working\n\n");
    req.socket.once("close", () => closedStreams.push(m.id)); // the client let go
  });
  await assert.rejects(client.callTool("x", {}, { timeoutMs: 150 }), (e) => e.code === codes.TIMEOUT);
  const aborter = new AbortController();
  const call = client.callTool("y", {}, { signal: aborter.signal });
  await later(50);
  aborter.abort();
  await assert.rejects(call, (e) => e.code === codes.REQUEST_CANCELLED);
  for (let i = 0; i < 100 && (closedStreams.length < 2 || cancelled.length < 2); i++) await later(20);
  assert.equal(closedStreams.length, 2, "both event streams were closed by the client");
  assert.equal(cancelled.length, 2, "and the server was told, with notifications/cancelled");
  client.close();
});

test("the transport's state is driven by its steps' names; an id past 2^53 is abandoned exactly", async () => {
  const { createRequire } = await import("node:module");
  const { McpHttp } = createRequire(import.meta.url)("../../pkg/node/agentwire.js");
  const { steps } = await import("../../pkg/http.js");
  const state = steps(new McpHttp());
  const big = 9007199254740993n; // 2^53 + 1: as a JS number it would be 2^53, another id
  const plan = state.post(`[{"jsonrpc":"2.0","id":${big},"method":"ping"},{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}]`);
  assert.equal(plan.method, "POST");
  assert.equal(plan.headers["content-type"], "application/json");
  assert.equal(state.response(plan.stream, 200, "text/event-stream", undefined), "events");
  assert.equal(state.abandon(plan.stream, big), false, "the stream still owes the other request");
  assert.equal(state.abandon(plan.stream, big), false, "no longer owed: nothing changes");
  assert.equal(state.abandon(plan.stream, 9007199254740992), true, "nothing owed now: the fetch may stop");
  assert.equal(state.sessionId(), undefined);
  assert.deepEqual(state.end(plan.stream, true), {}, "the stream was closed when abandoned");
});

test("a JSON body's message comes back from the state as the text given, or as the state wrote it again", async () => {
  const { createRequire } = await import("node:module");
  const { McpHttp } = createRequire(import.meta.url)("../../pkg/node/agentwire.js");
  const { steps } = await import("../../pkg/http.js");
  const META = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}';
  const core = new McpHttp();
  const state = steps(core);
  const json = (text) => {
    const plan = state.post(text);
    assert.equal(state.response(plan.stream, 200, "application/json", undefined), "json");
    return plan.stream;
  };
  // As given: told by 0, not sent back (the core's own answer), and the text itself for the driver.
  const answer = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"${"é".repeat(3000)}"}]}}`;
  assert.equal(core.step(8, json(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t",${META}}}`), 0, answer), "[0]");
  assert.deepEqual(state.body(json(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t",${META}}}`), answer.replace('"id":1', '"id":2')), [answer.replace('"id":1', '"id":2')]);
  // A request the body left out gets an answer of the state's after it.
  const [given, owed] = state.body(json('[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"ping"}]'), '{"jsonrpc":"2.0","id":3,"result":{}}');
  assert.equal(given, '{"jsonrpc":"2.0","id":3,"result":{}}');
  assert.equal(JSON.parse(owed).id, 4);
  assert.match(JSON.parse(owed).error.message, /did not answer/);
  // Written again (a tool with an invalid x-mcp-header left out): the state's text, not the body.
  const tools = '{"jsonrpc":"2.0","id":5,"result":{"tools":[{"name":"ok","inputSchema":{"type":"object"}},{"name":"bad","inputSchema":{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}}]}}';
  const [listed] = state.body(json(`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{${META}}}`), tools);
  assert.deepEqual(JSON.parse(listed).result.tools.map((t) => t.name), ["ok"]);
  assert.equal(state.takeWarnings().length, 1);
});

test("an event stream's messages come back from the state whole, of any script, however many a chunk holds", async () => {
  const { createRequire } = await import("node:module");
  const { McpHttp } = createRequire(import.meta.url)("../../pkg/node/agentwire.js");
  const { steps } = await import("../../pkg/http.js");
  const state = steps(new McpHttp());
  const plan = state.post('[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]');
  assert.equal(state.response(plan.stream, 200, "text/event-stream", undefined), "events");
  const answers = [
    '{"jsonrpc":"2.0","id":1,"result":{"_meta":{"t":"é日本😀\\n"}}}',
    `{"jsonrpc":"2.0","id":2,"result":{"_meta":{"t":"${"x".repeat(5000)}"}}}`,
    // Data of two lines: the message holds the line feed that joins them.
    '{"jsonrpc":"2.0","id":3,\n"result":{}}',
  ];
  const stream = answers.map((a, i) => `id: e${i}\n${a.split("\n").map((l) => `data: ${l}`).join("\n")}\n\n`).join("");
  // All in one chunk, then cut in two inside the second (an event completed by the next chunk).
  const one = state.chunk(plan.stream, stream);
  assert.deepEqual(one, { items: answers.map((text, i) => ({ text, eventId: `e${i}` })) });
  const again = state.post('{"jsonrpc":"2.0","id":4,"method":"ping"}');
  state.response(again.stream, 200, "text/event-stream", undefined);
  const cut = stream.indexOf("xxxx");
  const first = state.chunk(again.stream, stream.slice(0, cut));
  const second = state.chunk(again.stream, stream.slice(cut));
  assert.deepEqual([...first.items, ...second.items].map((i) => i.text), answers);
  assert.deepEqual(first.items.map((i) => i.eventId), ["e0"]);
});
