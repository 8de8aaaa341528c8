// Prompt turns end the same way in v1 and v2: `session.prompt()` resolves when the turn is
// over, with its stop reason, against peers that implement each version as its spec says.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AcpClient, ProtocolError, codes, stdioTransport } from "./helpers.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SDK_V2_AGENT = ["node", [join(ROOT, "tests/peers/acp-sdk-v2-agent.mjs")]];
const SDK_V1_AGENT = ["node", [join(ROOT, "node_modules/@agentclientprotocol/sdk/dist/examples/agent.js")]];
const DEMO = [join(ROOT, "target/release/agentwire-demo-agent"), ["--data-dir", join(ROOT, "target/turns-test-data")]];
const clientInfo = { name: "turns-test", version: "1.0.0" };

async function connect([cmd, args], protocolVersions) {
  const transport = await stdioTransport(cmd, args);
  const acp = await AcpClient.connect(transport, { clientInfo, protocolVersions });
  acp.onRequest("session/request_permission", ({ options }) => ({ outcome: { outcome: "selected", optionId: options[0].optionId } }));
  await acp.initialize();
  return acp;
}

const text = (t) => [{ type: "text", text: t }];
const said = (session) => session.transcript().entries
  .filter((e) => e.kind === "message" && e.role === "agent").flatMap((e) => e.content.map((c) => c.text)).join("");

test("v2 (official SDK agent): prompt() resolves at the end of the turn with its stop reason, after the agent's answer", async () => {
  const acp = await connect(SDK_V2_AGENT, [2, 1]);
  assert.equal(acp.state.protocolVersion, 2);
  const session = await acp.newSession({ cwd: "/tmp", mcpServers: [] });
  const order = [];
  session.onUpdate((u) => u.sessionUpdate === "agent_message_chunk" && order.push("chunk"));
  const turn = session.prompt(text("hi"));
  turn.accepted.then((ack) => order.push(`accepted ${ack.messageId}`));
  const outcome = await turn;
  order.push("ended");
  assert.deepEqual(outcome, { stopReason: "end_turn", messageId: "user_1" });
  assert.deepEqual(order, ["accepted user_1", "chunk", "chunk", "chunk", "chunk", "ended"]);
  assert.equal(said(session), "Hello from the SDK", "the whole answer is in before the turn resolves");
  acp.close();
});

test("v2 (official SDK agent): cancel ends the turn with stopReason cancelled; a refused prompt rejects", async () => {
  const acp = await connect(SDK_V2_AGENT, [2]);
  const session = await acp.newSession({ cwd: "/tmp", mcpServers: [] });
  const turn = session.prompt(text("cancel me"));
  await turn.accepted;
  await new Promise((r) => session.onUpdate((u) => u.sessionUpdate === "agent_message_chunk" && r()));
  await session.cancel();
  assert.equal((await turn).stopReason, "cancelled");
  const refused = session.prompt(text("refuse"));
  await assert.rejects(refused, (e) => e instanceof ProtocolError && e.code === codes.INVALID_PARAMS);
  await assert.rejects(refused.accepted, (e) => e.code === codes.INVALID_PARAMS);
  // The session takes the next prompt.
  assert.equal((await session.prompt(text("again"))).stopReason, "end_turn");
  acp.close();
});

test("v2: a turn still running when the connection closes rejects; timeoutMs covers the whole turn", async () => {
  const acp = await connect(SDK_V2_AGENT, [2]);
  const session = await acp.newSession({ cwd: "/tmp", mcpServers: [] });
  const slow = session.prompt(text("cancel me"), { timeoutMs: 150 });
  await slow.accepted;
  await assert.rejects(slow, (e) => e.code === codes.TIMEOUT && e.data.method === "session/prompt");
  const open = session.prompt(text("cancel me"));
  await open.accepted;
  acp.close();
  await assert.rejects(open, (e) => e.code === codes.CONNECTION_CLOSED);
});

test("v1 (official SDK example agent) and the demo agent in v1 and v2: the same outcome shape", async () => {
  const acp = await connect(SDK_V1_AGENT, [1]);
  const s = await acp.newSession({ cwd: "/tmp", mcpServers: [] });
  const turn = s.prompt(text("hello"));
  const [outcome, answer] = await Promise.all([turn, turn.accepted]);
  assert.equal(outcome.stopReason, "end_turn");
  assert.equal(answer.stopReason, "end_turn", "v1 has no acknowledgement: accepted is the answer");
  acp.close();
  for (const v of [1, 2]) {
    const demo = await connect(DEMO, [v]);
    const session = await demo.newSession({ cwd: "/tmp", mcpServers: [] });
    const result = await session.prompt(text("Hello, agent!"));
    assert.equal(result.stopReason, "end_turn", `v${v}`);
    assert.equal(said(session), "You said: Hello, agent!", `v${v}: the answer is in when the turn ends`);
    if (v === 2) assert.equal(result.messageId, "msg_1_user");
    demo.close();
  }
});
