// The relay's Streamable HTTP endpoints in both eras, against the official MCP TypeScript SDK
// v2 client (`@modelcontextprotocol/client` 2.4.0): `/mcp/NAME` (the demo agent's MCP mode over
// stdio) pinned to 2026-07-28, in auto and in the plain handshake; a page-hosted server at
// `/hosted/ID` in 2026-07-28; and agentwire's McpClient through `/mcp/NAME` at each of the
// five versions.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WebSocket } from "ws";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { AcpClient, McpClient } from "./helpers.mjs";
import { relayWithMcp } from "./http-peers.mjs";

const ROOT = join(import.meta.dirname, "..", "..");
let relay;
before(async () => {
  relay = await relayWithMcp(["--agent", `demo=${join(ROOT, "target/release/agentwire-demo-agent")}`]);
});
after(() => relay?.close());

/** The official v2 client on `url` with the relay's token; `mode` as its versionNegotiation. */
async function v2Client(url, mode, headers = { authorization: `Bearer ${relay.token}` }) {
  const client = new Client({ name: "v2", version: "2.4.0" }, mode ? { versionNegotiation: { mode } } : {});
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

for (const [label, mode] of [["pinned to 2026-07-28", { pin: "2026-07-28" }], ["in auto", "auto"], ["in the handshake (legacy)", undefined]]) {
  test(`the official v2 client ${label} lists and calls tools at /mcp/NAME`, async () => {
    const client = await v2Client(relay.url, mode);
    const { tools } = await client.listTools();
    assert.ok(tools.some((x) => x.name === "echo"), tools.map((x) => x.name).join());
    const result = await client.callTool({ name: "echo", arguments: { message: "relayed" } });
    assert.match(JSON.stringify(result.content), /relayed/);
    if (mode) assert.equal(client.getNegotiatedProtocolVersion?.() ?? "2026-07-28", "2026-07-28");
    await client.close();
  });
}

test("the official v2 client pinned to 2026-07-28 reaches a page-hosted server at /hosted/ID", async () => {
  const origin = relay.base;
  const Ws = class extends WebSocket { constructor(url, protocols) { super(url, protocols, { origin }); } };
  const acp = await AcpClient.connect(`${relay.base.replace("http", "ws")}/ws?token=${relay.token}&agent=demo`, { WebSocket: Ws, clientInfo: { name: "ide", version: "1" } });
  await acp.initialize();
  const entry = await acp.hostMcpServer({
    name: "ide",
    serverInfo: { name: "ide-tools", version: "1" },
    capabilities: { tools: {} },
    setup: (server) => {
      server.onRequest("tools/list", () => ({ tools: [{ name: "open_editors", inputSchema: { type: "object", properties: {} } }] }));
      server.onRequest("tools/call", () => ({ content: [{ type: "text", text: "main.rs" }] }));
    },
  });
  const headers = Object.fromEntries(entry.headers.map((h) => [h.name, h.value]));
  const client = await v2Client(entry.url, { pin: "2026-07-28" }, headers);
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((x) => x.name), ["open_editors"]);
  const result = await client.callTool({ name: "open_editors", arguments: {} });
  assert.equal(result.content[0].text, "main.rs");
  await client.close();
  acp.close();
});

for (const version of ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]) {
  test(`agentwire's McpClient at ${version} through /mcp/NAME`, async () => {
    const mcp = await McpClient.connect(relay.url, { clientInfo: { name: "aw", version: "1" }, protocolVersions: [version], headers: { authorization: `Bearer ${relay.token}` } });
    const violations = [];
    mcp.onViolation((v) => violations.push(v));
    await mcp.initialize();
    assert.equal(mcp.state.protocolVersion, version);
    assert.equal(mcp.state.era, version === "2026-07-28" ? "stateless" : "handshake");
    const { tools } = await mcp.listTools();
    assert.ok(tools.some((x) => x.name === "echo"));
    const result = await mcp.callTool("echo", { message: version });
    assert.match(JSON.stringify(result.content), new RegExp(version));
    assert.deepEqual(violations, []);
    mcp.close();
  });
}
