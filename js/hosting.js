// The page's own MCP server, offered to the agent of an ACP connection. Two routes:
// - MCP over ACP (`mcp/message`, unstable in ACP): the messages ride the ACP connection
//   itself, wherever it runs; taken when the agent advertises it and the connection allows
//   ACP's unstable methods;
// - Streamable HTTP through agentwire's relay: the relay serves the server to the agent at a URL
//   of its own (with a secret) and carries each MCP session's messages on the page's WebSocket.
// Either way each MCP session the agent opens gets a fresh McpServer (its own handshake and
// state), set up by the app.

import { ProtocolError, codes } from "./errors.js";

/**
 * Offers a server named `name`; resolves with the `mcpServers` entry for `session/new` or
 * `session/load`. `setup(server, { session, name })` registers the server's handlers before its
 * first message; `route` is "auto" (MCP over ACP where possible, else HTTP), "acp" or "http";
 * the other options are McpServer's (serverInfo, capabilities, protocolVersions, …).
 */
export async function hostMcpServer(acp, McpServer, { name = "page", route = "auto", setup, timeoutMs = 10_000, ...serverOptions } = {}) {
  const state = acp.session.state();
  const wire = state.peerCapabilitiesWire ?? {};
  const overAcp = state.protocolVersion >= 2 ? wire.session?.mcp?.acp != null : wire.mcpCapabilities?.acp === true;
  const unstable = acp.methods().some((m) => m.method === "mcp/message" && m.enabled);
  const overHttp = state.peerCapabilities?.mcp?.http === true;
  const serve = serverFor(McpServer, serverOptions, setup, name);
  if (route === "acp" || (route === "auto" && overAcp && unstable)) {
    if (!overAcp) throw refusal("the agent does not advertise MCP over ACP (mcpCapabilities.acp in v1, session.mcp.acp in v2)", "mcp.acp");
    if (!unstable) throw refusal("MCP over ACP uses ACP's unstable methods: connect with allowUnstable: true", "allowUnstable");
    return hostOverAcp(acp, name, serve);
  }
  if (route !== "auto" && route !== "http") throw new ProtocolError(codes.INVALID_PARAMS, `route must be "auto", "acp" or "http", not ${JSON.stringify(route)}`);
  if (!overHttp) {
    throw refusal("the agent does not advertise MCP servers over HTTP (mcpCapabilities.http in v1, session.mcp.http in v2)"
      + (overAcp ? " and MCP over ACP needs allowUnstable: true" : ", nor MCP over ACP"), "mcp.http");
  }
  return hostOverRelay(acp.connection, name, serve, timeoutMs);
}

const refusal = (message, capability) => new ProtocolError(codes.LOCAL_REFUSAL, `${message}, so it cannot reach a page's MCP server`, { capability });

/** One MCP session's server: messages wait for its setup, then go in order. */
function serverFor(McpServer, serverOptions, setup, name) {
  return (session, send) => {
    const transport = { send, close() {} };
    let queue = McpServer.connect(transport, serverOptions).then((server) => setup?.(server, { session, name }));
    const then = (fn) => { queue = queue.then(fn, fn); };
    return {
      deliver: (text) => then(() => transport.onmessage?.({ data: text })),
      end: () => then(() => transport.onclose?.({ code: 1000, reason: "the agent ended the MCP session" })),
    };
  };
}

