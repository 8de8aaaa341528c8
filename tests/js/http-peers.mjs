// HTTP peers for the Streamable HTTP tests: the reference server (server-everything), a
// server built on the official SDK's StreamableHTTPServerTransport, and a scriptable raw
// server for what a well-behaved server never sends. All send the CORS headers a page needs.
import { spawn } from "node:child_process";
import http from "node:http";
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, ListResourcesRequestSchema, ReadResourceRequestSchema,
  ElicitResultSchema } from "@modelcontextprotocol/sdk/types.js";

const require = createRequire(import.meta.url);

/** The CORS headers a remote MCP server sends so that a page may talk to it (docs/mcp.md), the
 * 2026-07-28 request headers included (a handshake-era server then refuses `server/discover`
 * with a 400 the page can read, rather than the browser blocking the probe). */
export const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, DELETE",
  "access-control-allow-headers": "content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id, mcp-method, mcp-name",
  "access-control-expose-headers": "mcp-session-id, mcp-protocol-version",
};

export function listen(server) {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server.address().port)));
}

/** `@modelcontextprotocol/server-everything` in a mode ("streamableHttp" or "sse"); resolves with its base URL. */
export async function everything(mode = "streamableHttp") {
  const probe = http.createServer(); // a free port, found by binding it once
  const free = await listen(probe);
  await new Promise((r) => probe.close(r));
  const main = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
  const child = spawn(process.execPath, [main, mode], { env: { ...process.env, PORT: String(free) }, stdio: ["ignore", "pipe", "pipe"] });
  await new Promise((resolve, reject) => {
    const seen = (d) => { if (/listening|running/i.test(String(d))) resolve(); };
    child.stdout.on("data", seen);
    child.stderr.on("data", seen);
    child.on("exit", (code) => reject(new Error(`server-everything exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${free}`, close: () => child.kill() };
}

/**
 * A server on the official SDK's StreamableHTTPServerTransport: a `slow` tool that reports
 * progress, an `ask` tool that sends the client an elicitation request, one resource.
 * `requests` records each HTTP request (method, session id) the server saw.
 */
export async function sdkServer() {
  const { handle, requests, sessions } = sdkHandler();
  const httpServer = http.createServer(handle);
  const port = await listen(httpServer);
  return { url: `http://127.0.0.1:${port}/mcp`, requests, sessions, close: () => { httpServer.closeAllConnections(); httpServer.close(); } };
}

/** sdkServer's request handler, for servers that put something in front of it (OAuth). */
export function sdkHandler() {
  const sessions = new Map();
  const requests = [];
  const make = () => {
    const server = new Server({ name: "sdk-http", version: "1.0.0" }, { capabilities: { tools: {}, resources: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [
      { name: "slow", inputSchema: { type: "object", properties: {} } },
      { name: "ask", inputSchema: { type: "object", properties: {} } },
    ] }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      if (request.params.name === "slow") {
        const token = request.params._meta?.progressToken;
        for (let i = 1; i <= 3; i++) {
          if (token !== undefined) await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: i, total: 3 } });
        }
        return { content: [{ type: "text", text: "slow done" }] };
      }
      // Related to the call (extra.sendRequest), so it rides the call's own stream: a request
      // sent unrelated goes to the GET stream, and is lost if that stream is not open yet.
      const answer = await extra.sendRequest({ method: "elicitation/create", params: { message: "Name?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } } } } }, ElicitResultSchema);
      return { content: [{ type: "text", text: `hello ${answer.content?.name}` }] };
    });
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [{ uri: "test://one", name: "one" }] }));
    server.setRequestHandler(ReadResourceRequestSchema, async ({ params }) => ({ contents: [{ uri: params.uri, text: "one" }] }));
    return server;
  };
  const handle = async (req, res) => {
    for (const [k, v] of Object.entries(CORS)) res.setHeader(k, v);
    if (req.method === "OPTIONS") return res.writeHead(204).end();
    const sid = req.headers["mcp-session-id"];
    requests.push({ method: req.method, sessionId: sid });
    let transport = sid ? sessions.get(sid) : undefined;
    if (!transport) {
      if (sid) return res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }));
      transport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (id) => sessions.set(id, transport) });
      transport.onclose = () => sessions.delete(transport.sessionId);
      await make().connect(transport);
    }
    await transport.handleRequest(req, res);
  };
  return { handle, requests, sessions };
}

/**
 * A raw server whose answers the test scripts: `handle(req, body, res)` is called for every
 * request after CORS; initialize is answered here unless `handle` does it.
 */
export async function rawServer(handle) {
  const seen = [];
  const server = http.createServer((req, res) => {
    for (const [k, v] of Object.entries(CORS)) res.setHeader(k, v);
    let body = "";
    req.on("data", (c) => { body += c; });
    req.on("end", () => {
      seen.push({ method: req.method, headers: req.headers, body });
      let message;
      try { message = JSON.parse(body); } catch { message = undefined; }
      if (handle(req, message, res) !== false) return;
      if (message?.method === "initialize") {
        res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s-1" });
        return res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { protocolVersion: "2025-11-25",
          capabilities: { tools: {} }, serverInfo: { name: "raw", version: "1" } } }));
      }
      if (req.method === "GET") return res.writeHead(405).end();
      res.writeHead(202).end();
    });
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}/mcp`, seen, close: () => { server.closeAllConnections(); server.close(); } };
}

/**
 * The release relay serving the demo agent's MCP mode (with the conformance catalogue) at
 * `/mcp/demo-mcp` (Streamable HTTP), and the agents `more` names (relay arguments), with `env`
 * added to the relay's environment (which its agents inherit).
 * Resolves with `{ url, token, pids(), close }`; `pids()` lists the relay's child processes,
 * `close()` stops the relay and resolves once it has exited (its agents stopped with it).
 */
export async function relayWithMcp(more = [], env = {}) {
  const { join, dirname } = await import("node:path");
  const { fileURLToPath } = await import("node:url");
  const { readdirSync, readFileSync } = await import("node:fs");
  const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
  const token = randomUUID().replaceAll("-", "");
  const demo = join(root, "target/release/agentwire-demo-agent");
  const child = spawn(join(root, "target/release/agentwire-relay"), ["--port", "0", "--token", token, "--agent", `demo-mcp=${demo} --mcp --conformance`, ...more],
    { stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, ...env } });
  const page = await new Promise((resolve, reject) => {
    child.stdout.once("data", (d) => resolve(String(d).trim()));
    child.once("exit", (code) => reject(new Error(`relay exited ${code}`)));
  });
  const base = new URL(page).origin;
  const pids = () => readdirSync("/proc").filter((p) => /^\d+$/.test(p)).filter((p) => {
    try { return readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1].split(" ")[1] === String(child.pid); } catch { return false; }
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const close = () => {
    child.kill();
    return exited;
  };
  return { url: `${base}/mcp/demo-mcp`, base, token, pids, close };
}
