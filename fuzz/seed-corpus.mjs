// Writes the committed seed corpus of every fuzz target (fuzz/corpus/<target>/) from
// the seed vectors (../shared/vectors/seeds.json) and typical flows. Run it again
// after changing a scenario of src/lib.rs: `node fuzz/seed-corpus.mjs`.
// Session inputs are one scenario byte (stage in the low two bits: 0 fresh,
// 1 handshake under way, 2 ready, 3 ready with requests pending; versions above),
// then one frame per line; an empty line lets time pass.
import { readFileSync, writeFileSync, mkdirSync, rmSync } from "node:fs";
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const shared = process.env.AGENTWIRE_SHARED ?? join(here, "../../shared");
const vectors = JSON.parse(readFileSync(join(shared, "vectors/seeds.json"), "utf8")).vectors;
const whole = vectors.filter((v) => v.direction !== "fragment");
const seeds = (protocol, direction) =>
  whole.filter((v) => v.protocol === protocol && v.direction === direction).map((v) => JSON.stringify(v.message));

const j = (o) => JSON.stringify(o);
const req = (id, method, params) => j({ jsonrpc: "2.0", id, method, ...(params && { params }) });
const note = (method, params) => j({ jsonrpc: "2.0", method, ...(params && { params }) });
const ok = (id, result) => j({ jsonrpc: "2.0", id, result });
const err = (id, code, message, data) => j({ jsonrpc: "2.0", id, error: { code, message, ...(data && { data }) } });
const headed = (byte, text) => Buffer.concat([Buffer.from([byte]), Buffer.from(text, "utf8")]);
const flow = (stage, variant, frames) => headed(stage | (variant << 2), frames.join("\n"));

// Inputs that are not (quite) JSON-RPC: every target gets some.
const hostile = [
  "",
  "not json",
  "[]",
  "[1, 2]",
  "{}",
  "null",
  '{"jsonrpc":"2.0","id":1.5,"method":"x"}',
  '{"jsonrpc":"2.0","id":18446744073709551615,"result":{}}',
  '{"jsonrpc":"2.0","id":1e400,"result":{}}',
  '{"jsonrpc":"1.0","id":1,"method":"ping"}',
  '{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}',
  '{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":1}}',
  '{"jsonrpc":"2.0","id":null,"method":"ping"}',
  '{"jsonrpc":"2.0","id":1,"id":2,"method":"ping","params":{"__proto__":{"x":1},"constructor":{}}}',
  '{"jsonrpc":"2.0","method":"x","params":{"s":"\\ud800"}}',
  '{"jsonrpc":"2.0","method":"x","params":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}',
  '[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","id":7,"method":"ping"},5]',
];

const corpus = {
  jsonrpc_parse: [
    ...whole.map((v) => j(v.message)),
    ...hostile.filter(Boolean),
    // Floats that moved by one unit in the last place without serde_json's float_roundtrip.
    '{"jsonrpc":"2.0","method":"_x","params":[1.0715660391465826e-75,-1.81996730402717e-179,-1.603964615428183e143]}',
  ],
  schema_validate: [],
  acp_client: [],
  acp_agent: [],
  mcp_client: [],
  mcp_server: [],
};

// schema_validate: the selector of src/lib.rs `validation_context`.
const versions = ["1", "2", "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];
const replies = [null, "initialize", "session/new", "session/prompt", "session/load", "fs/read_text_file", "tools/list", "tools/call", "server/discover", "sampling/createMessage"];
for (const v of whole) {
  const toServer = ["client->agent", "client->server"].includes(v.direction);
  const m = v.message;
  const reply = "method" in m ? 0 : Math.max(0, replies.indexOf(v.what.split(" ")[0]));
  corpus.schema_validate.push(headed(versions.indexOf(String(v.version)) + 7 * (toServer ? 0 : 1) + 14 * reply, j(m)));
}

// ACP client: the input plays the agent.
const acpAgentSays = seeds("acp", "agent->client");
const update = (sessionId, text) =>
  note("session/update", { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } });
const permission = (id) =>
  req(id, "session/request_permission", { sessionId: "sess_abc123def456", toolCall: { toolCallId: "t1" }, options: [{ optionId: "ok", name: "OK", kind: "allow_once" }] });
for (const [variant, init] of acpAgentSays.filter((t) => t.includes("protocolVersion")).entries()) {
  corpus.acp_client.push(flow(1, variant % 4, [init, ...acpAgentSays.filter((t) => !t.includes("protocolVersion"))]));
}
corpus.acp_client.push(
  flow(3, 0, [ok(1, { sessionId: "sess_abc123def456" }), update("sess_abc123def456", "Hel"), permission(9), update("sess_abc123def456", "lo"), ok(2, { stopReason: "end_turn" }), ok(3, {})]),
  flow(3, 1, [err(1, -32602, "Invalid params"), req(4, "fs/read_text_file", { sessionId: "s", path: "/a" }), "", ok(2, { stopReason: "cancelled" }), ok(2, {})]),
  flow(3, 0, [req(5, "terminal/create", { sessionId: "s", command: "ls" }), req(5, "terminal/create", { sessionId: "s", command: "ls" }), note("$/cancel_request", { requestId: 5 }), ""]),
  flow(2, 2, [req(1, "initialize", {}), ok(0, { protocolVersion: 1 }), ...hostile]),
  flow(1, 0, [err(0, -32602, "Unsupported protocol version", { supported: [1] })]),
  flow(1, 1, [ok(0, { protocolVersion: 3, capabilities: {} })]),
);

