// Cancellation both ways, against the official ACP SDK 2.4.0 as the peer: handlers get an
// AbortSignal (aborted on `$/cancel_request` and on `session/cancel` for what the turn asked);
// a withdrawn request is answered -32800 unless the handler answered first; permission
// requests open at `session/cancel` are answered `cancelled`; our own aborted requests are
// withdrawn with `$/cancel_request`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { agent, client } from "acp-sdk-v2";
import { AcpClient, AcpAgent, codes, later } from "./helpers.mjs";
import { sdkStreamPair } from "./sdk-peers.mjs";

const clientInfo = { name: "cancel-test", version: "1.0.0" };
const PERMISSION = { sessionId: "s1", toolCall: { toolCallId: "t1", title: "Edit" }, options: [{ optionId: "ok", name: "OK", kind: "allow_once" }] };
const abortedWhen = (signal) => new Promise((resolve) => signal.addEventListener("abort", () => resolve(signal.reason), { once: true }));

/** Sessions the client cancelled (`session/cancel`), as the SDK agent saw them. */
const cancelledSessions = new Set();

/** An official SDK agent; `onPrompt(peer, signal)` runs the turn. */
function sdkAgent(onPrompt, extra = {}) {
  return agent({ name: "sdk" }).onRequest("*", async ({ method, params, client: peer, signal }) => {
    switch (method) {
      case "initialize": return { protocolVersion: 1, agentCapabilities: { sessionCapabilities: { list: {} } }, authMethods: [] };
      case "session/new": return { sessionId: "s1" };
      case "session/prompt": return onPrompt(peer, signal, params);
      default: return extra[method]?.({ params, signal }) ?? {};
    }
  }).onNotification("*", ({ method, params }) => { if (method === "session/cancel") cancelledSessions.add(params.sessionId); });
}

async function connect(app, capabilities = {}) {
  const [transport, stream] = sdkStreamPair();
  app.connect(stream);
  const acp = await AcpClient.connect(transport, { clientInfo, protocolVersions: [1], capabilities });
  await acp.initialize();
  return acp;
}

test("$/cancel_request from the SDK agent: the handler's signal aborts and the request is answered -32800", async () => {
  let outcome;
  const acp = await connect(sdkAgent(async (peer) => {
    const stop = new AbortController();
    const asked = peer.sendRequest("session/request_permission", PERMISSION, undefined, { cancellationSignal: stop.signal });
    setTimeout(() => stop.abort(), 50);
    outcome = await asked.then((r) => ({ result: r }), (e) => ({ error: e }));
    return { stopReason: "end_turn" };
  }));
  let reason;
  acp.onRequest("session/request_permission", async (_params, { signal }) => {
    reason = await abortedWhen(signal); // a dialog that stays open until withdrawn
    await later(20); // and takes a while to close: the -32800 has gone out by then
    return { outcome: { outcome: "selected", optionId: "ok" } };
  });
  const session = await acp.newSession({ cwd: "/w", mcpServers: [] });
  assert.equal((await session.prompt([{ type: "text", text: "go" }])).stopReason, "end_turn");
  assert.equal(reason.code, codes.REQUEST_CANCELLED, "the signal's reason names the cancellation");
  assert.equal(outcome.error?.code, -32800, `the SDK agent got -32800: ${JSON.stringify(outcome)}`);
  acp.close();
});

test("$/cancel_request: a handler that answers as its signal aborts answers first (a result, not -32800)", async () => {
  let outcome;
  const acp = await connect(sdkAgent(async (peer) => {
    const stop = new AbortController();
    const asked = peer.sendRequest("session/request_permission", PERMISSION, undefined, { cancellationSignal: stop.signal });
    setTimeout(() => stop.abort(), 30);
    outcome = await asked.then((r) => ({ result: r }), (e) => ({ error: e }));
    return { stopReason: "end_turn" };
  }));
  acp.onRequest("session/request_permission", (_params, { signal }) =>
    abortedWhen(signal).then(() => ({ outcome: { outcome: "cancelled" } })));
  const session = await acp.newSession({ cwd: "/w", mcpServers: [] });
  await session.prompt([{ type: "text", text: "go" }]);
  assert.deepEqual(outcome.result?.outcome, { outcome: "cancelled" }, JSON.stringify(outcome));
  acp.close();
});

