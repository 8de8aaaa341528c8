// ACP over HTTP: the Streamable HTTP transport of ACP's remote-transport RFD, over `fetch`, in
// browsers and Node alike. `initialize` is POSTed and answered 200 with a JSON body and the
// `Acp-Connection-Id` header; everything else is POSTed and answered 202, its answer arriving
// on a long-lived event stream: the connection's (GET with `Acp-Connection-Id`) or a
// session's (GET with `Acp-Connection-Id` + `Acp-Session-Id`); DELETE ends the connection.
// Cookies the agent sets go back with every request (the RFD requires it: load balancers pin
// a connection to a backend with them). Same shape as the other transports:
// { send(text), close(), onText(text, http), onClose, onError }.
//
// The RFD's v1 has no stream resumption: a stream that ends or breaks is the connection
// lost (onClose, code 1006); with `reconnect`, the client starts a new connection and
// resumes its sessions (reconnect.js). Events are read by the core's SSE decoder
// (`SseDecoder`, the one MCP's Streamable HTTP uses), bodies with http.js's bounded reader.

import { ProtocolError, codes } from "./errors.js";

const CONNECTION_ID = "acp-connection-id";
const SESSION_ID = "acp-session-id";
/** How much of an error body is read (it only goes into the error's `data`). */
const ERROR_BODY_BYTES = 2048;
/** The most cookies kept, and the longest kept: a peer cannot grow the jar without bound. */
const MAX_COOKIES = 32;
const MAX_COOKIE_BYTES = 4096;

/** The JSON-RPC id of a message as a map key (ids cross as numbers or strings). */
const keyOf = (id) => JSON.stringify(id);

/**
 * Cookies set by one agent endpoint, sent back on every request to it (HTTP and the
 * WebSocket upgrade). A browser keeps cookies itself (`Set-Cookie` is not readable there and
 * `credentials` asks it to send them); this jar is what Node's fetch lacks. Only name=value,
 * expiry and removal matter for one endpoint; `Domain` and `Path` would add nothing.
 */
