// The JS API end to end in Node: sans-IO sessions, connected sessions over an in-memory
// transport (client and agent/server both agentwire), errors, timeouts, cancellation.
import { test } from "node:test";
import assert from "node:assert/strict";
import { AcpClient, AcpAgent, McpClient, McpServer, Validator, ProtocolError, codes, transportPair, later } from "./helpers.mjs";

const clientInfo = { name: "test-ide", version: "1.0.0" };
const agentInfo = { name: "test-agent", version: "1.0.0" };

test("sans-IO: a v2 client and a v1-only agent agree on 1", () => {
  const c = new AcpClient({ clientInfo, protocolVersions: [2, 1], capabilities: { fs: { readTextFile: true } } });
  const a = new AcpAgent({ agentInfo, protocolVersions: [1] });
  const out = c.initialize();
  assert.equal(out.method, "initialize");
  assert.equal(JSON.parse(out.text).params.protocolVersion, 2);
  const answer = a.receive(out.text).find((e) => e.type === "send");
  const events = c.receive(answer.text);
  assert.deepEqual(events.map((e) => e.type), ["response", "initialized"]);
  assert.equal(c.state().protocolVersion, 1);
  assert.equal(c.state().phase, "ready");
  assert.deepEqual(c.state().offered, [2, 1]);
  assert.equal(a.state().peerCapabilities.fs.readTextFile, true);
});

test("sans-IO: gating refuses locally with a ProtocolError naming the capability", () => {
  const c = new AcpClient({ clientInfo, protocolVersions: [1] });
  assert.throws(() => c.request("session/new", { cwd: "/w", mcpServers: [] }), (e) =>
    e instanceof ProtocolError && e.code === codes.LOCAL_REFUSAL && /initialize/.test(e.message));
  const a = new AcpAgent({ agentInfo, protocolVersions: [1] });
  c.receive(a.receive(c.initialize().text).find((e) => e.type === "send").text);
  assert.throws(() => c.request("session/load", { sessionId: "s", cwd: "/w", mcpServers: [] }), (e) =>
    e instanceof ProtocolError && e.code === -32099 && e.data.capability === "session.load");
  assert.throws(() => c.request("session/new", { cwd: "relative/dir", mcpServers: [] }), (e) => e.code === -32099 && /absolute/.test(e.message));
  const load = c.methods().find((m) => m.method === "session/load");
  assert.equal(load.enabled, false);
  assert.match(load.reason, /session\.load/);
  assert.throws(() => new AcpClient({ capabilities: { fs: { readTextFiles: true } } }), (e) => e.code === -32602);
});

test("sans-IO: malformed input is answered, never thrown", () => {
  const a = new AcpAgent({ agentInfo });
  for (const [text, code] of [["{nope", -32700], ['{"jsonrpc":"2.0","id":4,"method":7}', -32600], ["[]", -32600]]) {
    const events = a.receive(text);
    const reply = events.find((e) => e.type === "send");
    assert.ok(reply, `${text} gets an answer`);
    assert.equal(JSON.parse(reply.text).error.code, code);
  }
  const early = a.receive('{"jsonrpc":"2.0","id":9,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}');
  const refusal = JSON.parse(early.find((e) => e.type === "send").text);
  assert.equal(refusal.id, 9);
  assert.match(refusal.error.message, /initialize/);
});