test("session/cancel: open permission requests are answered cancelled, and every handler of the session's requests is aborted", async () => {
  let permission, read;
  cancelledSessions.clear();
  const acp = await connect(sdkAgent(async (peer) => {
    read = peer.sendRequest("fs/read_text_file", { sessionId: "s1", path: "/w/a.txt" }).then((r) => ({ result: r }), (e) => ({ error: e }));
    permission = await peer.sendRequest("session/request_permission", PERMISSION);
    return { stopReason: cancelledSessions.has("s1") ? "cancelled" : "end_turn" };
  }), { fs: { readTextFile: true } });
  const aborted = [];
  acp.onRequest("session/request_permission", (_p, { signal }) => abortedWhen(signal).then(() => { aborted.push("permission"); return new Promise(() => {}); }));
  acp.onRequest("fs/read_text_file", async (_p, { signal }) => {
    await abortedWhen(signal);
    aborted.push("read");
    throw signal.reason; // gives up: answered -32800
  });
  const session = await acp.newSession({ cwd: "/w", mcpServers: [] });
  const turn = session.prompt([{ type: "text", text: "go" }]);
  await later(50);
  await session.cancel();
  assert.equal((await turn).stopReason, "cancelled");
  assert.deepEqual(permission.outcome, { outcome: "cancelled" }, "the SDK agent's permission request was answered cancelled");
  assert.equal((await read).error?.code, -32800);
  assert.deepEqual(aborted.sort(), ["permission", "read"]);
  acp.close();
});

test("our own request, aborted: $/cancel_request reaches the SDK agent's handler, which sees its signal abort", async () => {
  let sdkSignal;
  const acp = await connect(sdkAgent(() => ({ stopReason: "end_turn" }), {
    "session/list": ({ signal }) => { sdkSignal = signal; return abortedWhen(signal).then(() => { throw Object.assign(new Error("cancelled"), { code: -32800 }); }); },
  }));
  const stop = new AbortController();
  const listed = acp.listSessions({}, { signal: stop.signal });
  await later(30);
  stop.abort();
  await assert.rejects(listed, (e) => e.code === codes.REQUEST_CANCELLED);
  await later(30);
  assert.equal(sdkSignal?.aborted, true, "the SDK handler's signal aborted");
  acp.close();
});

test("agent side: the SDK client's session/cancel aborts the prompt handler's signal; the turn ends cancelled", async () => {
  const [transport, stream] = sdkStreamPair();
  const served = AcpAgent.connect(transport, { agentInfo: { name: "aw", version: "1" }, protocolVersions: [1] });
  let sawAbort = false;
  const app = client({ name: "sdk-client" }).onNotification("*", () => {});
  const result = app.connectWith(stream, async (ctx) => {
    const acp = await served;
    acp.onRequest("session/new", () => ({ sessionId: "s1" }));
    acp.onRequest("session/prompt", async (_p, { signal }) => {
      await abortedWhen(signal);
      sawAbort = true;
      return { stopReason: "end_turn" }; // the session makes it `cancelled`
    });
    await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    await ctx.request("session/new", { cwd: "/w", mcpServers: [] });
    const turn = ctx.request("session/prompt", { sessionId: "s1", prompt: [{ type: "text", text: "hi" }] });
    await later(30);
    await ctx.notify("session/cancel", { sessionId: "s1" });
    return turn;
  });
  assert.equal((await result).stopReason, "cancelled");
  assert.equal(sawAbort, true);
});
