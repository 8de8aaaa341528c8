// Hostile input through every entry point of the JS API: deep nesting, huge strings and
// arrays, numbers out of range, lone surrogates, duplicate keys, `__proto__`/`constructor`
// keys, wrong argument types and binary frames. Each gets a clear error or event (with the
// JSON-RPC code where one applies), nothing throws anything but a ProtocolError, nothing
// pollutes Object.prototype, and the session goes on: a normal request afterwards works.
import { test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { Worker } from "node:worker_threads";
import { AcpClient, AcpAgent, McpClient, McpServer, Validator, parseMessage, serializeMessage, ProtocolError, codes,
  transportPair, later } from "./helpers.mjs";

const LIMIT = { timeout: 60_000 };
const DEPTH = 100_000;
const request = (id, method, paramsText) => `{"jsonrpc":"2.0","id":${id},"method":"${method}"${paramsText ? `,"params":${paramsText}` : ""}}`;

// [name, text, expected answer]: { code, id } is the error response the receiving session sends
// (id null when the message could not be read); "accepted" means it parses as a message.
const HOSTILE = [
  ["10^5 nested arrays", "[".repeat(DEPTH) + "]".repeat(DEPTH), { code: codes.PARSE_ERROR, id: null }],
  ["10^5 nested objects in params", request(1, "x/deep", '{"a":'.repeat(DEPTH) + "1" + "}".repeat(DEPTH)), { code: codes.PARSE_ERROR, id: null }],
  ["an 8 MB string", request(2, "x/big", `{"s":"${"x".repeat(8 << 20)}"}`), { code: codes.METHOD_NOT_FOUND, id: 2 }],
  ["an array of 10^6 items", request(3, "x/long", `{"a":[${new Array(1e6).fill(0).join(",")}]}`), { code: codes.METHOD_NOT_FOUND, id: 3 }],
  ["id 1e400", request("1e400", "x/n"), { code: codes.PARSE_ERROR, id: null }],
  ["id -0 (an integer: 0)", request("-0", "x/n"), { code: codes.METHOD_NOT_FOUND, id: 0 }],
  ["id 2^64+1", request("18446744073709551617", "x/n"), { code: codes.INVALID_REQUEST, id: null }],
  ["1e400 in params", request(4, "x/n", '{"n":1e400}'), { code: codes.PARSE_ERROR, id: null }],
  ["-0 and 2^64+1 in params", request(5, "x/n", '{"z":-0,"big":18446744073709551617}'), { code: codes.METHOD_NOT_FOUND, id: 5 }],
  ["a lone surrogate escape", request(6, "x/s", '{"s":"\\ud800"}'), { code: codes.PARSE_ERROR, id: null }],
  ["a lone surrogate escape as method", request(7, "\\udc00"), { code: codes.PARSE_ERROR, id: null }],
  ["a raw lone surrogate", request(8, "x/s", '{"s":"\ud800"}'), { code: codes.METHOD_NOT_FOUND, id: 8 }],
  // Duplicate keys: the last one wins, as in JSON.parse.
  ["duplicate ids", '{"jsonrpc":"2.0","id":9,"id":10,"method":"x/dup"}', { code: codes.METHOD_NOT_FOUND, id: 10 }],
  ["duplicate methods", '{"jsonrpc":"2.0","id":11,"method":"ping","method":"x/dup"}', { code: codes.METHOD_NOT_FOUND, id: 11 }],
  ["__proto__ and constructor keys", request(12, "x/proto", '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}}}'),
    { code: codes.METHOD_NOT_FOUND, id: 12 }],
  ["a top-level __proto__", '{"__proto__":{"polluted":1},"jsonrpc":"2.0","id":13,"method":"x/proto"}', { code: codes.METHOD_NOT_FOUND, id: 13 }],
];

function assertClean() {
  assert.equal(Object.prototype.polluted, undefined, "Object.prototype was polluted");
  assert.equal({}.polluted, undefined);
  assert.deepEqual(Object.keys(Object.prototype), []);
}

/** Calls fn; it must return, or throw a ProtocolError (never a RangeError, TypeError, trap…). */
function outcome(fn) {
  try {
    return { value: fn() };
  } catch (e) {
    assert.ok(e instanceof ProtocolError, `threw a non-ProtocolError: ${e?.name}: ${e?.message}`);
    assert.equal(typeof e.code, "number");
    return { error: e };
  }
}

test("parseMessage: each hostile frame parses or throws a ProtocolError with the JSON-RPC code", LIMIT, () => {
  for (const [name, text, want] of HOSTILE) {
    const { value, error } = outcome(() => parseMessage(text));
    if (want.id === null) {
      assert.equal(error?.code, want.code, name);
      assert.ok(error.message.length > 0, name);
    } else {
      assert.equal(error, undefined, `${name}: ${error?.message}`);
      assert.equal(value.kind, "request", name);
      assert.equal(value.id, want.id, name);
    }
  }
  assertClean();
  // The keys arrive as own data properties, and the objects keep the ordinary prototype.
  const { params } = parseMessage(HOSTILE.find(([n]) => n.startsWith("__proto__"))[1]);
  assert.deepEqual(Object.getOwnPropertyNames(params), ["__proto__", "constructor"]);
  assert.deepEqual(Object.getOwnPropertyDescriptor(params, "__proto__").value, { polluted: 1 });
  assert.equal(Object.getPrototypeOf(params), Object.prototype);
  assert.equal(params.constructor.prototype.polluted, 2);
  const top = parseMessage(HOSTILE.find(([n]) => n === "a top-level __proto__")[1]);
  assert.equal(Object.getPrototypeOf(top), Object.prototype);
  assert.equal(top.polluted, undefined);
  // A raw lone surrogate cannot cross into wasm as UTF-8: it becomes U+FFFD, as a WebSocket
  // would deliver it.
  assert.equal(parseMessage(request(1, "x", '{"s":"a\udc00b"}')).params.s, "a\ufffdb");
  // Big inputs come back whole.
  assert.equal(parseMessage(HOSTILE[2][1]).params.s.length, 8 << 20);
  assert.equal(parseMessage(HOSTILE[3][1]).params.a.length, 1e6);
  assert.equal(parseMessage('{"jsonrpc":"2.0","id":1,"method":"ping"}').kind, "request");
});

// An object of many members, in the frame and on the way out: read, looked up and written in
// linear time, its members in their order, a repeated name's last value in its first place, as
// JSON.parse. In a worker, so that a module that scanned (2·10^10 comparisons here, many
// minutes) fails at the limit instead of holding the test's thread.
test("an object of 2·10^5 members is read and written whole, in order, in linear time", LIMIT, async () => {
  const n = 200_000;
  const members = Array.from({ length: n }, (_, i) => `"k${i}":${i}`);
  const text = request(20, "x/wide", `{${members.join(",")},"k0":"last","k${n - 1}":"end"}`);
  const worker = new Worker(`
    const { parentPort, workerData } = require("node:worker_threads");
    import(workerData.pkg).then(({ parseMessage, serializeMessage }) => {
      const { params } = parseMessage(workerData.text);
      const written = serializeMessage({ id: 21, method: "x/wide", params });
      parentPort.postMessage({ keys: Object.keys(params), params, written });
    });`, { eval: true, workerData: { text, pkg: new URL("../../pkg/node.js", import.meta.url).href } });
  let timer;
  const answer = await Promise.race([
    once(worker, "message").then(([m]) => m),
    once(worker, "error").then(([e]) => { throw e; }),
    new Promise((resolve) => { timer = setTimeout(resolve, 30_000, null); }),
  ]).finally(() => { clearTimeout(timer); worker.terminate(); });
  assert.ok(answer, "not read and written within 30 s");
  const { keys, params, written } = answer;
  assert.equal(keys.length, n);
  assert.deepEqual([keys[0], keys[1], keys[n - 1]], ["k0", "k1", `k${n - 1}`]);
  assert.deepEqual([params.k0, params.k1, params[`k${n - 1}`]], ["last", 1, "end"]);
  assert.deepEqual(params, JSON.parse(text).params);
  assert.equal(written, JSON.stringify({ jsonrpc: "2.0", id: 21, method: "x/wide", params }));
});

test("Validator.validate: hostile text and objects give a report or a ProtocolError, and it goes on", LIMIT, () => {
  const v = new Validator({ protocol: "mcp", version: "2025-11-25" });
  const ctx = { direction: "clientToServer" };
  for (const [name, text, want] of HOSTILE) {
    const { value, error } = outcome(() => v.validate(text, ctx));
    assert.equal(error, undefined, `${name}: ${error?.message}`);
    assert.equal(typeof value.ok, "boolean", name);
    if (want.code === codes.PARSE_ERROR) {
      assert.equal(value.ok, false, name);
      assert.ok(["invalid_json", "too_deep"].includes(value.issues[0].code), `${name}: ${value.issues[0].code}`);
    }
  }
  assert.equal(v.validate(HOSTILE[0][1], ctx).issues[0].code, "too_deep");
  // Objects: too deep, cyclic or not JSON at all (BigInt) are refused with -32602.
  let deep = {};
  for (let i = 0, cur = deep; i < DEPTH; i++) cur = cur.a = {};
  const cyclic = { jsonrpc: "2.0", id: 1, method: "ping", params: {} };
  cyclic.params.self = cyclic;
  const objects = [
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x", arguments: deep } },
    cyclic,
    { jsonrpc: "2.0", id: 1n, method: "ping" },
    undefined,
    // JSON has no Infinity or NaN; JSON.stringify would quietly write null.
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x", arguments: { n: Infinity } } },
    { jsonrpc: "2.0", id: NaN, method: "ping" },
  ];
  for (const message of objects) {
    const { error } = outcome(() => v.validate(message, ctx));
    assert.equal(error?.code, codes.INVALID_PARAMS);
  }
  const polluting = JSON.parse('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"__proto__":{"polluted":1}}}');
  assert.equal(v.validate(polluting, ctx).ok, true);
  assert.equal(outcome(() => v.validate("{}", null)).error?.code, codes.INVALID_PARAMS);
  assertClean();
  assert.deepEqual(v.validate('{"jsonrpc":"2.0","id":1,"method":"ping"}', ctx), { ok: true, issues: [] });
});

/** Client and agent/server of one protocol, sans-IO, initialized with each other. */
function pair(protocol) {
  const deliver = (to, text) => to.receive(text).filter((e) => e.type === "send").map((e) => e.text);
  if (protocol === "acp") {
    const client = new AcpClient({ clientInfo: { name: "c", version: "1" }, protocolVersions: [1] });
    const server = new AcpAgent({ agentInfo: { name: "a", version: "1" }, protocolVersions: [1] });
    for (const text of deliver(server, client.initialize().text)) client.receive(text);
    return { client, server, method: "session/new", params: { cwd: "/w", mcpServers: [] }, result: { sessionId: "s1" } };
  }
  const client = new McpClient({ clientInfo: { name: "c", version: "1" }, protocolVersions: ["2025-11-25"], era: "handshake" });
  const server = new McpServer({ serverInfo: { name: "s", version: "1" }, protocolVersions: ["2025-11-25"], capabilities: { tools: {} } });
  let queue = [client.initialize().text];
  while (queue.length) {
    const [text] = queue.splice(0, 1);
    const back = deliver(server, text);
    for (const answer of back) queue.push(...deliver(client, answer));
  }
  return { client, server, method: "tools/list", params: {}, result: { tools: [] } };
}

/** The receiving side's wire answer to one frame, parsed (or undefined). */
function answerTo(session, text) {
  const events = outcome(() => session.receive(text)).value;
  assert.ok(Array.isArray(events));
  const send = events.find((e) => e.type === "send");
  return { events, answer: send && JSON.parse(send.text) };
}

/** A request from the client to the server, answered by the app: it must still work. */
function roundTrip(p) {
  const out = p.client.request(p.method, p.params);
  const incoming = p.server.receive(out.text).find((e) => e.type === "request");
  assert.equal(incoming?.method, p.method);
  const events = p.client.receive(p.server.respond(incoming.id, p.result));
  assert.deepEqual(events.find((e) => e.type === "response")?.result, p.result);
}

for (const protocol of ["acp", "mcp"]) {
  for (const side of ["client", "server"]) {
    test(`${protocol} ${side} receive(): every hostile frame is answered with its code, then the session goes on`, LIMIT, () => {
      const p = pair(protocol);
      const session = p[side];
      assert.equal(session.state().phase, "ready");
      for (const [name, text, want] of HOSTILE) {
        const { events, answer } = answerTo(session, text);
        // MCP hands requests of methods it does not know to the app (extensions); the
        // connected layer answers -32601 when no handler is registered (tests below).
        const delegated = events.find((e) => e.type === "request");
        if (protocol === "mcp" && want.code === codes.METHOD_NOT_FOUND && delegated) {
          assert.equal(delegated.id, want.id, name);
          session.respondError(delegated.id, { code: codes.METHOD_NOT_FOUND, message: "Method not found" });
          continue;
        }
        assert.ok(answer, `${name}: no answer`);
        assert.equal(answer.error?.code, want.code, `${name}: ${JSON.stringify(answer).slice(0, 200)}`);
        assert.equal(answer.id, want.id, name);
        assert.ok(answer.error.message.length > 0);
      }
      // A known method with __proto__ and constructor keys reaches the app as own properties.
      const rest = JSON.stringify(p.params).slice(1);
      const text = request(99, p.method, `{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}${rest === "}" ? "" : ","}${rest}`);
      if (side === "server") {
        const ev = session.receive(text).find((e) => e.type === "request");
        assert.equal(ev?.method, p.method);
        assert.deepEqual(Object.getOwnPropertyDescriptor(ev.params, "__proto__").value, { polluted: true });
        assert.equal(Object.getPrototypeOf(ev.params), Object.prototype);
        session.respond(ev.id, p.result);
      }
      // Wrong argument types are refused before they reach the module; bytes are a frame.
      for (const bad of [42, {}, null, undefined, [123, 125]]) {
        assert.equal(outcome(() => session.receive(bad)).error?.code, codes.INVALID_PARAMS, String(bad));
      }
      const answer = session.receive(new Uint8Array([123, 125])).find((e) => e.type === "send");
      assert.equal(JSON.parse(answer.text).error.code, codes.INVALID_REQUEST);
      assertClean();
      assert.equal(session.state().phase, "ready");
      assert.equal(session.state().closed, false);
      roundTrip(p);
    });
  }
}

test("sending hostile values: too deep, cyclic and BigInt params are refused locally with -32602", LIMIT, () => {
  const p = pair("mcp");
  let deep = {};
  for (let i = 0, cur = deep; i < DEPTH; i++) cur = cur.a = {};
  const cyclic = {};
  cyclic.self = cyclic;
  for (const value of [deep, cyclic, { n: 1n }]) {
    assert.equal(outcome(() => p.client.request("tools/call", { name: "x", arguments: value })).error?.code, codes.INVALID_PARAMS);
    assert.equal(outcome(() => serializeMessage({ id: 1, result: value })).error?.code, codes.INVALID_PARAMS);
  }
  const incoming = p.server.receive(p.client.request("tools/list", {}).text).find((e) => e.type === "request");
  assert.equal(outcome(() => p.server.respond(incoming.id, { tools: [], deep })).error?.code, codes.INVALID_PARAMS);
  assert.equal(outcome(() => parseMessage(42)).error?.code, codes.INVALID_PARAMS);
  assert.equal(outcome(() => p.client.request(7, {})).error?.code, codes.INVALID_PARAMS);
  p.server.respond(incoming.id, { tools: [] });
  roundTrip(p);
});

/** A connected agentwire session against a raw peer that sends whatever it likes. */
async function againstRawPeer(Session, options) {
  const [mine, raw] = transportPair();
  const session = await Session.connect(mine, options);
  const received = [];
  raw.onmessage = ({ data }) => received.push(JSON.parse(data));
  const violations = [];
  session.onViolation((v) => violations.push(v));
  // Binary frames, as a WebSocket delivers them in a browser and in Node (`ws`): read as
  // UTF-8 JSON-RPC, answered like text frames; and one that is no bytes at all (a Blob).
  const sendBinary = () => {
    for (const data of BINARY.map(([make]) => make())) mine.onmessage({ data });
    mine.onmessage({ data: { size: 2, type: "" } });
  };
  return { session, raw, received, violations, sendBinary };
}

/** Binary frames and the answer each gets (the id the answer names). */
const BINARY = [
  [() => new ArrayBuffer(8), { code: codes.PARSE_ERROR, id: null }],                 // NUL bytes: not JSON
  [() => new Uint8Array([0x7b, 0xff, 0x7d]), { code: codes.PARSE_ERROR, id: null }],  // not UTF-8
  [() => Buffer.from("{}"), { code: codes.INVALID_REQUEST, id: null }],
  [() => new DataView(new TextEncoder().encode('{"jsonrpc":"2.0","id":"b","method":"x/none"}').buffer), { code: codes.METHOD_NOT_FOUND, id: "b" }],
];
const binaryViolations = (violations) => violations.filter((v) => v.issues?.[0]?.code === "binary_frame").length;

test("connected ACP agent: hostile frames get answers, binary frames are read as UTF-8, then it works", LIMIT, async () => {
  const { session: agent, raw, received, violations, sendBinary } = await againstRawPeer(AcpAgent, {
    agentInfo: { name: "a", version: "1" }, protocolVersions: [1] });
  const seen = [];
  agent.onRequest("session/new", (params) => {
    seen.push(params);
    return { sessionId: `s${seen.length}` };
  });
  raw.send(request(0, "initialize", '{"protocolVersion":1,"clientCapabilities":{}}'));
  await later(5);
  assert.equal(received.shift().result.protocolVersion, 1);
  for (const [, text] of HOSTILE) raw.send(text);
  await later(50); // the raw peer's frames arrive asynchronously; the binary ones come after
  sendBinary();
  await later(50);
  assert.deepEqual(received.map((m) => [m.id, m.error?.code]), [...HOSTILE.map(([, , w]) => w), ...BINARY.map(([, w]) => w)].map((w) => [w.id, w.code]));
  assert.equal(binaryViolations(violations), 1);
  raw.send(request(100, "session/new", '{"__proto__":{"polluted":1},"cwd":"/w","mcpServers":[]}'));
  await later(5);
  assert.deepEqual(received.pop(), { jsonrpc: "2.0", id: 100, result: { sessionId: "s1" } });
  assert.deepEqual(Object.getOwnPropertyDescriptor(seen[0], "__proto__").value, { polluted: 1 });
  assertClean();
  agent.close();
});

test("connected MCP client: hostile frames while initialize is pending, then it completes and works", LIMIT, async () => {
  const { session: client, raw, received, violations, sendBinary } = await againstRawPeer(McpClient, {
    clientInfo: { name: "c", version: "1" }, protocolVersions: ["2025-11-25"], era: "handshake" });
  const ready = client.initialize();
  await later(5);
  const init = received.shift();
  assert.equal(init.method, "initialize");
  for (const [, text] of HOSTILE) raw.send(text);
  await later(50); // the raw peer's frames arrive asynchronously; the binary ones come after
  sendBinary();
  // A response with a hostile id, and one for no pending request: reported, nothing settles.
  raw.send('{"jsonrpc":"2.0","id":18446744073709551617,"result":{}}');
  raw.send('{"jsonrpc":"2.0","id":"nobody","result":{"__proto__":{"polluted":1}}}');
  await later(50);
  assert.equal(binaryViolations(violations), 1);
  raw.send(JSON.stringify({ jsonrpc: "2.0", id: init.id, result: {
    protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } } }));
  assert.equal((await ready).protocolVersion, "2025-11-25");
  const tools = client.listTools();
  await later(5);
  const list = received.find((m) => m.method === "tools/list");
  assert.ok(list, JSON.stringify(received.map((m) => m.method ?? m.error?.code)));
  raw.send(`{"jsonrpc":"2.0","id":${list.id},"result":{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"__proto__":{"type":"string"}}}}]}}`);
  const { tools: [tool] } = await tools;
  assert.ok(Object.hasOwn(tool.inputSchema.properties, "__proto__"));
  assertClean();
  client.close();
});

