// Request ids past 2^53 stay exact through the JS layer: they cross as BigInt, so every
// request can be answered, in sans-IO and connected mode alike.
import { test } from "node:test";
import assert from "node:assert/strict";
import { AcpAgent, AcpClient, McpServer, parseMessage, transportPair } from "./helpers.mjs";

const BIG = "9007199254740993"; // 2^53 + 1: a JS number would read 9007199254740992
const agentInfo = { name: "a", version: "1" };

function initialized(agent) {
  agent.receive(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize",
    params: { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: "c", version: "1" } } }));
}

test("sans-IO: a 64-bit id reaches JS as a BigInt and the answer carries it exactly", () => {
  const agent = new AcpAgent({ agentInfo, protocolVersions: [1] });
  initialized(agent);
  const events = agent.receive(`{"jsonrpc":"2.0","id":${BIG},"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`);
  const request = events.find((e) => e.type === "request");
  assert.equal(request.id, BigInt(BIG));
  const text = agent.respond(request.id, { sessionId: "s" });
  assert.ok(text.includes(`"id":${BIG}`), text);
  const negative = agent.receive(`{"jsonrpc":"2.0","id":-${BIG},"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`);
  assert.equal(negative.find((e) => e.type === "request").id, -BigInt(BIG));
  // Small ids stay numbers; parseMessage keeps big ones exact too.
  assert.equal(typeof parseMessage('{"jsonrpc":"2.0","id":5,"method":"x"}').id, "number");
  assert.equal(parseMessage(`{"jsonrpc":"2.0","id":${BIG},"method":"x"}`).id, BigInt(BIG));
});

test("connected: the handler of a request with a 64-bit id runs and its answer goes back exactly", async () => {
  const [peer, st] = transportPair();
  const server = await McpServer.connect(st, { serverInfo: { name: "s", version: "1" }, protocolVersions: ["2025-06-18"], capabilities: { tools: {} } });
  server.onRequest("tools/list", () => ({ tools: [] }));
  const replies = [];
  peer.onmessage = ({ data }) => replies.push(data);
  peer.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } } }));
  peer.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  peer.send(`{"jsonrpc":"2.0","id":${BIG},"method":"tools/list"}`);
  for (let i = 0; i < 50 && !replies.some((r) => r.includes(BIG)); i++) await new Promise((r) => setTimeout(r, 5));
  const answer = replies.find((r) => r.includes(BIG));
  assert.ok(answer, `no answer: ${replies}`);
  assert.ok(answer.includes(`"id":${BIG},"result":{"tools":[]}`), answer);
  server.close();
});

test("a BigInt id past 64 bits is refused with -32602, not rounded", () => {
  const client = new AcpClient({});
  assert.throws(() => client.respond(2n ** 70n, {}), (e) => e.code === -32602 && /64-bit/.test(e.message));
});

test("every error is a real ProtocolError with a short stack, local refusals and module errors alike", async () => {
  const { ProtocolError: PE, Validator } = await import("./helpers.mjs");
  const cases = [
    () => new AcpClient({ protocolVersion: [1] }),                       // a misspelt option
    () => new AcpClient({}).request("session/new", { cwd: "/w" }),     // refused before initialize
    () => new Validator({ protocol: "acp", version: "9" }),
    () => parseMessage("{not json"),
  ];
  for (const make of cases) {
    let caught;
    try { make(); } catch (e) { caught = e; }
    assert.ok(caught, String(make));
    assert.equal(caught.constructor, PE, `${make}: ${caught.constructor.name}`);
    assert.equal(typeof caught.code, "number");
    assert.doesNotMatch(caught.stack.split("\n")[1] ?? "", /agentwire\.js|wasm-function/, caught.stack);
  }
  assert.throws(() => new AcpClient({ protocolVersion: [1] }), (e) => e.code === -32602 && /unknown option `protocolVersion`/.test(e.message));
});

test("connected: a handler's answer refused as invalid keeps its reasons, for the app and (without values) for the peer", async () => {
  const [peer, st] = transportPair();
  const server = await McpServer.connect(st, { serverInfo: { name: "s", version: "1" }, protocolVersions: ["2025-06-18"], capabilities: { tools: {} } });
  server.onRequest("tools/call", () => ({ content: [{ type: "text", text: "secret value" }], structuredContent: "not an object" }));
  const violations = [];
  server.onViolation((v) => violations.push(v));
  const replies = [];
  peer.onmessage = ({ data }) => replies.push(JSON.parse(data));
  peer.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } } }));
  peer.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  peer.send('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{}}}');
  for (let i = 0; i < 50 && !replies.some((r) => r.id === 2); i++) await new Promise((r) => setTimeout(r, 5));
  const answer = replies.find((r) => r.id === 2);
  assert.equal(answer.error.code, -32603);
  assert.match(answer.error.message, /\/result\/structuredContent wrong_type/);
  assert.doesNotMatch(JSON.stringify(answer), /secret value|not an object/, "no value of the refused answer leaks");
  const v = violations.find((x) => x.direction === "out");
  assert.equal(v.method, "tools/call");
  assert.equal(v.id, 2);
  assert.deepEqual(v.issues.map((i) => [i.path, i.code]), [["/result/structuredContent", "wrong_type"]]);
  server.close();
});
