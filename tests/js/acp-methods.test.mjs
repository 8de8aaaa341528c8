// The helpers of every stable ACP 1.21 method, against the official SDK 2.4.0 agent: each sends
// its method with the params the schema asks for, and is refused locally, naming the
// capability, when the agent did not advertise it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { agent } from "acp-sdk-v2";
import { AcpClient, codes } from "./helpers.mjs";
import { sdkStreamPair } from "./sdk-peers.mjs";

const clientInfo = { name: "methods-test", version: "1.0.0" };
const OPTIONS = [{ id: "model", name: "Model", type: "select", currentValue: "fast", options: [{ value: "fast", name: "Fast" }, { value: "deep", name: "Deep" }] }];

/** An official SDK agent advertising `caps`, recording what it was asked. */
function sdkAgent(caps, asked) {
  return agent({ name: "sdk" }).onRequest("*", ({ method, params }) => {
    asked.push([method, params]);
    switch (method) {
      case "initialize": return { protocolVersion: 1, agentCapabilities: caps, authMethods: [] };
      case "session/new": return { sessionId: "s1", configOptions: OPTIONS, modes: { currentModeId: "ask", availableModes: [{ id: "ask", name: "Ask" }, { id: "code", name: "Code" }] } };
      case "session/list": return { sessions: [{ sessionId: "s1", cwd: "/w", title: "First" }], nextCursor: null };
      case "session/set_config_option": return { configOptions: [{ ...OPTIONS[0], currentValue: params.value }] };
      default: return {};
    }
  });
}

async function connect(caps) {
  const asked = [];
  const [transport, stream] = sdkStreamPair();
  sdkAgent(caps, asked).connect(stream);
  const acp = await AcpClient.connect(transport, { clientInfo, protocolVersions: [1] });
  await acp.initialize();
  return { acp, asked };
}

test("listSessions, setConfigOption, setMode, closeSession, deleteSession, logout reach the SDK agent as the schema says", async () => {
  const caps = { sessionCapabilities: { list: {}, close: {}, delete: {} }, auth: { logout: {} } };
  const { acp, asked } = await connect(caps);
  const session = await acp.newSession({ cwd: "/w", mcpServers: [] });
  const listed = await acp.listSessions({ cwd: "/w" });
  assert.deepEqual(listed.sessions.map((s) => s.title), ["First"]);
  const set = await session.setConfigOption("model", "deep");
  assert.equal(set.configOptions[0].currentValue, "deep");
  await session.setMode("code");
  await acp.closeSession("s1");
  assert.equal(acp.getSession("s1"), undefined, "a closed session is forgotten");
  await acp.deleteSession("s1");
  await acp.logout();
  assert.deepEqual(asked.slice(2).map(([m, p]) => [m, p]), [
    ["session/list", { cwd: "/w" }],
    ["session/set_config_option", { sessionId: "s1", configId: "model", value: "deep" }],
    ["session/set_mode", { sessionId: "s1", modeId: "code" }],
    ["session/close", { sessionId: "s1" }],
    ["session/delete", { sessionId: "s1" }],
    ["logout", {}],
  ]);
  acp.close();
});

test("each helper is gated: refused locally, naming the agent capability, when not advertised", async () => {
  const { acp, asked } = await connect({});
  const refused = (capability) => (e) => e.code === codes.LOCAL_REFUSAL && e.data?.capability === capability;
  await assert.rejects(acp.listSessions(), refused("session.list"));
  await assert.rejects(acp.closeSession("s1"), refused("session.close"));
  await assert.rejects(acp.deleteSession("s1"), refused("session.delete"));
  await assert.rejects(acp.logout(), refused("auth.logout"));
  // v2-only methods are refused in v1, naming the version.
  await assert.rejects(acp.cancelToolCall("s1", "t1"), (e) => e.code === codes.LOCAL_REFUSAL && /v1/.test(e.message));
  // A malformed call is refused by validation before it leaves.
  await assert.rejects(acp.setConfigOption({ sessionId: "s1" }), (e) => e.code === codes.LOCAL_REFUSAL && /configId/.test(JSON.stringify(e.data)));
  assert.deepEqual(asked.map(([m]) => m), ["initialize"], "nothing refused was sent");
  acp.close();
});

test("a handler the negotiated version never calls is reported at initialize (a warning event)", async () => {
  const { stdioTransport } = await import("./helpers.mjs");
  const { fileURLToPath } = await import("node:url");
  const v2agent = fileURLToPath(new URL("../peers/acp-sdk-v2-agent.mjs", import.meta.url));
  // v2 (the official SDK's v2 agent): there are no fs methods.
  const v2 = await AcpClient.connect(await stdioTransport("node", [v2agent]), { clientInfo, protocolVersions: [2, 1], capabilities: { fs: { readTextFile: true } } });
  const warned = [];
  v2.onWarning((w) => warned.push(w));
  v2.onRequest("fs/read_text_file", () => ({ content: "" }));
  v2.onRequest("session/request_permission", () => ({ outcome: { outcome: "cancelled" } }));
  v2.onRequest("_acme/ping", () => ({}));
  await v2.initialize();
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(v2.state.protocolVersion, 2);
  assert.deepEqual(warned.map((w) => [w.code, w.method]), [["unreachable_handler", "fs/read_text_file"]]);
  assert.match(warned[0].message, /never called under the negotiated ACP v2: fs\/read_text_file is not a method of ACP v2/);
  v2.close();

  // v1 without the capability declared: gated, so never called either; registered after initialize, told at once.
  const { acp } = await connect({});
  const later = [];
  acp.onWarning((w) => later.push(w.message));
  acp.onRequest("fs/write_text_file", () => null);
  acp.onRequest("session/prompt", () => ({}));
  assert.equal(later.length, 2, later.join("\n"));
  assert.match(later[0], /fs\.writeTextFile, which was not advertised/);
  assert.match(later[1], /sent by this side/);
  acp.close();
});