test("Validator: issues with JSON pointers, codes and severities", () => {
  const v = new Validator({ protocol: "mcp", version: "2025-11-25" });
  const bad = v.validate('{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":1}]}}', { direction: "serverToClient", inReplyTo: "tools/list" });
  assert.equal(bad.ok, false);
  assert.deepEqual(bad.issues.map((i) => [i.path, i.code]).sort(), [
    ["/result/tools/0/inputSchema", "missing_required"], ["/result/tools/0/name", "wrong_type"]]);
  const good = v.validate({ jsonrpc: "2.0", id: 1, result: { tools: [{ name: "echo", inputSchema: { type: "object" } }] } },
    { direction: "serverToClient", inReplyTo: "tools/list" });
  assert.deepEqual(good, { ok: true, issues: [] });
  const acp = new Validator({ protocol: "acp", version: 1 });
  const loaded = acp.validate('{"jsonrpc":"2.0","id":1,"result":null}', { direction: "serverToClient", inReplyTo: "session/load" });
  assert.equal(loaded.ok, true);
  assert.equal(loaded.issues[0].severity, "warning");
  assert.throws(() => new Validator({ protocol: "mcp", version: "1999-01-01" }), (e) => e.code === -32602 && /known/.test(e.message));
  // Every wrong option is named in a -32602, whatever its type.
  for (const [options, words] of [
    [undefined, /protocol/], [null, /protocol/], [{ protocol: 7, version: 1 }, /protocol/], [{ protocol: "acp" }, /version is required/],
    [{ protocol: "acp", version: {} }, /version is required/], [{ protocol: "acp", version: 3 }, /known: 1, 2/],
    [{ protocol: "acp", version: 1, maxBytes: -1 }, /maxBytes/], [{ protocol: "acp", version: 1, maxDepth: 2.5 }, /maxDepth/],
    [{ protocol: "acp", version: 1, maxBytes: "10" }, /maxBytes must be a number/],
  ]) {
    assert.throws(() => new Validator(options), (e) => e instanceof ProtocolError && e.code === -32602 && words.test(e.message), JSON.stringify(options));
  }
  const small = new Validator({ protocol: "acp", version: "2", maxBytes: 64, maxDepth: 3 });
  assert.equal(small.validate(`{"jsonrpc":"2.0","method":"_x","params":{"s":"${"x".repeat(64)}"}}`, { direction: "clientToServer" }).issues[0].code, "too_large");
  assert.equal(small.validate('{"jsonrpc":"2.0","method":"_x","params":[[[1]]]}', { direction: "clientToServer" }).issues[0].code, "too_deep");
  const deep = "[".repeat(100000) + "]".repeat(100000);
  assert.equal(v.validate(deep, { direction: "clientToServer" }).issues[0].code, "too_deep");
});

test("Validator: text of any script and size reaches the module whole, message after message", () => {
  const v = new Validator({ protocol: "mcp", version: "2025-11-25" });
  const reply = { direction: "serverToClient", inReplyTo: "tools/call" };
  const result = (text) => JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text }] } });
  // Multi-byte UTF-8 is valid text; so is a raw lone surrogate, which crosses as U+FFFD
  // (JSON.stringify would escape it as \ud800, which JSON parsers here refuse).
  for (const text of ["héllo wörld", "日本語のテキスト", "😀 ".repeat(50000)]) {
    assert.deepEqual(v.validate(result(text), reply), { ok: true, issues: [] }, text.slice(0, 20));
  }
  assert.deepEqual(v.validate(result("a_b").replace("_", "\ud800"), reply), { ok: true, issues: [] });
  // A non-ASCII key is named in the pointer; a non-ASCII method name in the message.
  const named = v.validate('{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":1,"ünïcode":true}]}}', reply);
  assert.deepEqual(named.issues.map((i) => i.path), ["/result/content/0/text"]);
  const unknown = v.validate('{"jsonrpc":"2.0","id":1,"result":{}}', { direction: "serverToClient", inReplyTo: "wërkzeug/ƒ" });
  assert.match(unknown.issues[0].message, /wërkzeug\/ƒ/);
  // Large messages (past what the module keeps between messages), then small ones again:
  // each verdict is of its own text, never of bytes left from a longer one before it.
  const big = result("x".repeat(3 << 20));
  assert.equal(v.validate(big, reply).ok, true);
  assert.equal(v.validate(big.replace('"text":"x', '"text":9,"x":"x'), reply).issues[0].code, "wrong_type");
  assert.equal(v.validate('{"jsonrpc":"2.0","id":1,"result":{"content":[]}}', reply).ok, true);
  assert.equal(v.validate('{"jsonrpc":"2.0","id":1,"result":{"content":[{}]}}', reply).ok, false);
  assert.equal(v.validate('{"jsonrpc":"2.0","id":1,"result":{"content":[]}} ', reply).ok, true);
  assert.equal(v.validate('{"jsonrpc":"2.0"', reply).issues[0].code, "invalid_json");
  // Text whose UTF-8 just fills the buffer kept for small messages (64 KB), leaving less room
  // than the method needs: the method is written whole all the same.
  const filling = result("é".repeat(32728));
  assert.ok(Buffer.byteLength(filling) + "tools/call".length > 1 << 16 && Buffer.byteLength(filling) < 1 << 16);
  assert.deepEqual(v.validate(filling, reply), { ok: true, issues: [] });
  assert.equal(v.validate(filling.replace('"text":"', '"text":7,"x":"'), reply).issues[0].code, "wrong_type");
  // Two validators share the module's buffer without mixing their messages.
  const acp = new Validator({ protocol: "acp", version: 1 });
  assert.equal(acp.validate('{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}', { direction: "clientToServer" }).ok, true);
  assert.equal(v.validate(result("ok"), reply).ok, true);
});

