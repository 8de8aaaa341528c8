// Lenient reading as the ACP schema marks it: the same crafted messages go from an official
// SDK 2.4.0 agent to the official SDK 2.4.0 client and to agentwire's AcpClient, and each app
// must receive the same values (responses: as the SDK's own schemas read them, since its client
// hands them over unparsed). A member marked default-on-error that does not hold is
// defaulted, an invalid item of a list marked skip-invalid-items is skipped). With `strict`,
// agentwire delivers what came, as before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { agent, client } from "acp-sdk-v2";
import { AcpClient } from "./helpers.mjs";
import { sdkStreamPair, seen } from "./sdk-peers.mjs";
// The SDK's client hands responses over unparsed; its schemas (which its requests, notifications
// and the Rust SDK read with) say how a response reads: the same zod schemas, applied here.
import * as zod from "../../node_modules/acp-sdk-v2/dist/v1/unstable/schema/zod.gen.js";

const text = (t) => ({ type: "text", text: t });
const call = (extra) => ({ sessionUpdate: "tool_call", toolCallId: "t1", title: "Read", ...extra });

/** Each case: a name, the update the agent sends (or a result/params in the script below). */
const UPDATES = [
  ["a tool call with status \"paused\" (not a v1 status)", call({ status: "paused" })],
  ["a session title 42", { sessionUpdate: "session_info_update", title: 42 }],
  ["a location with line -5", call({ locations: [{ path: "/a.rs", line: -5 }] })],
  ["a location without its path, in a list", call({ locations: [{ line: 3 }, { path: "/ok.rs" }] })],
  ["a tool kind 7", call({ kind: 7 })],
  ["a malformed tool call content item", call({ content: [{ type: "diff" }, { type: "content", content: text("ok") }] })],
  ["a plan entry without its priority", { sessionUpdate: "plan", entries: [{ content: "a", status: "pending" }, { content: "b", priority: "high", status: "pending" }] }],
  ["a command list with a malformed command", { sessionUpdate: "available_commands_update", availableCommands: [{ name: 5 }, { name: "fix", description: "Fix it" }] }],
  ["annotations with priority \"high\"", { sessionUpdate: "agent_message_chunk", content: { ...text("hi"), annotations: { priority: "high", audience: ["user", 3] } } }],
  ["a tool call update whose locations are not a list", { sessionUpdate: "tool_call_update", toolCallId: "t1", locations: "here", title: 9 }],
];
const AUTH_METHODS = [{ id: 7 }, { id: "key", name: "API key" }];
const NEW_SESSION = { sessionId: "s1", modes: { currentModeId: 3, availableModes: [] }, configOptions: [{ id: "m" }, { id: "model", name: "Model", type: "select", currentValue: "a", options: [{ value: "a", name: "A" }] }] };
const LIST = { sessions: [{ sessionId: "s1" }, { sessionId: "s2", cwd: "/w", title: ["x"], updatedAt: 5 }] };
const PERMISSION = { sessionId: "s1", toolCall: { toolCallId: "t1", status: "paused", kind: "teleport" }, options: [{ optionId: "ok", name: "OK", kind: "allow_once" }] };

/** An official SDK agent that answers and sends the crafted messages, raw. */
function sdkAgent() {
  return agent({ name: "crafted" }).onRequest("*", async ({ method, client: peer }) => {
    switch (method) {
      case "initialize": return { protocolVersion: 1, agentCapabilities: { sessionCapabilities: { list: {} } }, authMethods: AUTH_METHODS };
      case "session/new": return NEW_SESSION;
      case "session/list": return LIST;
      case "session/prompt":
        for (const [, update] of UPDATES) await peer.sendNotification("session/update", { sessionId: "s1", update });
        await peer.sendRequest("session/request_permission", PERMISSION);
        return { stopReason: "end_turn" };
      default: throw new Error(`unexpected ${method}`);
    }
  });
}

const INIT = { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: "compare", version: "1.0.0" } };

