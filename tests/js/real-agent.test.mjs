// The page's own tools with a real coding agent: the Claude Agent ACP adapter (from the npm
// registry), started by the relay, reaches an MCP server running in the page through the
// relay's hosted endpoint. Only its model is a stand-in: a local mock of the Messages API
// (tests/peers/anthropic-mock.mjs) that asks for the page's tool and quotes what it returns.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { WebSocket } from "ws";
import { AcpClient } from "./helpers.mjs";
import { relayWithMcp } from "./http-peers.mjs";
import { anthropicMock } from "../peers/anthropic-mock.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const ADAPTER = join(root, "node_modules/@zed-industries/claude-agent-acp/dist/index.js");
// Claude Code keeps the server name "ide" for its own IDE integration (and drops other tools of
// a server so named), so the page's server is named "page".
const TOOL = "mcp__page__open_editors";
let relay, mock, home;

before(async () => {
  mock = await anthropicMock({ wants: TOOL });
  home = mkdtempSync(join(tmpdir(), "agentwire-claude-"));
  relay = await relayWithMcp(["--agent", `claude=node ${ADAPTER}`], {
    ANTHROPIC_BASE_URL: mock.url, ANTHROPIC_API_KEY: "sk-ant-test", IS_SANDBOX: "1", HOME: home, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  });
});
after(async () => {
  // The agent writes under HOME until it ends: removed once the relay (and so the agent) has exited.
  await relay?.close();
  mock?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

test("the Claude Agent ACP adapter calls the page's tool through the relay; the page's handler runs and its result goes back to the model", { timeout: 60_000 }, async () => {
  const origin = relay.base;
  const Ws = class extends WebSocket { constructor(url, protocols) { super(url, protocols, { origin }); } };
  // frames=binary: the agent's lines come as bytes, read by the session as such.
  const acp = await AcpClient.connect(`${relay.base.replace("http", "ws")}/ws?token=${relay.token}&agent=claude&frames=binary`, { WebSocket: Ws, clientInfo: { name: "ide", version: "1" } });
  const frames = [];
  acp.onFrame((f) => { if (f.direction === "in") frames.push(f); });
  const asked = [];
  acp.onRequest("session/request_permission", (p) => {
    asked.push(p.toolCall?.title);
    return { outcome: { outcome: "selected", optionId: p.options.find((o) => o.kind === "allow_once").optionId } };
  });
  const init = await acp.initialize();
  assert.equal(init.agentInfo.name, "@zed-industries/claude-agent-acp");
  const calls = [];
  const entry = await acp.hostMcpServer({
    name: "page", serverInfo: { name: "ide-tools", version: "1" }, capabilities: { tools: {} },
    setup: (server) => {
      server.onRequest("tools/list", () => ({ tools: [{ name: "open_editors", description: "The files open in the editor", inputSchema: { type: "object", properties: {} } }] }));
      server.onRequest("tools/call", (params) => {
        calls.push(params.name);
        return { content: [{ type: "text", text: "main.rs, lib.rs" }] };
      });
    },
  });
  const session = await acp.newSession({ cwd: home, mcpServers: [entry] });
  const updates = [];
  session.onUpdate((u) => updates.push(u));
  const { stopReason } = await session.prompt([{ type: "text", text: "Which files are open?" }]);
  assert.equal(stopReason, "end_turn");
  assert.deepEqual(calls, ["open_editors"], "the page's handler ran once");
  assert.deepEqual(asked, [TOOL], "the agent asked the page's permission for the tool");
  const results = mock.toolResults.map((r) => r.content.map((c) => c.text).join(""));
  assert.deepEqual(results, ["main.rs, lib.rs"], "the tool's result went back to the model");
  const call = updates.find((u) => u.sessionUpdate === "tool_call" && u.title === TOOL);
  assert.ok(call, "the transcript has the tool call");
  assert.ok(updates.some((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === call.toolCallId && u.status === "completed"));
  const said = updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join("");
  assert.equal(said, "The tool said: main.rs, lib.rs");
  assert.ok(frames.length > 5 && frames.every((f) => f.bytes instanceof Uint8Array), "every agent line came as bytes");
  assert.equal(JSON.parse(frames[0].text).result.agentInfo.name, "@zed-industries/claude-agent-acp", "a frame's text is its bytes decoded");
  acp.close();
});
