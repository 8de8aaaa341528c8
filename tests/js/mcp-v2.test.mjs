// McpClient against a server on the official MCP TypeScript SDK v2, over Streamable HTTP:
// the 2026-07-28 era with `era: "auto"`, the request metadata headers on the wire, a tool
// that asks for input mid-call, and the handshake era against the same endpoint.
import { test } from "node:test";
import assert from "node:assert/strict";
import { McpClient } from "./helpers.mjs";
import { sdkV2Server } from "./mcp-v2-peers.mjs";

const clientInfo = { name: "v2-test", version: "1.0.0" };

async function connect(server, options = {}) {
  const violations = [];
  const client = await McpClient.connect(server.url, { clientInfo, capabilities: { elicitation: {} }, ...options });
  client.onViolation((v) => violations.push(v));
  return { client, violations };
}

const posts = (server, method) => server.requests.filter((r) => r.method === "POST" && r.headers["mcp-method"] === method);

test("era auto reaches an official v2 server in 2026-07-28, with Mcp-Method and Mcp-Name on every request", async (t) => {
  const server = await sdkV2Server();
  t.after(() => server.close());
  const { client, violations } = await connect(server);
  const answer = await client.initialize();
  assert.equal(client.state.era, "stateless");
  assert.equal(client.state.protocolVersion, "2026-07-28");
  assert.equal(answer.fallback, undefined, "no fallback");
  assert.equal(answer.protocolVersion, "2026-07-28");
  assert.equal(answer.serverInfo.name, "sdk-v2");
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((x) => x.name), ["echo", "sql", "deploy"]);
  const echoed = await client.callTool("echo", { message: "hi" });
  assert.equal(echoed.content[0].text, "echo: hi");
  const prompt = await client.getPrompt("greet");
  assert.equal(prompt.messages[0].content.text, "hello");
  const read = await client.readResource("file:///readme.md");
  assert.equal(read.contents[0].text, "# readme");
  // Every POST named its method; the three that name a target named it too.
  const all = server.requests.filter((r) => r.method === "POST");
  assert.ok(all.length >= 5);
  for (const r of all) {
    assert.equal(r.headers["mcp-protocol-version"], "2026-07-28");
    assert.ok(r.headers["mcp-method"], JSON.stringify(r.headers));
    assert.equal(r.headers["mcp-session-id"], undefined, "the stateless era has no session");
  }
  assert.equal(posts(server, "tools/call")[0].headers["mcp-name"], "echo");
  assert.equal(posts(server, "prompts/get")[0].headers["mcp-name"], "greet");
  assert.equal(posts(server, "resources/read")[0].headers["mcp-name"], "file:///readme.md");
  assert.equal(server.requests.filter((r) => r.method !== "POST").length, 0, "no GET stream, no DELETE in this era");
  assert.deepEqual(violations, []);
  client.close();
});

test("an argument marked x-mcp-header rides in Mcp-Param-*, encoded when it is not plain ASCII", async (t) => {
  const server = await sdkV2Server({ legacy: "reject" });
  t.after(() => server.close());
  const { client, violations } = await connect(server, { era: "stateless" });
  await client.initialize();
  await client.listTools(); // the client learns which arguments go in headers from the list
  const plain = await client.callTool("sql", { region: "us-west1", query: "SELECT 1" });
  assert.equal(plain.content[0].text, "SELECT 1 in us-west1");
  const wide = await client.callTool("sql", { region: "Zürich ", query: "SELECT 2" });
  assert.equal(wide.content[0].text, "SELECT 2 in Zürich ");
  const calls = posts(server, "tools/call");
  assert.equal(calls[0].headers["mcp-param-region"], "us-west1");
  assert.equal(calls[1].headers["mcp-param-region"], `=?base64?${Buffer.from("Zürich ").toString("base64")}?=`);
  assert.deepEqual(violations, []);
  client.close();
});