test("sans-IO: text reaches the module whole whichever way it crosses: short or long, of any script, as bytes", () => {
  const serverInfo = { name: "s", version: "1" };
  const client = new McpClient({ clientInfo, protocolVersions: ["2025-11-25"], era: "handshake" });
  const server = new McpServer({ serverInfo, protocolVersions: ["2025-11-25"], capabilities: { tools: {} } });
  for (const e of client.receive(server.receive(client.initialize().text).find((e) => e.type === "send").text)) if (e.type === "send") server.receive(e.text);
  const v = new Validator({ protocol: "mcp", version: "2025-11-25" });
  const reply = { direction: "serverToClient", inReplyTo: "tools/call" };
  const utf8 = new TextEncoder();
  // Texts on both sides of the length from which text crosses by one `encodeInto` (1,024
  // UTF-16 units, scripts/build.mjs), of every script, with a lone surrogate (U+FFFD once it
  // crosses), and one of 3 MB.
  const texts = ["short", "x".repeat(950), "x".repeat(954), "é".repeat(1200), "日本😀".repeat(700), "a\ud800b".repeat(300), "y".repeat(3 << 20)];
  let n = 0;
  const lengths = [];
  for (const text of texts) {
    for (const as of ["text", "bytes"]) {
      const out = client.request("tools/call", { name: "t", arguments: { n: n++ } });
      const frame = JSON.stringify({ jsonrpc: "2.0", id: out.id, result: { content: [{ type: "text", text }] } }).replaceAll("\\ud800", "\ud800");
      // The Validator writes a message of its own into the module between two frames.
      assert.equal(v.validate(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"${"z".repeat(n * 97)}"}]}}`, reply).ok, true);
      lengths.push(frame.length);
      const events = client.receive(as === "text" ? frame : utf8.encode(frame));
      assert.deepEqual(events.map((e) => e.type), ["response"], `${as} of ${frame.length}`);
      assert.equal(events[0].id, out.id);
      assert.equal(events[0].result.content[0].text, text.replaceAll("\ud800", "\ufffd"), `${as} of ${frame.length}`);
    }
  }
  assert.ok(lengths.includes(1023) && lengths.includes(1027), String(lengths));
  // A long frame that is not JSON, and long bytes that are not UTF-8: answered as a short one is.
  for (const frame of ["{" + " ".repeat(2000), new Uint8Array([0x7b, 0x22, ...utf8.encode("x".repeat(2000)), 0xff, 0x22, 0x7d])]) {
    const sent = client.receive(frame).filter((e) => e.type === "send").map((e) => JSON.parse(e.text).error.code);
    assert.deepEqual(sent, [codes.PARSE_ERROR]);
  }
  // A long session update is read from the frame JS holds, as a short one is.
  const c = new AcpClient({ clientInfo, protocolVersions: [1] });
  const a = new AcpAgent({ agentInfo, protocolVersions: [1] });
  c.receive(a.receive(c.initialize().text).find((e) => e.type === "send").text);
  for (const text of ["hi", "ü".repeat(5000)]) {
    const update = { sessionUpdate: "agent_message_chunk", content: { type: "text", text } };
    const frame = JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update } });
    for (const f of [frame, utf8.encode(frame)]) assert.deepEqual(c.receive(f), [{ type: "sessionUpdate", sessionId: "s", update, replay: false }]);
  }
  // Params sent and results answered cross the same way, long or short, of every script.
  for (const text of texts.filter((t) => !t.includes("\ud800"))) {
    const params = { name: "t", arguments: { text } };
    const asked = server.receive(client.request("tools/call", params).text).find((e) => e.type === "request");
    assert.deepEqual(asked.params, params);
    const [answered] = client.receive(server.respond(asked.id, { content: [{ type: "text", text }] }));
    assert.equal(answered.result.content[0].text, text);
  }
  assert.deepEqual(client.receiveBytes(utf8.encode("[]")).map((e) => e.type), client.receive("[]").map((e) => e.type));
});

/** An agent written with agentwire in JS: streams updates, asks permission, reads a file. */
async function startAgent(transport) {
  const agent = await AcpAgent.connect(transport, { agentInfo, protocolVersions: [1], capabilities: { session: { load: true } } });
  let n = 0;
  agent.onRequest("session/new", () => ({ sessionId: `s${++n}` }));
  agent.onRequest("session/prompt", async ({ sessionId, prompt }) => {
    await agent.sendUpdate(sessionId, { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "thinking" } });
    const file = await agent.request("fs/read_text_file", { sessionId, path: "/w/a.txt" });
    const choice = await agent.request("session/request_permission", {
      sessionId, toolCall: { toolCallId: "t1", title: "edit" },
      options: [{ optionId: "ok", name: "Allow", kind: "allow_once" }, { optionId: "no", name: "Reject", kind: "reject_once" }],
    });
    for (const part of ["You said: ", prompt[0].text, ` (${file.content}, ${choice.outcome.optionId})`]) {
      await agent.sendUpdate(sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: part } });
    }
    return { stopReason: "end_turn" };
  });
  return agent;
}

test("connected ACP: initialize, new session, prompt with updates, fs and permission requests", async () => {
  const [ct, at] = transportPair();
  const agent = await startAgent(at);
  const acp = await AcpClient.connect(ct, { clientInfo, protocolVersions: [2, 1], capabilities: { fs: { readTextFile: true } } });
  const frames = [];
  acp.onFrame((f) => frames.push(f));
  acp.onRequest("fs/read_text_file", ({ path }) => ({ content: `contents of ${path}` }));
  acp.onRequest("session/request_permission", ({ options }) => ({ outcome: { outcome: "selected", optionId: options[0].optionId } }));
  const init = await acp.initialize();
  assert.equal(init.protocolVersion, 1);
  assert.equal(init.agentInfo.name, "test-agent");
  const session = await acp.newSession({ cwd: "/w", mcpServers: [] });
  assert.equal(session.id, "s1");
  const updates = [];
  session.onUpdate((u) => updates.push(u.sessionUpdate));
  const { stopReason } = await session.prompt([{ type: "text", text: "hello" }]);
  assert.equal(stopReason, "end_turn");
  assert.deepEqual(updates, ["agent_thought_chunk", "agent_message_chunk", "agent_message_chunk", "agent_message_chunk"]);
  const t = session.transcript();
  const said = t.entries.filter((e) => e.kind === "message").map((e) => e.content.map((c) => c.text).join("")).join("");
  assert.equal(said, "You said: hello (contents of /w/a.txt, ok)");
  assert.ok(frames.some((f) => f.direction === "in" && f.text.includes("fs/read_text_file")));
  acp.close();
  agent.close();
});

test("connected ACP: an unsupported version rejects initialize with both versions named", async () => {
  const [ct, at] = transportPair();
  await AcpAgent.connect(at, { agentInfo, protocolVersions: [1] });
  const acp = await AcpClient.connect(ct, { clientInfo, protocolVersions: [2] });
  const closed = new Promise((r) => acp.onClose(r));
  await assert.rejects(acp.initialize(), (e) => e instanceof ProtocolError && /1/.test(e.message) && /2/.test(e.message));
  const info = await closed;
  assert.ok(info.error instanceof ProtocolError);
});

test("connected ACP: requests the app does not handle get -32601; closing rejects what is pending", async () => {
  const [ct, at] = transportPair();
  const agent = await AcpAgent.connect(at, { agentInfo, protocolVersions: [1] });
  agent.onRequest("session/new", () => new Promise(() => {})); // never answers
  const acp = await AcpClient.connect(ct, { clientInfo, protocolVersions: [1], capabilities: { terminal: true } });
  await acp.initialize();
  await assert.rejects(agent.request("terminal/create", { sessionId: "s", command: "ls" }), (e) => e.code === -32601);
  const pending = acp.newSession({ cwd: "/w", mcpServers: [] });
  await later(10);
  ct.close();
  await assert.rejects(pending, (e) => e.code === codes.CONNECTION_CLOSED && /session\/new/.test(e.message));
  await assert.rejects(acp.newSession({ cwd: "/w", mcpServers: [] }), (e) => e.code === codes.CONNECTION_CLOSED);
});

test("connected ACP: an AbortSignal withdraws a request and tells the agent", async () => {
  const [ct, at] = transportPair();
  const agent = await AcpAgent.connect(at, { agentInfo, protocolVersions: [1] });
  const seen = [];
  agent.onEvent((e) => seen.push(e.type));
  agent.onRequest("session/new", () => new Promise(() => {}));
  const acp = await AcpClient.connect(ct, { clientInfo, protocolVersions: [1] });
  await acp.initialize();
  const ac = new AbortController();
  const p = acp.newSession({ cwd: "/w", mcpServers: [] }, { signal: ac.signal });
  await later(5);
  ac.abort();
  await assert.rejects(p, (e) => e.code === codes.REQUEST_CANCELLED);
  await later(5);
  assert.ok(ct.sent.some((t) => t.includes("$/cancel_request")));
  assert.ok(seen.includes("cancelRequested"));
});

test("connected MCP: handshake, tools, a timeout that sends notifications/cancelled", async () => {
  const [ct, st] = transportPair();
  const server = await McpServer.connect(st, {
    serverInfo: { name: "srv", version: "1" }, protocolVersions: ["2025-06-18"], capabilities: { tools: {} },
  });
  server.onRequest("tools/list", () => ({ tools: [{ name: "echo", inputSchema: { type: "object" } }] }));
  server.onRequest("tools/call", ({ name, arguments: args }) =>
    name === "slow" ? new Promise(() => {}) : { content: [{ type: "text", text: args.text }] });
  const mcp = await McpClient.connect(ct, {
    clientInfo: { name: "host", version: "1" }, protocolVersions: ["2025-11-25", "2025-06-18"], era: "handshake",
  });
  const init = await mcp.initialize();
  assert.equal(init.protocolVersion, "2025-06-18");
  assert.equal(mcp.state.protocolVersion, "2025-06-18");
  assert.deepEqual((await mcp.listTools()).tools.map((t) => t.name), ["echo"]);
  assert.deepEqual(await mcp.callTool("echo", { text: "hi" }), { content: [{ type: "text", text: "hi" }] });
  await assert.rejects(mcp.listPrompts(), (e) => e.code === codes.LOCAL_REFUSAL && /prompts/.test(e.message));
  const cancelled = new Promise((r) => server.onEvent((e) => e.type === "cancelled" && r(e)));
  await assert.rejects(mcp.callTool("slow", {}, { timeoutMs: 30 }), (e) => e.code === codes.TIMEOUT);
  assert.ok((await cancelled).requestId !== undefined);
  assert.ok(ct.sent.some((t) => t.includes("notifications/cancelled")));
  mcp.close();
});

test("connected MCP: notifications/cancelled aborts the server handler's signal, and nothing is answered", async () => {
  const [ct, st] = transportPair();
  const server = await McpServer.connect(st, {
    serverInfo: { name: "srv", version: "1" }, protocolVersions: ["2025-11-25"], capabilities: { tools: {} },
  });
  let reason;
  server.onRequest("tools/call", (_params, { signal }) => new Promise((resolve) => signal.addEventListener("abort", () => {
    reason = signal.reason;
    resolve({ content: [{ type: "text", text: "too late" }] }); // an answer after the cancellation is dropped
  })));
  const mcp = await McpClient.connect(ct, { clientInfo: { name: "host", version: "1" }, protocolVersions: ["2025-11-25"], era: "handshake" });
  await mcp.initialize();
  const ac = new AbortController();
  const call = mcp.callTool("slow", {}, { signal: ac.signal });
  await later(10);
  ac.abort();
  await assert.rejects(call);
  await later(20);
  assert.equal(reason?.code, codes.REQUEST_CANCELLED, "the handler's signal aborted with the cancellation");
  assert.ok(!st.sent.some((t) => t.includes("too late")), "no answer to a cancelled request");
  mcp.close();
});

test("connected ACP: a per-call timeoutMs rejects with -32001 and tells the agent", async () => {
  const [ct, at] = transportPair();
  const agent = await AcpAgent.connect(at, { agentInfo, protocolVersions: [1] });
  agent.onRequest("session/new", () => new Promise(() => {}));
  const acp = await AcpClient.connect(ct, { clientInfo, protocolVersions: [1] });
  await acp.initialize();
  const t0 = Date.now();
  await assert.rejects(acp.newSession({ cwd: "/w", mcpServers: [] }, { timeoutMs: 40 }),
    (e) => e.code === codes.TIMEOUT && e.data.method === "session/new" && e.data.timeoutMs === 40);
  assert.ok(Date.now() - t0 < 1000);
  await later(5);
  assert.ok(ct.sent.some((t) => t.includes("$/cancel_request")));
});

test("state: own capabilities read as the negotiated version says them (v2 has no fs)", () => {
  for (const [versions, fs] of [[[1], true], [[2], false]]) {
    const c = new AcpClient({ clientInfo, protocolVersions: versions, capabilities: { fs: { readTextFile: true } } });
    const a = new AcpAgent({ agentInfo, protocolVersions: versions });
    c.receive(a.receive(c.initialize().text).find((e) => e.type === "send").text);
    assert.equal(c.state().protocolVersion, versions[0]);
    assert.equal(c.state().ownCapabilities.fs.readTextFile, fs, `v${versions[0]}`);
  }
});

test("connected MCP: an invalid elicitation or sampling answer is reported against the usual result, not /result/task", async () => {
  const [ct, st] = transportPair();
  const server = await McpServer.connect(st, { serverInfo: { name: "srv", version: "1" }, protocolVersions: ["2025-11-25"], capabilities: {} });
  const mcp = await McpClient.connect(ct, {
    clientInfo: { name: "host", version: "1" }, protocolVersions: ["2025-11-25"], era: "handshake",
    capabilities: { elicitation: { form: {} }, sampling: {} }, validateOutgoing: false,
  });
  mcp.onRequest("elicitation/create", () => ({ action: "bogus" }));
  mcp.onRequest("sampling/createMessage", () => ({ role: "assistant", content: { type: "text" } }));
  const violations = [];
  server.onViolation((v) => violations.push(v));
  await mcp.initialize();
  await later(5);
  await server.request("elicitation/create", { mode: "form", message: "Name?", requestedSchema: { type: "object", properties: {} } }).catch(() => {});
  await server.request("sampling/createMessage", { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 5 }).catch(() => {});
  const paths = violations.filter((v) => v.direction === "in").flatMap((v) => v.issues.map((i) => `${v.method} ${i.path}`));
  assert.ok(paths.some((p) => p === "elicitation/create /result/action"), paths.join("\n"));
  assert.ok(paths.some((p) => p.startsWith("sampling/createMessage /result/")), paths.join("\n"));
  assert.ok(!paths.some((p) => p.includes("/result/task")), paths.join("\n"));
  mcp.close();
});