export class CookieJar {
  #cookies = new Map();
  store(headers) {
    const lines = typeof headers.getSetCookie === "function" ? headers.getSetCookie()
      : (headers.get("set-cookie") ?? "").split(/,(?=\s*[^;,\s]+=)/).filter((s) => s.trim());
    for (const line of lines) {
      if (line.length > MAX_COOKIE_BYTES) continue;
      const [pair, ...attributes] = line.split(";");
      const at = pair.indexOf("=");
      const name = pair.slice(0, at).trim();
      if (at <= 0 || !name) continue;
      const attr = (n) => attributes.map((a) => a.trim().split("=")).find(([k]) => k.toLowerCase() === n)?.[1];
      const maxAge = attr("max-age");
      const expires = attr("expires");
      const gone = (maxAge !== undefined && Number(maxAge) <= 0) || (maxAge === undefined && expires !== undefined && Date.parse(expires) <= Date.now());
      this.#cookies.delete(name);
      if (!gone && this.#cookies.size < MAX_COOKIES) this.#cookies.set(name, pair.slice(at + 1).trim());
    }
  }
  /** The `Cookie` header's value, or undefined when there is none. */
  header() {
    return this.#cookies.size === 0 ? undefined : [...this.#cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  clear() { this.#cookies.clear(); }
}

/** The messages `SseDecoder.feed` gives for a chunk: their texts, each after a CR. */
export const messages = (texts) => (texts === "" ? [] : texts.split("\r"));

/**
 * Whether a message's text may have a member `id`, the mark of a request or an answer. A text
 * without `"id"` and without a `\u` escape, which could spell the name, is a notification
 * (most of a stream: session updates), known without parsing it.
 */
export const mayHaveId = (text) => text.includes('"id"') || text.includes("\\u");

/** What the transport needs to know of an outgoing message. */
function describe(text) {
  let m;
  try { m = JSON.parse(text); } catch { return {}; }
  if (!m || typeof m !== "object" || Array.isArray(m)) return {};
  const request = typeof m.method === "string" && m.id !== undefined && m.id !== null;
  const sessionId = typeof m.params?.sessionId === "string" ? m.params.sessionId : undefined;
  return { id: m.id, method: m.method, request, response: m.method === undefined && m.id !== undefined, sessionId };
}

/**
 * Options: `SseDecoder` (the core's), `readText` (http.js's bounded reader), `headers` (sent
 * with every request), `fetch`, `maxBytes` (one body or event), `credentials` (fetch's; default
 * "include", so that a browser sends the agent's cookies cross-origin too), `cookies` (a
 * CookieJar to share: a reconnection keeps the agent's affinity cookies).
 */
export function openAcpHttpTransport(url, options) {
  const base = new URL(String(url));
  const { SseDecoder, readText } = options;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== "function") throw new ProtocolError(codes.INVALID_PARAMS, "no fetch here: pass options.fetch");
  if (typeof SseDecoder !== "function") throw new ProtocolError(codes.INVALID_PARAMS, "ACP over HTTP needs the module's SseDecoder");
  const limit = options.maxBytes ?? 16 << 20;
  const jar = options.cookies ?? new CookieJar();
  const credentials = options.credentials ?? "include";
  const all = new AbortController(); // every request of this connection stops with it
  let connectionId = null;
  let connectionStream = null; // Promise: the connection's event stream is open
  const sessionStreams = new Map(); // sessionId → Promise: its event stream is open
  const routes = new Map(); // key of a request of the agent's → the session whose stream brought it
  const ending = new Set(); // sessions being closed or deleted: their streams may end
  let order = Promise.resolve(); // POSTs leave in the order they were sent
  let closed = false;
  let upgraded = null; // the WebSocket transport, when the endpoint takes only that
  const t = {
    onText: () => {}, onClose: () => {}, onError: () => {}, onWarning: () => {},
    send, close, cookies: jar,
    get connectionId() { return connectionId ?? undefined; },
  };

  async function request(method, headers, body) {
    const h = new Headers(options.headers ?? {});
    for (const [k, v] of Object.entries(headers)) h.set(k, v);
    const cookie = jar.header();
    if (cookie) h.set("cookie", h.has("cookie") ? `${h.get("cookie")}; ${cookie}` : cookie);
    const init = { method, headers: h, signal: all.signal, credentials };
    if (body !== undefined) init.body = body;
    const res = await fetchImpl(base, init);
    jar.store(res.headers);
    return res;
  }

  function deliver(text, http) {
    if (!closed) t.onText(text, http);
  }

  /** A request that HTTP could not deliver gets an error answer; anything else is reported. */
  function failed(info, status, body) {
    if (!info.request) {
      t.onError(new ProtocolError(codes.HTTP_ERROR, `${info.method ?? "an answer"} was refused: HTTP ${status}`, { status, body: body.slice(0, 512) }));
      return;
    }
    let peer;
    try { peer = JSON.parse(body)?.error; } catch { /* not JSON */ }
    const error = Number.isInteger(peer?.code) && typeof peer.message === "string"
      ? { code: peer.code, message: peer.message, data: { ...(peer.data && typeof peer.data === "object" ? peer.data : {}), status } }
      : { code: codes.HTTP_ERROR, message: `the agent answered ${info.method} with HTTP ${status}`, data: { status, ...(body ? { body: body.slice(0, 512) } : {}) } };
    deliver(JSON.stringify({ jsonrpc: "2.0", id: info.id, error }), { method: "POST", status, synthesized: true });
  }

  /** The connection is gone (a stream ended, the network failed, the agent forgot it). */
  function lost(reason) {
    if (closed) return;
    end();
    queueMicrotask(() => t.onClose({ code: 1006, reason }));
  }

  function send(text) {
    if (closed) return undefined;
    const info = upgraded ? {} : describe(text);
    // A response to the agent goes on the session of the stream that brought the request.
    if (info.response) {
      info.sessionId = routes.get(keyOf(info.id));
      routes.delete(keyOf(info.id));
    }
    if (info.sessionId && (info.method === "session/close" || info.method === "session/delete")) ending.add(info.sessionId);
    const sent = order.then(() => post(text, info));
    order = sent.then(() => {}, () => {});
    return { method: "POST", ...(info.sessionId ? { sessionId: info.sessionId } : {}) };
  }

  async function post(text, info) {
    if (closed) return;
    if (upgraded) return void upgraded.send(text);
    try {
      if (connectionId === null) return await initialize(text, info);
      await connectionStream;
      if (info.sessionId) {
        try {
          await openSession(info.sessionId);
        } catch (e) {
          if (e.status === undefined) throw e;
          return failed(info, e.status, e.body);
        }
      }
      const headers = { "content-type": "application/json", accept: "application/json", [CONNECTION_ID]: connectionId };
      if (info.sessionId) headers[SESSION_ID] = info.sessionId;
      const res = await request("POST", headers, text);
      if (closed) return res.body?.cancel().catch(() => {});
      if (res.ok) {
        // 202: the answer comes on a stream. A JSON body is an answer given at once.
        if (!/^application\/json/i.test(res.headers.get("content-type") ?? "")) return res.body?.cancel().catch(() => {});
        const body = await readText(res, null, limit);
        if (body.length > limit) failed(info, res.status, `the answer is larger than the limit of ${limit} bytes`);
        else if (body.trim()) deliver(body, { method: "POST", status: res.status });
        return;
      }
      const body = await readText(res, null, ERROR_BODY_BYTES, true);
      failed(info, res.status, body);
      // The agent no longer knows this connection: it is lost.
      if (res.status === 404 || res.status === 410) lost(`the agent no longer knows connection ${connectionId} (HTTP ${res.status})`);
    } catch (e) {
      if (!closed) lost(`the HTTP request failed: ${e?.message ?? e}`);
    }
  }

  async function initialize(text, info) {
    if (info.method !== "initialize") return failed(info, 0, "nothing but initialize can open a connection");
    const res = await request("POST", { "content-type": "application/json", accept: "application/json" }, text);
    if (closed) return res.body?.cancel().catch(() => {});
    if ((res.status === 405 || res.status === 426) && options.upgrade) {
      await res.body?.cancel().catch(() => {});
      return upgrade(text, info, res.status);
    }
    if (!res.ok) return failed(info, res.status, await readText(res, null, ERROR_BODY_BYTES, true));
    const id = res.headers.get(CONNECTION_ID);
    const body = await readText(res, null, limit);
    if (closed) return;
    if (body.length > limit) return failed(info, res.status, `the answer is larger than the limit of ${limit} bytes`);
    // Visible ASCII only: the id goes back in a header.
    if (!id || !/^[\x21-\x7e]+$/.test(id)) {
      return failed(info, res.status, JSON.stringify({ error: { code: codes.HTTP_ERROR, message: "the agent's answer to initialize carried no valid Acp-Connection-Id header" } }));
    }
    connectionId = id;
    connectionStream = openStream(undefined);
    connectionStream.catch((e) => lost(`the connection's event stream could not open: ${e.status !== undefined ? `HTTP ${e.status}` : e.message}`));
    deliver(body, { method: "POST", status: res.status, connectionId });
  }

  /** The endpoint refused the POST (405, 426): the same endpoint's WebSocket carries everything. */
  async function upgrade(text, info, status) {
    let ws;
    try {
      ws = await options.upgrade();
    } catch (e) {
      return failed(info, status, `the endpoint refused POST (HTTP ${status}) and its WebSocket upgrade failed: ${e?.message ?? e}`);
    }
    if (closed) return ws.close();
    upgraded = ws;
    ws.onText = (x) => deliver(x);
    ws.onBinary = (bytes) => t.onBinary?.(bytes);
    ws.onClose = (why) => {
      if (closed) return;
      closed = true;
      t.onClose(why);
    };
    ws.release?.();
    t.upgraded = true;
    ws.send(text);
  }

  /** The session's event stream, opened once (again after a refusal). */
  function openSession(sessionId) {
    let ready = sessionStreams.get(sessionId);
    if (!ready) {
      ready = openStream(sessionId);
      sessionStreams.set(sessionId, ready);
      ready.catch(() => { if (sessionStreams.get(sessionId) === ready) sessionStreams.delete(sessionId); });
    }
    return ready;
  }

  /** Opens an event stream; resolves once it is open (it is then read until it ends). */
  async function openStream(sessionId) {
    const headers = { accept: "text/event-stream", [CONNECTION_ID]: connectionId };
    if (sessionId) headers[SESSION_ID] = sessionId;
    const res = await request("GET", headers);
    if (!res.ok || !/^text\/event-stream/i.test(res.headers.get("content-type") ?? "")) {
      const body = await readText(res, null, ERROR_BODY_BYTES, true);
      throw Object.assign(new Error(`HTTP ${res.status}`), { status: res.ok ? 406 : res.status, body });
    }
    read(res, sessionId);
  }

  async function read(res, sessionId) {
    const decoder = new SseDecoder(limit);
    const utf8 = new TextDecoder();
    const http = { method: "GET", status: res.status, ...(sessionId ? { sessionId } : {}) };
    let why = "ended";
    try {
      const reader = res.body.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done || closed) break;
        const out = decoder.feed(utf8.decode(value, { stream: true }));
        if (out === undefined) {
          why = `carried an event larger than the limit of ${limit} bytes`;
          await reader.cancel().catch(() => {});
          break;
        }
        for (const text of messages(out)) {
          note(text, sessionId);
          deliver(text, http);
        }
      }
    } catch (e) {
      why = `broke (${e?.message ?? e})`;
    } finally {
      decoder.free();
    }
    if (closed) return;
    if (sessionId && ending.has(sessionId)) {
      sessionStreams.delete(sessionId);
      ending.delete(sessionId);
      return;
    }
    lost(sessionId ? `the event stream of session ${sessionId} ${why}` : `the connection's event stream ${why}`);
  }

  /** Where an incoming message matters to the transport: requests of a session, new sessions. */
  function note(text, sessionId) {
    if (!mayHaveId(text)) return;
    let m;
    try { m = JSON.parse(text); } catch { return; }
    if (!m || typeof m !== "object") return;
    if (typeof m.method === "string" && m.id !== undefined && sessionId) routes.set(keyOf(m.id), sessionId);
    // A new session's stream opens at once, so that nothing of it waits for the first prompt.
    const created = m.method === undefined ? m.result?.sessionId : undefined;
    if (typeof created === "string" && !sessionStreams.has(created)) openSession(created).catch(() => {});
  }

  function end() {
    closed = true;
    all.abort();
    if (connectionId !== null) {
      // Ends the connection on the agent; nobody waits for the answer.
      const headers = new Headers(options.headers ?? {});
      headers.set(CONNECTION_ID, connectionId);
      const cookie = jar.header();
      if (cookie) headers.set("cookie", cookie);
      fetchImpl(base, { method: "DELETE", headers, credentials })
        .then((r) => r.body?.cancel(), () => {}).catch(() => {});
    }
  }

  function close() {
    if (closed) return;
    if (upgraded) {
      closed = true;
      upgraded.close();
      return queueMicrotask(() => t.onClose({ code: 1000, reason: "closed" }));
    }
    end();
    queueMicrotask(() => t.onClose({ code: 1000, reason: "closed" }));
  }

  return t;
}
