// Objects produced by real sessions (a client and an agent talking in-process, v1 and v2,
// and an MCP pair), written as a TypeScript module whose every constant is annotated with
// the type index.d.ts declares for it. `tsc --strict` on that module fails when the
// runtime and the types drift apart (object literals get excess-property checks).
import { AcpAgent, AcpClient, McpClient, McpServer } from "../../pkg/node.js";

function acpConversation(version) {
  const c = new AcpClient({ clientInfo: { name: "c", version: "1" }, protocolVersions: [version],
    capabilities: { fs: { readTextFile: true } } });
  const a = new AcpAgent({ agentInfo: { name: "a", version: "1" }, protocolVersions: [version], validateOutgoing: false,
    capabilities: { session: { load: true } } });
  const events = [];
  const toAgent = (out) => { for (const e of a.receive(out.text)) if (e.type === "send") toClient(e.text); return out; };
  const toClient = (text) => { for (const e of c.receive(text)) { events.push(e); if (e.type === "send") a.receive(e.text); } };
  toAgent(c.initialize());
  const newSession = toAgent(c.request("session/new", { cwd: "/w", mcpServers: [] }));
  const asked = a.receive(newSession.text).find((e) => e.type === "request");
  toClient(a.respond(asked?.id ?? newSession.id, { sessionId: "s1" }));
  const prompt = c.request("session/prompt", { sessionId: "s1", prompt: [{ type: "text", text: "hi" }] });
  const request = a.receive(prompt.text).find((e) => e.type === "request");
  const update = (u) => toClient(a.notify("session/update", { sessionId: "s1", update: u }).text);
  const id = (k) => (version >= 2 ? { messageId: k } : {});
  update({ sessionUpdate: "agent_thought_chunk", ...id("t1"), content: { type: "text", text: "hmm" } });
  update({ sessionUpdate: "agent_message_chunk", ...id("m1"), content: { type: "text", text: "Hello" } });
  if (version >= 2) {
    update({ sessionUpdate: "tool_call_update", toolCallId: "tc1", title: "Read", kind: "read", status: "in_progress" });
    update({ sessionUpdate: "plan_update", plan: { entries: [{ content: "x", priority: "high", status: "pending" }] } });
  } else {
    update({ sessionUpdate: "tool_call", toolCallId: "tc1", title: "Read", kind: "read", status: "pending" });
    update({ sessionUpdate: "plan", entries: [{ content: "x", priority: "high", status: "pending" }] });
  }
  update({ sessionUpdate: "tool_call_update", toolCallId: "tc1", status: "completed" });
  update({ sessionUpdate: "usage_update", used: 5, size: 100 });
  update({ sessionUpdate: "_custom_kind", x: 1 });
  if (version >= 2) {
    toClient(a.respond(request.id, { messageId: "u1" }));
    update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
  } else {
    toClient(a.respond(request.id, { stopReason: "end_turn" }));
  }
  toClient('{"jsonrpc":"2.0","id":"x","result":{}}'); // a stray
  toClient("{not json"); // a protocol error
  return { transcript: c.transcript("s1"), events, state: c.state(), methods: c.methods() };
}

function mcpConversation() {
  const c = new McpClient({ clientInfo: { name: "c", version: "1" }, protocolVersions: ["2025-11-25"], era: "handshake" });
  const s = new McpServer({ serverInfo: { name: "s", version: "1" }, protocolVersions: ["2025-11-25"], capabilities: { tools: {} } });
  const events = [];
  const pump = (text) => {
    for (const e of s.receive(text)) if (e.type === "send") for (const ce of c.receive(e.text)) { events.push(ce); if (ce.type === "send") pump(ce.text); }
  };
  pump(c.initialize().text);
  const call = c.request("tools/list", {});
  const req = s.receive(call.text).find((e) => e.type === "request");
  for (const e of c.receive(s.respond(req.id, { tools: [] }))) events.push(e);
  events.push(...c.close());
  return { events, state: c.state(), methods: c.methods() };
}

/** The TypeScript module: each observed value under its declared type. */
export function observedModule() {
  const lines = ['import type { AcpEvent, McpEvent, Transcript, MethodStatus, SessionState } from "agentwire";'];
  const put = (name, type, value) => lines.push(`export const ${name}: ${type} = ${JSON.stringify(value, null, 1)};`);
  for (const v of [1, 2]) {
    const o = acpConversation(v);
    put(`transcriptV${v}`, "Transcript", o.transcript);
    put(`eventsV${v}`, "AcpEvent[]", o.events);
    put(`stateV${v}`, "SessionState<number>", o.state);
    put(`methodsV${v}`, "MethodStatus[]", o.methods);
  }
  const m = mcpConversation();
  put("mcpEvents", "McpEvent[]", m.events);
  put("mcpState", "SessionState<string>", m.state);
  put("mcpMethods", "MethodStatus[]", m.methods);
  return lines.join("\n");
}