/** Streamable HTTP through the relay (docs/relay.md, Hosted MCP servers). */
async function hostOverRelay(connection, name, serve, timeoutMs) {
  if (connection.relayFrames === false) {
    throw new ProtocolError(codes.INVALID_PARAMS, "hosting through the relay needs a connection that asked for the relay's frames "
      + "(the WebSocket subprotocol agentwire.relay: connect with relay: true, and a WebSocket class of your own must pass the protocols on)", { name });
  }
  const hosted = await new Promise((resolve, reject) => {
    const done = (settle, value) => { clearTimeout(timer); off(); settle(value); };
    const timer = setTimeout(() => done(reject, new ProtocolError(codes.TIMEOUT,
      `no answer from a relay to hosting ${JSON.stringify(name)}: hosting needs a connection through agentwire's relay`, { name })), timeoutMs);
    const off = connection.onRelay((e) => {
      if (e?.name !== name) return;
      if (e.event === "hosted") done(resolve, e);
      else if (e.event === "hostRefused") done(reject, new ProtocolError(codes.LOCAL_REFUSAL, e.message, { name }));
    });
    connection.sendRaw(JSON.stringify({ relay: { host: name } }));
  });
  const sessions = new Map();
  const session = (id) => {
    if (!sessions.has(id)) {
      // The server's text goes into a relay frame as a JSON value (it is JSON).
      sessions.set(id, serve(id, (text) => connection.sendRaw(`{"relay":{"mcp":${JSON.stringify(id)},"message":${text}}}`)));
    }
    return sessions.get(id);
  };
  connection.onRelay((e) => {
    if (e?.host !== name) return;
    if (e.event === "mcp") session(e.session).deliver(JSON.stringify(e.message));
    else if (e.event === "mcpEnded") {
      sessions.get(e.session)?.end();
      sessions.delete(e.session);
    }
  });
  connection.onClose(() => {
    for (const s of sessions.values()) s.end();
    sessions.clear();
  });
  return { type: "http", name, url: hosted.url, headers: [{ name: "Authorization", value: hosted.authorization }] };
}

const random = () => Array.from(globalThis.crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("");

/**
 * MCP over ACP (unstable in ACP; the newest schema's form): the agent sends each MCP message of
 * its own as an `mcp/message` request `{serverId, requestId, method, params}` and gets the inner
 * outcome as `{result}` or `{error}`; the server's notifications for an active request come back
 * as `mcp/message` notifications naming it. One dispatcher per ACP connection serves every
 * server hosted on it; each `initialize` starts a fresh server (a new MCP session).
 */
function hostOverAcp(acp, name, serve) {
  const hub = acp._mcpOverAcp ??= overAcpHub(acp);
  const serverId = `${name}-${random()}`;
  hub.set(serverId, { serve, session: null, sessions: 0, pending: new Map(), tokens: new Map() });
  return { type: "acp", name, serverId };
}

function overAcpHub(acp) {
  const servers = new Map();
  // What the page's server sends: answers settle the agent's requests; notifications go back
  // for the request they belong to (by progress token, else the newest one still open).
  const fromServer = (serverId, s, text) => {
    const m = JSON.parse(text);
    if (m.id !== undefined && m.id !== null && ("result" in m || "error" in m)) {
      const resolve = s.pending.get(m.id);
      s.pending.delete(m.id);
      for (const [token, id] of s.tokens) if (id === m.id) s.tokens.delete(token);
      resolve?.("error" in m ? { error: m.error } : { result: m.result ?? null });
    } else if (m.id !== undefined) {
      s.session.deliver(JSON.stringify({ jsonrpc: "2.0", id: m.id, error: { code: codes.METHOD_NOT_FOUND, message: "MCP over ACP carries no requests from the server to the agent" } }));
    } else {
      const token = m.params?.progressToken;
      const requestId = (token !== undefined ? s.tokens.get(JSON.stringify(token)) : undefined) ?? [...s.pending.keys()].at(-1);
      if (requestId !== undefined) acp.notify("mcp/message", { serverId, requestId, method: m.method, params: m.params ?? null }).catch(() => {});
    }
  };
  acp.onRequest("mcp/message", ({ serverId, requestId, method, params }) => {
    const s = servers.get(serverId);
    if (!s) throw new ProtocolError(codes.INVALID_PARAMS, `no MCP server ${JSON.stringify(serverId)} on this connection`, { serverId });
    if (method === "initialize" || !s.session) {
      s.session?.end();
      s.session = s.serve(`${serverId}#${++s.sessions}`, (text) => fromServer(serverId, s, text));
    }
    const inner = { jsonrpc: "2.0", method, ...(params != null ? { params } : {}) };
    // MCP's notifications travel as requests too; they are answered at once.
    if (method.startsWith("notifications/")) {
      s.session.deliver(JSON.stringify(inner));
      return { result: null };
    }
    const token = params?._meta?.progressToken;
    if (token !== undefined) s.tokens.set(JSON.stringify(token), requestId);
    return new Promise((resolve) => {
      s.pending.set(requestId, resolve);
      s.session.deliver(JSON.stringify({ ...inner, id: requestId }));
    });
  });
  acp.onClose(() => {
    for (const s of servers.values()) s.session?.end();
  });
  return servers;
}
