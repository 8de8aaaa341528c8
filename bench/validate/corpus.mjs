// A synthetic corpus for the validation benchmarks (the default is the recorded one,
// recorded/corpus.json, written by record.mjs): a recorded-style ACP v1 session (initialize,
// session/new, a prompt turn with many session/update notifications, tool calls with diffs,
// a permission request, file reads) and an MCP
// 2025-06-18 session (initialize, tools/list with input schemas, tool calls and results).
// Deterministic. `node bench/validate/corpus.mjs [out.json]` writes
// [{ protocol, version, direction, inReplyTo, def, part, text }], where `def` names the
// official schema definition of the checked `part` ("params" | "result" | "error" | "message").

import { writeFileSync } from "node:fs";

const out = [];
const acp = (direction, msg, def, inReplyTo = null) =>
  out.push({ protocol: "acp", version: "1", direction, inReplyTo, def, part: msg.method ? "params" : "result", text: JSON.stringify(msg) });
const mcp = (direction, msg, def, inReplyTo = null) =>
  out.push({ protocol: "mcp", version: "2025-06-18", direction, inReplyTo, def, part: msg.method ? "message" : "result", text: JSON.stringify(msg) });
const C = "clientToServer", S = "serverToClient";
const words = "the quick brown fox jumps over the lazy dog while the compiler checks every borrow".split(" ");
const sentence = (i, n) => Array.from({ length: n }, (_, k) => words[(i * 7 + k) % words.length]).join(" ");

// ACP v1
acp(C, { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true }, clientInfo: { name: "web-ide", title: "Web IDE", version: "1.4.2" } } }, "InitializeRequest");
acp(S, { jsonrpc: "2.0", id: 0, result: { protocolVersion: 1, agentCapabilities: { loadSession: true, promptCapabilities: { image: true, audio: false, embeddedContext: true }, mcpCapabilities: { http: true, sse: false } }, agentInfo: { name: "demo-agent", version: "0.3.0" }, authMethods: [] } }, "InitializeResponse", "initialize");
acp(C, { jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/home/me/project", mcpServers: [{ name: "fs", command: "/usr/bin/mcp-fs", args: ["--stdio"], env: [{ name: "LOG", value: "info" }] }] } }, "NewSessionRequest");
acp(S, { jsonrpc: "2.0", id: 1, result: { sessionId: "sess_8f2a" } }, "NewSessionResponse", "session/new");
let id = 2;
for (let turn = 0; turn < 4; turn++) {
  const promptId = id++;
  acp(C, { jsonrpc: "2.0", id: promptId, method: "session/prompt", params: { sessionId: "sess_8f2a", prompt: [
    { type: "text", text: `Please fix the failing test in src/lib.rs (${sentence(turn, 12)})` },
    { type: "resource", resource: { uri: "file:///home/me/project/src/lib.rs", mimeType: "text/x-rust", text: "fn main() {\n    println!(\"hi\");\n}\n".repeat(8) } },
  ] } }, "PromptRequest");
  for (let i = 0; i < 6; i++)
    acp(S, { jsonrpc: "2.0", method: "session/update", params: { sessionId: "sess_8f2a", update: { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: sentence(i, 9) } } } }, "SessionNotification");
  acp(S, { jsonrpc: "2.0", method: "session/update", params: { sessionId: "sess_8f2a", update: { sessionUpdate: "plan", entries: [
    { content: "Read the failing test", priority: "high", status: "completed" },
    { content: "Fix the off-by-one", priority: "high", status: "in_progress" },
    { content: "Run the tests", priority: "medium", status: "pending" } ] } } }, "SessionNotification");
  const tc = `call_${turn}`;
  acp(S, { jsonrpc: "2.0", method: "session/update", params: { sessionId: "sess_8f2a", update: { sessionUpdate: "tool_call", toolCallId: tc, title: "Reading src/lib.rs", kind: "read", status: "pending", locations: [{ path: "/home/me/project/src/lib.rs", line: 10 }], rawInput: { path: "src/lib.rs" } } } }, "SessionNotification");
  const readId = id++;
  acp(S, { jsonrpc: "2.0", id: readId, method: "fs/read_text_file", params: { sessionId: "sess_8f2a", path: "/home/me/project/src/lib.rs", line: 1, limit: 200 } }, "ReadTextFileRequest");
  acp(C, { jsonrpc: "2.0", id: readId, result: { content: "pub fn add(a: i32, b: i32) -> i32 {\n    a + b + 1\n}\n".repeat(20) } }, "ReadTextFileResponse", "fs/read_text_file");
  acp(S, { jsonrpc: "2.0", method: "session/update", params: { sessionId: "sess_8f2a", update: { sessionUpdate: "tool_call_update", toolCallId: tc, status: "completed", content: [{ type: "content", content: { type: "text", text: "read 60 lines" } }] } } }, "SessionNotification");
  const permId = id++;
  acp(S, { jsonrpc: "2.0", id: permId, method: "session/request_permission", params: { sessionId: "sess_8f2a", toolCall: { toolCallId: `edit_${turn}`, title: "Edit src/lib.rs", kind: "edit", status: "pending" }, options: [
    { optionId: "allow", name: "Allow once", kind: "allow_once" }, { optionId: "always", name: "Always allow", kind: "allow_always" }, { optionId: "reject", name: "Reject", kind: "reject_once" } ] } }, "RequestPermissionRequest");
  acp(C, { jsonrpc: "2.0", id: permId, result: { outcome: { outcome: "selected", optionId: "allow" } } }, "RequestPermissionResponse", "session/request_permission");
  acp(S, { jsonrpc: "2.0", method: "session/update", params: { sessionId: "sess_8f2a", update: { sessionUpdate: "tool_call", toolCallId: `edit_${turn}`, title: "Edit src/lib.rs", kind: "edit", status: "completed", content: [
    { type: "diff", path: "/home/me/project/src/lib.rs", oldText: "    a + b + 1\n", newText: "    a + b\n" } ] } } }, "SessionNotification");
  for (let i = 0; i < 24; i++)
    acp(S, { jsonrpc: "2.0", method: "session/update", params: { sessionId: "sess_8f2a", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: sentence(i + turn, 6) + " " } } } }, "SessionNotification");
  acp(C, { jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "sess_8f2a" } }, "CancelNotification");
  acp(S, { jsonrpc: "2.0", id: promptId, result: { stopReason: "end_turn" } }, "PromptResponse", "session/prompt");
}

