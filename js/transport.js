// Turns what the caller gives into one shape: { send(text), close(), onText, onBinary, onClose }.
// A binary frame is handed over as the bytes it carries (a Uint8Array: UTF-8 JSON-RPC, which
// the session reads without a detour through a JS string); text frames as text.
// Accepted: a WebSocket URL, an http(s) URL where the session speaks HTTP (MCP's Streamable
// HTTP, see http.js; ACP's, see acp-http.js), a WebSocket (browser, or the `ws` package in Node), or any object with
// `send(text)` that delivers incoming text through `onmessage` or `addEventListener("message")`.

import { ProtocolError, codes } from "./errors.js";

/** An http(s) URL: the session speaks HTTP there (http.js, acp-http.js). */
const isHttpUrl = (target) => /^https?:/i.test(String(target));

const OPEN = 1;
const CONNECTING = 0;

/**
 * The subprotocol with which agentwire's client asks agentwire's relay for its own frames
 * (stderr, exit, hosting); without it the relay is transparent (docs/relay.md).
 */
export const RELAY_SUBPROTOCOL = "agentwire.relay";

/**
 * Whether to ask for the relay's frames: `relay: true` or `false` says; by default, when the
 * URL has the relay's shape (`…/ws?…agent=…`). A server that is no relay picks no subprotocol,
 * which the `ws` package in Node refuses, so other URLs are not asked.
 */
function asksForRelay(target, relay) {
  if (relay !== undefined) return relay === true;
  const url = new URL(String(target));
  return url.pathname.endsWith("/ws") && url.searchParams.has("agent");
}