/** What the official SDK client's app receives. */
async function throughSdk() {
  const got = { updates: [], permission: null };
  const app = client({ name: "compare" })
    .onNotification("session/update", ({ params }) => { got.updates.push(seen(params.update)); })
    .onRequest("session/request_permission", ({ params }) => { got.permission = seen(params); return { outcome: { outcome: "cancelled" } }; });
  await app.connectWith(sdkAgent(), async (ctx) => {
    got.init = seen(zod.zInitializeResponse.parse(await ctx.request("initialize", INIT)));
    got.newSession = seen(zod.zNewSessionResponse.parse(await ctx.request("session/new", { cwd: "/w", mcpServers: [] })));
    got.list = seen(zod.zListSessionsResponse.parse(await ctx.request("session/list", {})));
    await ctx.request("session/prompt", { sessionId: "s1", prompt: [text("go")] });
  });
  return got;
}

/** What agentwire's app receives, from the same SDK agent over NDJSON. */
async function throughAgentwire(options = {}) {
  const [transport, stream] = sdkStreamPair();
  sdkAgent().connect(stream);
  const acp = await AcpClient.connect(transport, { clientInfo: INIT.clientInfo, protocolVersions: [1], ...options });
  const got = { updates: [], permission: null, violations: [] };
  acp.onViolation((v) => got.violations.push(v));
  acp.onUpdate((_, update) => got.updates.push(seen(update)));
  acp.onRequest("session/request_permission", (params) => { got.permission = seen(params); return { outcome: { outcome: "cancelled" } }; });
  got.init = seen(await acp.initialize());
  const session = await acp.newSession({ cwd: "/w", mcpServers: [] });
  got.newSession = seen(session.result);
  got.list = seen(await acp.listSessions({}));
  await session.prompt([text("go")]);
  got.transcript = session.transcript();
  acp.close();
  return got;
}

test("12+ crafted messages: agentwire's app receives what the official SDK client's app receives", async () => {
  const [sdk, ours] = [await throughSdk(), await throughAgentwire()];
  assert.equal(ours.updates.length, UPDATES.length);
  UPDATES.forEach(([name], i) => assert.deepEqual(ours.updates[i], sdk.updates[i], name));
  assert.deepEqual(ours.init.authMethods, sdk.init.authMethods, "initialize: an invalid auth method is skipped");
  assert.deepEqual(ours.newSession.configOptions, sdk.newSession.configOptions, "session/new: an invalid config option is skipped");
  assert.deepEqual(ours.newSession.modes, sdk.newSession.modes, "session/new: modes that do not hold are defaulted");
  assert.deepEqual(ours.list, sdk.list, "session/list: an invalid session is skipped, bad fields defaulted");
  assert.deepEqual(ours.permission, sdk.permission, "a permission request's tool call, repaired");
  // Each repair is a warning naming the path and what was done; nothing is left as an error.
  const issues = ours.violations.flatMap((v) => v.issues);
  assert.ok(issues.length >= 14, `${issues.length} repairs`);
  assert.ok(issues.every((i) => i.severity === "warning" && ["defaulted", "skipped_invalid_item"].includes(i.code)), JSON.stringify(issues.filter((i) => i.severity !== "warning")));
  assert.ok(issues.some((i) => i.path === "/params/update/status" && /default/.test(i.message)));
  assert.ok(issues.some((i) => i.path === "/params/update/locations/0" && i.code === "skipped_invalid_item"));
  // The transcript is built from the repaired values.
  const calls = ours.transcript.entries.filter((e) => e.kind === "toolCall");
  assert.ok(calls.every((c) => c.call.status !== "paused" && (c.call.locations ?? []).every((l) => typeof l.path === "string")), JSON.stringify(calls));
  assert.equal(ours.transcript.info?.title, undefined);
});

test("strict: the values come as they were sent, with error-severity issues", async () => {
  const ours = await throughAgentwire({ strict: true });
  UPDATES.forEach(([name, update], i) => assert.deepEqual(ours.updates[i], update, name));
  assert.deepEqual(ours.init.authMethods, AUTH_METHODS);
  assert.deepEqual(ours.list, LIST);
  const issues = ours.violations.flatMap((v) => v.issues);
  assert.ok(issues.some((i) => i.severity === "error" && i.path === "/params/update/status"));
  assert.ok(issues.every((i) => !["defaulted", "skipped_invalid_item"].includes(i.code)));
});