test("connected MCP server: relay side-channel look-alikes and hostile frames, then it works", LIMIT, async () => {
  const { session: server, raw, received, sendBinary } = await againstRawPeer(McpServer, {
    serverInfo: { name: "s", version: "1" }, protocolVersions: ["2025-11-25"], capabilities: { tools: {} } });
  server.onRequest("tools/list", () => ({ tools: [] }));
  const relay = [];
  server.onRelay((e) => relay.push(e));
  raw.send(request(0, "initialize", '{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}'));
  raw.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  await later(5);
  assert.equal(received.shift().result.protocolVersion, "2025-11-25");
  for (const [, text] of HOSTILE) raw.send(text);
  await later(50); // the raw peer's frames arrive asynchronously; the binary ones come after
  sendBinary();
  raw.send('{"relay":' + "[".repeat(DEPTH) + "]".repeat(DEPTH) + "}");
  raw.send('{"relay":{"__proto__":{"polluted":1},"event":"stderr","text":"x"}}');
  raw.send('{"relay":');
  await later(50);
  assert.deepEqual(received.map((m) => m.error?.code), [...HOSTILE.map(([, , w]) => w), ...BINARY.map(([, w]) => w)].map((w) => w.code));
  assert.equal(relay.length, 3);
  assert.deepEqual(relay[2], { event: "error", message: '{"relay":' });
  raw.send(request(7, "tools/list", "{}"));
  await later(5);
  assert.deepEqual(received.pop(), { jsonrpc: "2.0", id: 7, result: { tools: [] } });
  assertClean();
  server.close();
});

