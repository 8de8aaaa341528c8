// A long conversation for `session/load`, as the demo agent stores it, and the lines the agent
// actually writes when it replays it (recorded from the real process, so the benchmarks feed
// the real wire). Deterministic: the same count always gives the same conversation.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";

export const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
export const DEMO_AGENT = join(root, "target/release/agentwire-demo-agent");
export const SESSION_ID = "replay_bench";
/** The text of the very last update: the entry the playground must show. */
export const LAST_WORDS = "and that is the end of the conversation";

const words = "the agent reads the file then edits the function and runs the tests again before it answers".split(" ");
const sentence = (n, salt) => Array.from({ length: n }, (_, i) => words[(i * 7 + salt) % words.length]).join(" ");

/**
 * `count` updates in turns of 24: the user's message, a thought, an answer streamed in 8 chunks,
 * a plan of 4 entries, 3 tool calls with 4 updates each (pending, in progress, output, done with
 * a diff) and the context usage. The last update is an answer chunk saying LAST_WORDS.
 */
export function history(count = 10_000) {
  const out = [];
  for (let t = 0; out.length < count - 1; t++) {
    out.push({ type: "user", messageId: `u${t}`, text: `Question ${t}: ${sentence(12, t)}?` });
    out.push({ type: "thought", messageId: `r${t}`, text: sentence(30, t + 1) });
    for (let c = 0; c < 8; c++) out.push({ type: "agent", messageId: `a${t}`, text: `${sentence(14, t + c)}. ` });
    out.push({ type: "plan", entries: ["read", "edit", "test", "answer"].map((step, i) => ({ content: `${step} (turn ${t})`, status: i < 2 ? "completed" : i === 2 ? "in_progress" : "pending" })) });
    for (let k = 0; k < 3; k++) {
      const id = `call_${t}_${k}`, path = `/work/project/src/module_${t}_${k}.rs`;
      out.push({ type: "toolCall", id, title: `Edit ${path}`, kind: ["edit", "read", "execute"][k], status: "pending", content: [] });
      out.push({ type: "toolStatus", id, status: "in_progress", content: [] });
      out.push({ type: "toolStatus", id, status: "in_progress", content: [{ type: "text", text: sentence(20, t + k) }] });
      out.push({ type: "toolStatus", id, status: "completed", content: [{ type: "diff", path, oldText: `fn old_${t}() {}\n`, newText: `fn new_${t}() {\n    ${sentence(8, k)}\n}\n` }] });
    }
    out.push({ type: "usage", used: 1000 + t * 250, size: 200_000 });
  }
  out.length = count - 1;
  out.push({ type: "agent", messageId: "a_last", text: LAST_WORDS });
  return out;
}

/** A data folder holding the conversation as the demo agent's stored session. */
export function dataDir(count = 10_000) {
  const dir = mkdtempSync(join(tmpdir(), "agentwire-replay-"));
  writeFileSync(join(dir, `${SESSION_ID}.json`), JSON.stringify({ sessionId: SESSION_ID, cwd: "/work/project", title: "A long session", history: history(count) }), { mode: 0o600 });
  return dir;
}

/**
 * What the demo agent writes for `session/load` of that session under ACP `version`: the
 * initialize response, every `session/update` line, and the load's response, as text.
 */
export async function recordReplay(dir, version = 2) {
  const agent = spawn(DEMO_AGENT, ["--data-dir", dir], { stdio: ["pipe", "pipe", "ignore"] });
  const lines = createInterface({ input: agent.stdout });
  const send = (m) => agent.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n");
  send({ id: 1, method: "initialize", params: { protocolVersion: version, clientCapabilities: {}, clientInfo: { name: "bench", version: "1" } } });
  const out = { initialize: null, updates: [], response: null };
  for await (const line of lines) {
    const m = JSON.parse(line);
    if (m.id === 1) {
      out.initialize = line;
      send({ id: 2, method: "session/load", params: { sessionId: SESSION_ID, cwd: "/work/project", mcpServers: [] } });
    } else if (m.method === "session/update") out.updates.push(line);
    else if (m.id === 2) {
      out.response = line;
      break;
    }
  }
  agent.kill();
  if (out.response === null || out.updates.length === 0) throw new Error("the demo agent did not replay the session");
  return out;
}
