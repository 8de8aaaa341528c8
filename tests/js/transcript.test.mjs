// The transcript model (js/transcript.js, kept beside the events in JS) builds the same
// transcripts as the Rust model (`AcpClient::transcript`, the crate's `transcript` feature) from
// the same calls and frames: a demo-agent replay in v1 and v2, and every update kind with its
// edge cases. The Rust side runs as `cargo run --example transcript` over the same script.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { AcpClient } from "./helpers.mjs";
import { dataDir, recordReplay, SESSION_ID } from "../../bench/replay/conversation.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Runs a script on a JS `AcpClient` and returns its transcripts and the script's JSON lines. */
function scripted(version, initializeAnswer, build) {
  const config = { protocolVersions: [version] };
  const client = new AcpClient(config);
  const lines = [JSON.stringify({ initialize: config })];
  const hello = client.initialize();
  const receive = (text) => {
    lines.push(JSON.stringify({ receive: text }));
    return client.receive(text);
  };
  receive(initializeAnswer.replace(/"id":\s*1\b/, `"id":${hello.id}`));
  const request = (method, params) => {
    lines.push(JSON.stringify({ request: [method, params] }));
    return client.request(method, params);
  };
  build({ receive, request, client });
  const transcripts = Object.fromEntries(client.sessionIds().map((id) => [id, client.transcript(id)]));
  return { transcripts, lines, client };
}

function native(lines) {
  const run = spawnSync("cargo", ["run", "-q", "--example", "transcript"], { cwd: ROOT, input: lines.join("\n") + "\n", encoding: "utf8", maxBuffer: 64 << 20 });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

const update = (sessionId, u) => JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId, update: u } });

const KINDS = [
  { sessionUpdate: "user_message_chunk", content: { type: "text", text: "Hi " } },
  { sessionUpdate: "user_message_chunk", content: { type: "text", text: "there" } },
  { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hmm" } },
  { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "A" } },
  { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "image", data: "AA==", mimeType: "image/png" } },
  { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "B" } },
  { sessionUpdate: "agent_message_chunk", messageId: "m2", content: { type: "text", text: "C" } },
  { sessionUpdate: "agent_message", messageId: "m1", content: [{ type: "text", text: "whole" }] },
  { sessionUpdate: "user_message", messageId: "u9", content: { type: "text", text: "single" } },
  { sessionUpdate: "agent_thought", messageId: "r1" },
  { sessionUpdate: "tool_call", toolCallId: "t1", title: "Read", kind: "read", status: "pending" },
  { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "in_progress", content: [{ type: "content", content: { type: "text", text: "x" } }] },
  { sessionUpdate: "tool_call_content_chunk", toolCallId: "t1", content: { type: "content", content: { type: "text", text: "y" } } },
  { sessionUpdate: "tool_call_update", status: "completed" },
  { sessionUpdate: "plan", entries: [{ content: "a", priority: "high", status: "pending" }] },
  { sessionUpdate: "plan_update", plan: { type: "items", planId: "p1", entries: [] } },
  { sessionUpdate: "plan_removed", planId: "p2" },
  { sessionUpdate: "current_mode_update", currentModeId: "code" },
  { sessionUpdate: "config_option_update", configOptions: [] },
  { sessionUpdate: "available_commands_update", availableCommands: [{ name: "x", description: "d" }] },
  { sessionUpdate: "usage_update", used: 5, size: 10 },
  { sessionUpdate: "session_info_update", title: "T" },
  { sessionUpdate: "session_info_update", updatedAt: "2026-01-01T00:00:00Z", title: "T2" },
  { sessionUpdate: "state_update", state: "running" },
  { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" },
  { sessionUpdate: "terminal_update", terminalId: "term1", status: "running" },
  { sessionUpdate: "terminal_output_chunk", terminalId: "term1", data: "ab" },
  { sessionUpdate: "terminal_output_chunk", terminalId: "term1", data: "cd" },
  { sessionUpdate: "notice", level: "info", message: "m" },
  { sessionUpdate: "compaction_update", compactionId: "c1", status: "started" },
  { sessionUpdate: "compaction_summary_chunk", compactionId: "c1", content: { type: "text", text: "s1" } },
  { sessionUpdate: "compaction_summary_chunk", compactionId: "c1", content: { type: "text", text: "s2" } },
  { sessionUpdate: "plan_removed", planId: "p1" },
  { sessionUpdate: "_custom_kind", x: 1 },
  { sessionUpdate: "agent_message_chunk", content: { type: "text", text: 7 } },
];