test("the relay's events from before anything listened reach the first listener, in order, at most 64; later ones live", LIMIT, async () => {
  const { session, raw } = await againstRawPeer(AcpClient, { clientInfo: { name: "c", version: "1" } });
  for (let i = 0; i < 70; i++) raw.send(`{"relay":{"event":"stderr","text":"${i}"}}`);
  await later(20);
  const first = [], second = [];
  session.onRelay((e) => first.push(e.text));
  session.onRelay((e) => second.push(e.text));
  await later(5);
  assert.deepEqual(first, Array.from({ length: 64 }, (_, i) => `${i}`));
  assert.deepEqual(second, [], "kept for the first listener only");
  raw.send('{"relay":{"event":"exit","code":0}}');
  await later(20);
  assert.equal(first.length, 65);
  assert.equal(second.length, 1);
  session.close();
});

test("frames that come in the same task as the WebSocket's open are kept, in order, with a close after them", LIMIT, async () => {
  // As the `ws` package hands over a frame that came in the same packet as the answer to the
  // upgrade: `open`, then at once `message`, before the connection's await of `open` resumes.
  const listeners = {};
  const socket = {
    readyState: 0, protocol: "agentwire.relay", sent: [],
    send(text) { this.sent.push(text); }, close() {},
    addEventListener(type, fn) { (listeners[type] ??= []).push(fn); },
  };
  const fire = (type, event) => (listeners[type] ?? []).forEach((fn) => fn(event));
  setTimeout(() => {
    socket.readyState = 1;
    fire("open", {});
    fire("message", { data: '{"relay":{"event":"spawned","pid":7}}' });
    fire("message", { data: '{"relay":{"event":"stderr","text":"hello"}}' });
  }, 5);
  const session = await AcpClient.connect(socket, { clientInfo: { name: "c", version: "1" } });
  const events = [];
  session.onRelay((e) => events.push(e.event));
  await later(5);
  assert.deepEqual(events, ["spawned", "stderr"]);
  // A close that comes before anything listened is not lost either: the session closes.
  const second = {}, sock2 = { ...socket, readyState: 0, addEventListener(type, fn) { (second[type] ??= []).push(fn); } };
  setTimeout(() => {
    sock2.readyState = 1;
    (second.open ?? []).forEach((fn) => fn({}));
    (second.close ?? []).forEach((fn) => fn({ code: 1011, reason: "gone" }));
  }, 5);
  const closed = await AcpClient.connect(sock2, { clientInfo: { name: "c", version: "1" } });
  const outcome = await Promise.race([
    closed.initialize().then(() => "answered", (e) => `${e.code} ${e.message}`),
    later(200).then(() => "still waiting"),
  ]);
  assert.match(outcome, /^-32099 .*closed/);
  session.close();
});