export async function openTransport(target, options = {}) {
  if ((typeof target === "string" || target instanceof URL) && isHttpUrl(target)) {
    if (options.acp) {
      // ACP's remote transport: Streamable HTTP, or the WebSocket upgrade of the same endpoint.
      const ws = new URL(String(target));
      ws.protocol = ws.protocol === "https:" ? "wss:" : "ws:";
      const upgrade = () => openTransport(ws, { ...options, acp: undefined });
      if (options.acp.transport === "websocket") return upgrade();
      // http.js is in the bundle of an entry with MCP's client, its own module for ACP alone.
      const [{ openAcpHttpTransport }, { readText }] = await Promise.all([import("./acp-http.js"), import("./http.js")]);
      // A server that takes only the WebSocket (the RFD allows it) refuses the POST: upgrade then.
      return openAcpHttpTransport(target, { ...options.acp, readText, upgrade: options.acp.transport === "http" ? undefined : upgrade });
    }
    if (!options.McpHttp) {
      throw new ProtocolError(codes.INVALID_PARAMS, "an MCP server speaks HTTP to an McpClient only; connect through a ws:// or wss:// URL");
    }
    const { openHttpTransport } = await import("./http.js");
    return openHttpTransport(target, options.McpHttp, options.http);
  }
  if (typeof target === "string" || target instanceof URL) {
    const WebSocketImpl = options.WebSocket ?? globalThis.WebSocket ?? (await loadWs());
    const protocols = asksForRelay(target, options.relay) ? [RELAY_SUBPROTOCOL] : undefined;
    return openTransport(new WebSocketImpl(String(target), protocols), options);
  }
  if (!target || typeof target.send !== "function") {
    throw new ProtocolError(codes.INVALID_PARAMS, "a transport is a WebSocket URL, a WebSocket, or an object with send(text)");
  }
  // What arrives before the connection takes the transport is kept and handed over, in order,
  // when it does (`release`): a relay's first frame can come in the same packet as the answer
  // to the upgrade, and the `ws` package hands it over before the await of `open` resumes.
  const held = [];
  const hold = (handler) => (...args) => held.push([handler, args]);
  const t = {
    send: (text) => target.send(text), close: () => target.close?.(),
    onText: hold("onText"), onBinary: hold("onBinary"), onClose: hold("onClose"),
    release: () => { for (const [handler, args] of held.splice(0)) t[handler]?.(...args); },
  };
  const listen = (type, fn) => {
    if (typeof target.addEventListener === "function") target.addEventListener(type, fn);
    else if (typeof target.on === "function") target.on(type, fn);
    else target[`on${type}`] = fn;
  };
  // A browser WebSocket hands binary frames over as Blobs unless told otherwise; those can
  // only be read asynchronously, which could reorder frames.
  if (target.binaryType === "blob") target.binaryType = "arraybuffer";
  listen("message", (event) => {
    const data = event?.data !== undefined ? event.data : event;
    if (typeof data === "string") t.onText(data);
    else if (data instanceof ArrayBuffer) t.onBinary?.(new Uint8Array(data));
    else if (ArrayBuffer.isView(data)) t.onBinary?.(data instanceof Uint8Array ? data : new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    else t.onBinary?.(null);
  });
  listen("close", (event) => t.onClose({ code: event?.code ?? 1000, reason: event?.reason ?? "" }));
  listen("error", () => {});
  if (target.readyState === CONNECTING) await waitOpen(target, listen);
  else if (target.readyState !== undefined && target.readyState !== OPEN) {
    throw new ProtocolError(codes.CONNECTION_CLOSED, "the WebSocket is already closed");
  }
  // The subprotocol the server picked is known once open.
  if (typeof target.protocol === "string") t.relayFrames = target.protocol === RELAY_SUBPROTOCOL;
  return t;
}

function waitOpen(ws, listen) {
  return new Promise((resolve, reject) => {
    let done = false;
    listen("open", () => { if (!done) { done = true; resolve(); } });
    const refuse = (error) => {
      if (done) return;
      done = true;
      reject(error);
    };
    // The `ws` package (Node) hands over the HTTP answer to a refused upgrade: its status and
    // body name the cause.
    let answered = false;
    if (typeof ws.on === "function") {
      ws.on("unexpected-response", (req, res) => {
        answered = true;
        let body = "";
        res.setEncoding?.("utf8");
        const done = () => {
          refuse(refusal(ws.url, res.statusCode, body.trim()));
          req.destroy?.();
        };
        res.on("data", (chunk) => { if (body.length < 1024) body += chunk; });
        res.on("end", done);
        res.on("error", done);
      });
    }
    let diagnosing = false;
    const fail = (event) => {
      if (done || answered || diagnosing) return;
      diagnosing = true;
      // A browser says nothing about why: ask the relay (its token and agent list).
      diagnose(ws.url).then((explained) => refuse(explained ?? new ProtocolError(codes.CONNECTION_CLOSED,
        `WebSocket could not connect: ${event?.reason || event?.message || "the connection was refused or failed"}`)));
    };
    listen("error", fail);
    listen("close", fail);
  });
}

/** The error for a refused upgrade: what the relay said, and what to do about it. */
export function refusal(url, status, body) {
  let agent = "";
  try { agent = new URL(url).searchParams.get("agent") ?? ""; } catch { /* not a URL */ }
  const said = `the relay refused the WebSocket: ${status}${body ? ` ${body}` : ""}`;
  let fix;
  if (status === 401) fix = "the token is missing or wrong: use the URL the relay printed when it started (…/ws?token=…), with its current token";
  else if (status === 403 && (/origin/i.test(body) || !body)) {
    fix = typeof document === "undefined"
      ? "Node sends no Origin header: start the relay with --allow-missing-origin (or give the WebSocket an Origin the relay allows with --allow-origin)"
      : `this page's Origin is not allowed: start the relay with --allow-origin ${globalThis.location?.origin ?? "<the page's origin>"}`;
  } else if (status === 403 && /host/i.test(body)) fix = "connect to the address the relay printed (its Host), not another name for it";
  else if (status === 404) fix = `no agent is named ${JSON.stringify(agent)}: use one of the relay's --agent NAME=COMMAND names (GET /api/agents?token=… lists them)`;
  else fix = "see the relay's log for why";
  return new ProtocolError(codes.CONNECTION_CLOSED, `${said}; ${fix}`, { status, body, ...(agent ? { agent } : {}) });
}

/** In a browser, why agentwire's relay refused: its agent list answers for the token and names. */
async function diagnose(url) {
  let u;
  try { u = new URL(url); } catch { return undefined; }
  if (!/\/ws$/.test(u.pathname) || typeof fetch !== "function") return undefined;
  const agents = new URL("/api/agents", u);
  agents.protocol = u.protocol === "wss:" ? "https:" : "http:";
  const token = u.searchParams.get("token");
  if (token) agents.searchParams.set("token", token);
  try {
    const res = await fetch(agents, { signal: AbortSignal.timeout?.(3000) });
    if (res.status === 401) return refusal(url, 401, "missing or wrong token");
    if (!res.ok) return undefined;
    const names = ((await res.json())?.agents ?? []).map((a) => a.name);
    const agent = u.searchParams.get("agent");
    if (agent !== null && !names.includes(agent)) return refusal(url, 404, "no agent of that name");
    return refusal(url, 403, "Origin not allowed");
  } catch {
    return undefined;
  }
}

async function loadWs() {
  try {
    const mod = await import("ws");
    return mod.WebSocket ?? mod.default;
  } catch {
    throw new ProtocolError(codes.INVALID_PARAMS, "no WebSocket here: pass options.WebSocket or install the `ws` package");
  }
}
