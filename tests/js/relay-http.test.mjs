// The relay's Streamable HTTP endpoint (`/mcp/<agent>`, the demo agent's MCP mode behind it)
// with two clients: the official SDK's StreamableHTTPClientTransport, and agentwire's own.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { McpClient, later } from "./helpers.mjs";
import { relayWithMcp } from "./http-peers.mjs";

const relay = await relayWithMcp();
after(() => relay.close());

async function until(what, check) {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await later(25);
  }
  assert.fail(`never: ${what}`);
}

test("the official SDK's StreamableHTTPClientTransport: tools, progress, a server→client request, DELETE", async () => {
  const transport = new StreamableHTTPClientTransport(new URL(relay.url), { requestInit: { headers: { authorization: `Bearer ${relay.token}` } } });
  const client = new Client({ name: "sdk", version: "1" }, { capabilities: { sampling: {} } });
  let asked;
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    asked = request.params;
    return { role: "assistant", content: { type: "text", text: "from the SDK" }, model: "m" };
  });
  await client.connect(transport);
  assert.match(transport.sessionId, /^[0-9a-f]{64}$/);
  assert.equal(client.getServerVersion().name, "agentwire-demo-agent");
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === "echo") && tools.some((t) => t.name === "test_sampling"));
  assert.deepEqual((await client.callTool({ name: "echo", arguments: { message: "hi" } })).content, [{ type: "text", text: "hi" }]);
  const steps = [];
  await client.callTool({ name: "slow", arguments: { steps: 3, delayMs: 10 } }, undefined, { onprogress: (p) => steps.push(p.progress) });
  assert.deepEqual(steps, [1, 2, 3]);
  const sampled = await client.callTool({ name: "test_sampling", arguments: { prompt: "2+2?" } });
  assert.equal(asked.messages[0].content.text, "2+2?");
  assert.equal(sampled.content[0].text, "LLM response: from the SDK");
  assert.equal(relay.pids().length, 1, "one process for the session");
  await transport.terminateSession();
  await client.close();
  await until("the session's process ended", () => relay.pids().length === 0);
});

test("agentwire's McpClient over HTTP to the relay in the handshake era: progress, elicitation, and close ends the process", async () => {
  // The relay serves both eras (tests/js/relay-v2.test.mjs); this is the session-based one.
  const client = await McpClient.connect(relay.url, { clientInfo: { name: "aw", version: "1" }, capabilities: { elicitation: {} },
    protocolVersions: ["2025-11-25"], headers: { authorization: `Bearer ${relay.token}` } });
  const violations = [];
  client.onViolation((v) => violations.push(v));
  const init = await client.initialize();
  assert.equal(init.protocolVersion, "2025-11-25");
  assert.equal(client.state.era, "handshake");
  const steps = [];
  await client.callTool("slow", { steps: 2, delayMs: 10 }, { onProgress: (p) => steps.push(p.params.progress) });
  assert.deepEqual(steps, [1, 2]);
  client.onRequest("elicitation/create", () => ({ action: "accept", content: { response: "yes" } }));
  const elicited = await client.callTool("test_elicitation", { message: "Go?" });
  assert.equal(elicited.content[0].text, 'User response: action=accept, content={"response":"yes"}');
  assert.deepEqual(violations, []);
  client.close();
  await until("the session's process ended", () => relay.pids().length === 0);
});
