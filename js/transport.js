// Turns what the caller gives into one shape: { send(text), close(), onText, onBinary, onClose }.
// A binary frame is handed over as the bytes it carries (a Uint8Array: UTF-8 JSON-RPC, which
// the session reads without a detour through a JS string); text frames as text.
// Accepted: a WebSocket URL, an http(s) URL where the session speaks HTTP (MCP's Streamable
// HTTP, see http.js), a WebSocket (browser, or the `ws` package in Node), or any object with
// `send(text)` that delivers incoming text through `onmessage` or `addEventListener("message")`.

import { ProtocolError, codes } from "./errors.js";
import { isHttpUrl, openHttpTransport } from "./http.js";

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
    if (!options.McpHttp) {
      throw new ProtocolError(codes.INVALID_PARAMS, "only MCP speaks HTTP; connect ACP through a ws:// or wss:// URL");
    }
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
  const t = { send: (text) => target.send(text), close: () => target.close?.(), onText: () => {}, onClose: () => {} };
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
  return t;
}

function waitOpen(ws, listen) {
  return new Promise((resolve, reject) => {
    let done = false;
    listen("open", () => { if (!done) { done = true; resolve(); } });
    const fail = (event) => {
      if (done) return;
      done = true;
      const why = event?.reason || event?.message || "the relay refused the connection (check the token and the agent name)";
      reject(new ProtocolError(codes.CONNECTION_CLOSED, `WebSocket could not connect: ${why}`));
    };
    listen("error", fail);
    listen("close", fail);
  });
}

async function loadWs() {
  try {
    const mod = await import("ws");
    return mod.WebSocket ?? mod.default;
  } catch {
    throw new ProtocolError(codes.INVALID_PARAMS, "no WebSocket here: pass options.WebSocket or install the `ws` package");
  }
}