const replays = {};
// The demo agent's data folders, removed when the tests end (each agent is ended by its replay).
const dirs = [];
const freshDir = () => {
  dirs.push(dataDir(600));
  return dirs.at(-1);
};
const replayOf = async (version) => (replays[version] ??= await recordReplay(freshDir(), version));
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

for (const version of [1, 2]) {
  test(`v${version}: a demo agent's replay of 600 updates gives the same transcript in JS as in Rust`, async () => {
    const replay = await replayOf(version);
    const { transcripts, lines } = scripted(version, replay.initialize, ({ receive, request }) => {
      const load = request("session/load", { sessionId: SESSION_ID, cwd: "/work/project", mcpServers: [] });
      for (const line of replay.updates) receive(line);
      receive(replay.response.replace(/"id":\s*2\b/, `"id":${load.id}`));
    });
    const entries = transcripts[SESSION_ID].entries;
    assert.ok(entries.length > 100, `${entries.length} entries`);
    assert.deepEqual(transcripts, native(lines));
  });

  test(`v${version}: every update kind, session results, a load that starts over and a v1 turn's end agree with Rust`, async () => {
    const replay = await replayOf(version);
    const { transcripts, lines } = scripted(version, replay.initialize, ({ receive, request }) => {
      const created = request("session/new", { cwd: "/w", mcpServers: [] });
      receive(JSON.stringify({ jsonrpc: "2.0", id: created.id, result: { sessionId: "n1", modes: { currentModeId: "ask", availableModes: [{ id: "ask", name: "Ask" }] }, configOptions: [] } }));
      for (const u of KINDS) receive(update("n1", u));
      // A load starts the session's transcript over.
      const load = request("session/load", { sessionId: "n1", cwd: "/w", mcpServers: [] });
      for (const u of KINDS.slice(0, 6)) receive(update("n1", u));
      receive(JSON.stringify({ jsonrpc: "2.0", id: load.id, result: { modes: { currentModeId: "code", availableModes: [] } } }));
      for (const u of KINDS.slice(6)) receive(update("n1", u));
      receive(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"n1"}}`);
      const prompt = request("session/prompt", { sessionId: "n1", prompt: [{ type: "text", text: "go" }] });
      receive(JSON.stringify({ jsonrpc: "2.0", id: prompt.id, result: { stopReason: "end_turn" } }));
      receive(update("other", KINDS[3]));
      // `__proto__` is a member like any other (a JS object literal would set the prototype).
      receive(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"other","update":{"sessionUpdate":"session_info_update","__proto__":{"polluted":true}}}}`);
    });
    assert.deepEqual(Object.keys(transcripts).sort(), ["n1", "other"]);
    assert.deepEqual(transcripts, native(lines));
    assert.equal(Object.getPrototypeOf(transcripts.other.info), Object.prototype);
    assert.deepEqual(Object.keys(transcripts.other.info), ["__proto__"]);
    const n1 = transcripts.n1;
    assert.equal(n1.entries.filter((e) => e.kind === "message" && e.role === "user").length, 2, "the load started n1 over");
    assert.equal(n1.entries.at(-1).kind, version === 1 ? "turnEnded" : "other");
    assert.equal(n1.currentModeId, "code");
  });
}

test("the model never changes the events the application holds, nor does changing what transcript() returned change the model", async () => {
  const replay = await replayOf(2);
  const events = [];
  const { client } = scripted(2, replay.initialize, ({ receive }) => {
    const chunk = (text) => ({ sessionUpdate: "agent_message_chunk", messageId: "m", content: { type: "text", text } });
    for (const text of ["one", " two"]) events.push(...receive(update("s", chunk(text))));
    events.push(...receive(update("s", { sessionUpdate: "tool_call", toolCallId: "t", title: "T", content: [] })));
    events.push(...receive(update("s", { sessionUpdate: "tool_call_content_chunk", toolCallId: "t", content: { type: "content", content: { type: "text", text: "x" } } })));
  });
  assert.equal(events[0].update.content.text, "one", "the first chunk's event keeps its text");
  assert.deepEqual(events[2].update.content, [], "the tool call's event keeps its (empty) content");
  const first = client.transcript("s");
  assert.equal(first.entries[0].content[0].text, "one two");
  assert.equal(first.entries[1].call.content.length, 1);
  first.entries[0].content[0].text = "changed";
  first.entries.push({ kind: "other", update: {} });
  assert.deepEqual(client.transcript("s").entries[0], { kind: "message", role: "agent", messageId: "m", content: [{ type: "text", text: "one two" }] });
  assert.equal(client.transcript("s").entries.length, 2);
  assert.equal(client.transcript("none"), undefined);
  assert.throws(() => client.transcript(5), (e) => e.code === -32602 && /transcript: argument 1 must be a string/.test(e.message));
});