// MCP 2025-06-18
mcp(C, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} }, clientInfo: { name: "web-ide", version: "1.4.2" } } }, "InitializeRequest");
mcp(S, { jsonrpc: "2.0", id: 1, result: { protocolVersion: "2025-06-18", capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, logging: {} }, serverInfo: { name: "everything", version: "2.0.0" }, instructions: "Use the tools." } }, "InitializeResult", "initialize");
mcp(C, { jsonrpc: "2.0", method: "notifications/initialized" }, "InitializedNotification");
mcp(C, { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }, "ListToolsRequest");
const tool = (name, props, required) => ({ name, title: name.toUpperCase(), description: `The ${name} tool: ${sentence(name.length, 10)}`,
  inputSchema: { type: "object", properties: props, required }, annotations: { readOnlyHint: true } });
mcp(S, { jsonrpc: "2.0", id: 2, result: { tools: [
  tool("echo", { message: { type: "string", description: "Message to echo" } }, ["message"]),
  tool("add", { a: { type: "number" }, b: { type: "number" } }, ["a", "b"]),
  tool("longRunningOperation", { duration: { type: "number", default: 10 }, steps: { type: "number", default: 5 } }, []),
  tool("sampleLLM", { prompt: { type: "string" }, maxTokens: { type: "number", default: 100 } }, ["prompt"]),
  tool("getTinyImage", {}, []),
  tool("annotatedMessage", { messageType: { type: "string", enum: ["error", "success", "debug"] }, includeImage: { type: "boolean" } }, ["messageType"]),
  tool("getResourceReference", { resourceId: { type: "number", minimum: 1, maximum: 100 } }, ["resourceId"]),
  tool("search", { query: { type: "string" }, filters: { type: "object", properties: { lang: { type: "string" }, limit: { type: "integer" } } } }, ["query"]),
] } }, "ListToolsResult", "tools/list");
for (let i = 0; i < 20; i++) {
  const cid = 10 + i;
  mcp(C, { jsonrpc: "2.0", id: cid, method: "tools/call", params: { name: "echo", arguments: { message: sentence(i, 8) }, _meta: { progressToken: cid } } }, "CallToolRequest");
  if (i % 4 === 0) mcp(S, { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: cid, progress: 50, total: 100, message: "half way" } }, "ProgressNotification");
  const content = i % 5 === 0
    ? [{ type: "text", text: "Here is an image" }, { type: "image", data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk".repeat(4), mimeType: "image/png" }]
    : [{ type: "text", text: `Echo: ${sentence(i, 8)}` }];
  mcp(S, { jsonrpc: "2.0", id: cid, result: { content, isError: false } }, "CallToolResult", "tools/call");
}
mcp(C, { jsonrpc: "2.0", id: 99, method: "resources/read", params: { uri: "test://static/resource/1" } }, "ReadResourceRequest");
mcp(S, { jsonrpc: "2.0", id: 99, result: { contents: [{ uri: "test://static/resource/1", mimeType: "text/plain", text: "Resource 1: " + sentence(3, 30) }] } }, "ReadResourceResult", "resources/read");

const path = process.argv[2] ?? new URL("./corpus.json", import.meta.url).pathname;
writeFileSync(path, JSON.stringify(out));
console.error(`${out.length} messages (${out.filter((m) => m.protocol === "acp").length} ACP, ${out.filter((m) => m.protocol === "mcp").length} MCP), ${out.reduce((n, m) => n + m.text.length, 0)} bytes -> ${path}`);
