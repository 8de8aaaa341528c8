// An ACP v2 agent built on the official TypeScript SDK's v2 API (`@agentclientprotocol/sdk`
// 2.4.0, `experimental/v2`), speaking NDJSON on stdio. It behaves as the v2 draft says:
// `session/prompt` is acknowledged with `{ messageId }` as soon as the prompt is inserted,
// and the turn is reported afterwards (`running`, the answer, `idle` with a stop reason).
// The prompt text chooses: "cancel me" streams until `session/cancel` arrives; "refuse" is
// answered with an error instead of an acknowledgement. `idle` means the session has no
// foreground work left (the draft's `IdleStateUpdate`): a turn that ends while another of the
// session still runs reports no idle of its own.
import { Readable, Writable } from "node:stream";
import { agent, ndJsonStream, RequestError } from "acp-sdk-v2/experimental/v2";

let sessions = 0;
let messages = 0;
const running = new Map(); // sessionId → Set of () => void (each stops one turn as cancelled)
const pause = (ms) => new Promise((r) => setTimeout(r, ms));

const app = agent()
  .onRequest("initialize", () => ({
    protocolVersion: 2,
    capabilities: { session: {} },
    info: { name: "sdk-v2-agent", version: "2.4.0" },
    authMethods: [],
  }))
  .onRequest("session/new", () => ({ sessionId: `sdk_${++sessions}` }))
  .onRequest("session/prompt", ({ params, client }) => {
    const text = params.prompt.map((b) => b.text ?? "").join(" ");
    if (text.includes("refuse")) throw new RequestError(-32602, "this agent refuses the prompt");
    const messageId = `user_${++messages}`;
    const { sessionId } = params;
    const update = (u) => client.notify("session/update", { sessionId, update: u });
    // The prompt counts as foreground work from its acknowledgement on; the turn's updates
    // start once the acknowledgement has gone out.
    let cancelled = false;
    const stop = () => { cancelled = true; };
    if (!running.has(sessionId)) running.set(sessionId, new Set());
    running.get(sessionId).add(stop);
    setTimeout(async () => {
      await update({ sessionUpdate: "state_update", state: "running" });
      const words = text.includes("cancel me") ? Array(500).fill("more ") : ["Hello ", "from ", "the ", "SDK"];
      for (const w of words) {
        if (cancelled) break;
        await update({ sessionUpdate: "agent_message_chunk", messageId: `agent_${messageId}`, content: { type: "text", text: w } });
        await pause(text.includes("cancel me") ? 10 : 1);
      }
      running.get(sessionId).delete(stop);
      if (running.get(sessionId).size > 0) return;
      await update({ sessionUpdate: "state_update", state: "idle", stopReason: cancelled ? "cancelled" : "end_turn" });
    }, 5);
    return { messageId };
  })
  .onNotification("session/cancel", ({ params }) => running.get(params.sessionId)?.forEach((stop) => stop()));

app.connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