// ACP agent: the input plays the client.
const acpClientSays = seeds("acp", "client->agent");
corpus.acp_agent.push(
  ...acpClientSays.filter((t) => t.includes('"initialize"')).map((init, i) => flow(0, i, [init, ...acpClientSays.filter((t) => !t.includes('"initialize"'))])),
  flow(0, 0, [req(0, "initialize", { protocolVersion: 1 }), req(1, "session/new", { cwd: "/w", mcpServers: [] }), req(2, "session/prompt", { sessionId: "s1", prompt: [{ type: "text", text: "hi" }] }), note("session/cancel", { sessionId: "s1" })]),
  flow(3, 0, [ok(0, { outcome: { outcome: "selected", optionId: "ok" } }), ok(1, { content: "x" }), note("session/cancel", { sessionId: "s1" }), note("$/cancel_request", { requestId: 1 })]),
  flow(3, 1, ["", err(0, -32800, "cancelled"), ok(0, {}), req(1, "session/prompt", { sessionId: "s1", prompt: [] })]),
  flow(2, 0, [req(1, "session/load", { sessionId: "x", cwd: "relative", mcpServers: [] }), req(2, "session/prompt", { sessionId: "s1", prompt: [{ type: "image", data: "", mimeType: "image/png" }] }), req(3, "authenticate", { methodId: "nope" }), req(4, "_ext/thing", {}), note("_ext/note")]),
  flow(0, 2, [req(0, "initialize", { protocolVersion: 70000 }), req(0, "initialize", { protocolVersion: "1" }), ...hostile]),
);

// MCP client: the input plays the server.
const mcpServerSays = seeds("mcp", "server->client");
const tools = ok(1, { tools: [{ name: "echo", inputSchema: { type: "object" } }] });
corpus.mcp_client.push(
  ...mcpServerSays.map((s, i) => flow(1, i === 0 ? 0 : 4, [s, note("notifications/tools/list_changed"), req(3, "ping"), req(4, "roots/list")])),
  flow(1, 1, [err(0, -32601, "Method not found"), ok(1, { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } })]),
  flow(1, 1, [ok(0, { resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, _meta: {} })]),
  flow(3, 0, [tools, note("notifications/progress", { progressToken: 2, progress: 1, total: 3 }), "", note("notifications/progress", { progressToken: 2, progress: 2 }), ok(2, { content: [] }), ok(2, { content: [] })]),
  flow(3, 2, [j([j({}), tools]), j([JSON.parse(req(9, "ping")), JSON.parse(req(9, "ping")), JSON.parse(ok(2, { content: [] }))]), note("notifications/cancelled", { requestId: 9 })]),
  flow(3, 0, [req(5, "sampling/createMessage", { messages: [], maxTokens: 1 }), req(6, "elicitation/create", { message: "?", requestedSchema: { type: "object", properties: {} } }), note("notifications/cancelled", { requestId: 5, reason: "x" }), note("notifications/message", { level: "info", data: "x" })]),
  flow(2, 0, hostile),
);

// MCP server: the input plays the client.
const mcpClientSays = seeds("mcp", "client->server");
const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
corpus.mcp_server.push(
  flow(0, 0, [...mcpClientSays, req(2, "tools/list"), req(3, "ping"), req(4, "resources/subscribe", { uri: "file:///a" })]),
  flow(0, 1, [req(0, "server/discover"), req(1, "tools/list", { _meta: meta }), req(2, "tools/list", { _meta: { ...meta, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } }), req(3, "tools/list")]),
  flow(0, 2, [req(1, "initialize", { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "c", version: "1" } }), note("notifications/initialized"), j([JSON.parse(req(2, "ping")), JSON.parse(req(3, "tools/list"))])]),
  flow(0, 0, [req(1, "initialize", { protocolVersion: "1999-01-01" }), req(1, "initialize", {}), req(2, "tools/list"), note("notifications/initialized")]),
  flow(1, 0, [req(2, "ping"), note("notifications/initialized"), req(3, "tools/call", { name: "echo", _meta: { progressToken: 1 } }), note("notifications/cancelled", { requestId: 3 })]),
  flow(3, 0, [ok(0, { roots: [] }), err(1, -1, "no"), ok(2, {}), "", ok(2, {}), note("notifications/roots/list_changed")]),
  flow(2, 0, hostile),
);

for (const [target, inputs] of Object.entries(corpus)) {
  const dir = join(here, "corpus", target);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const input of inputs) {
    const bytes = Buffer.isBuffer(input) ? input : Buffer.from(input, "utf8");
    writeFileSync(join(dir, createHash("sha1").update(bytes).digest("hex").slice(0, 16)), bytes);
  }
  console.log(`${target}: ${inputs.length} inputs`);
}