test("a tool that asks for input mid-call is fulfilled through onRequest and retried with inputResponses", async (t) => {
  const server = await sdkV2Server();
  t.after(() => server.close());
  const { client, violations } = await connect(server);
  await client.initialize();
  const asked = [];
  client.onRequest("elicitation/create", (params) => {
    asked.push(params);
    return { action: "accept", content: { confirm: true } };
  });
  const result = await client.callTool("deploy", { env: "prod" });
  assert.equal(result.content[0].text, "deployed to prod");
  assert.equal(asked.length, 1);
  assert.equal(asked[0].message, "Deploy to prod?");
  assert.equal(posts(server, "tools/call").length, 2, "the call, then its retry");
  // By hand: the result as it came, and the retry built by the app.
  const raw = await client.callTool("deploy", { env: "dev" }, { inputRequired: "return" });
  assert.equal(raw.resultType, "input_required");
  assert.equal(raw.requestState, "deploy:dev");
  const done = await client.request("tools/call", {
    name: "deploy", arguments: { env: "dev" }, requestState: raw.requestState,
    inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
  });
  assert.equal(done.content[0].text, "deployed to dev");
  assert.deepEqual(violations, []);
  client.close();
});

test("input asked with no handler to answer it rejects the call with -32601, naming the method", async (t) => {
  const server = await sdkV2Server();
  t.after(() => server.close());
  const { client } = await connect(server);
  await client.initialize();
  await assert.rejects(client.callTool("deploy", { env: "prod" }), (e) => e.code === -32601 && /elicitation\/create/.test(e.message));
  client.close();
});

test("the handshake era still reaches the same v2 endpoint", async (t) => {
  const server = await sdkV2Server();
  t.after(() => server.close());
  const { client, violations } = await connect(server, { era: "handshake", protocolVersions: ["2025-11-25"] });
  await client.initialize();
  assert.equal(client.state.era, "handshake");
  const echoed = await client.callTool("echo", { message: "old" });
  assert.equal(echoed.content[0].text, "echo: old");
  assert.equal(server.requests.filter((r) => r.headers["mcp-method"]).length, 0, "no 2026 headers in the handshake era");
  assert.deepEqual(violations, []);
  client.close();
});

test("era auto says why it falls back when the server has no stateless era", async (t) => {
  const { sdkServer } = await import("./http-peers.mjs");
  const old = await sdkServer();
  t.after(() => old.close());
  const client = await McpClient.connect(old.url, { clientInfo });
  const answer = await client.initialize();
  assert.equal(client.state.era, "handshake");
  assert.equal(answer.fallback.from, "2026-07-28");
  assert.equal(answer.fallback.to, "2025-11-25");
  assert.ok(answer.fallback.reason.message.length > 0, answer.fallback.reason.message);
  assert.ok(!Object.keys(answer).includes("fallback"), "not part of the wire answer");
  client.close();
});

test("a tool whose x-mcp-header marks are invalid is left out of tools/list, with a warning naming it", async (t) => {
  const { rawServer } = await import("./http-peers.mjs");
  const tool = (name, schema) => ({ name, inputSchema: { type: "object", properties: schema } });
  const server = await rawServer((req, message, res) => {
    const reply = (result) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { ...result, resultType: "complete" } }));
    };
    if (message?.method === "server/discover") return reply({ supportedVersions: ["2026-07-28"], capabilities: { tools: {} } });
    if (message?.method === "tools/list") {
      return reply({ tools: [
        tool("good", { region: { type: "string", "x-mcp-header": "Region" } }),
        tool("float", { n: { type: "number", "x-mcp-header": "N" } }),
        tool("nested", { list: { type: "array", items: { type: "string", "x-mcp-header": "Item" } } }),
      ] });
    }
    return false;
  });
  t.after(() => server.close());
  const { client, violations } = await connect(server);
  await client.initialize();
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((x) => x.name), ["good"]);
  const warnings = violations.flatMap((v) => v.issues).filter((i) => i.code === "transport_warning");
  assert.equal(warnings.length, 2, JSON.stringify(violations));
  assert.match(warnings[0].message, /"float".*not a string, an integer or a boolean/);
  assert.match(warnings[1].message, /"nested".*properties/);
  client.close();
});
