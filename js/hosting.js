// The page's own MCP server, offered to the agent of an ACP connection through agentwire's
// relay: the relay serves it to the agent over Streamable HTTP at a URL of its own (with a
// secret), and carries each MCP session's messages on the page's WebSocket. Each session the
// agent opens gets a fresh McpServer (its own handshake and state), built by `setup`.

import { ProtocolError, codes } from "./errors.js";

/**
 * Asks the relay to host a server named `name`; resolves with the `mcpServers` entry to pass
 * to `session/new` or `session/load`. `setup(server, { session })` registers the server's
 * handlers (tools/list, tools/call, …) before its first message; the other options are
 * McpServer's (serverInfo, capabilities, protocolVersions, …).
 */
export async function hostMcpServer(connection, McpServer, { name = "page", setup, timeoutMs = 10_000, ...serverOptions } = {}) {
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
    let s = sessions.get(id);
    if (s) return s;
    // The server's transport: its text goes into a relay frame as a JSON value (it is JSON).
    const transport = { send: (text) => connection.sendRaw(`{"relay":{"mcp":${JSON.stringify(id)},"message":${text}}}`), close() {} };
    // Messages wait for the server and its handlers, then go in order.
    let queue = McpServer.connect(transport, serverOptions).then((server) => setup?.(server, { session: id, name }));
    const then = (fn) => { queue = queue.then(fn, fn); };
    s = {
      deliver: (text) => then(() => transport.onmessage?.({ data: text })),
      end: () => then(() => transport.onclose?.({ code: 1000, reason: "the agent ended the MCP session" })),
    };
    sessions.set(id, s);
    return s;
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
