// MCP's Streamable HTTP transport (and the 2024-11-05 HTTP+SSE one it falls back to) over
// `fetch`, in browsers and Node alike. The core's `McpHttp` decides every header, what a
// response means, when to resume a stream and when a request has failed; this file only
// makes the requests and reads the bodies. Same shape as the WebSocket transport:
// { send(text), close(), onText(text, http), onClose, onError }.

import { ProtocolError, codes } from "./errors.js";

/** How much of an error body is read (it only goes into the error's `data`). */
const ERROR_BODY_BYTES = 2048;

/**
 * Options: `headers` (sent with every request: Authorization and the like), `fetch` (an
 * implementation; the global by default), `maxBytes` (one body or event), `legacy` (false
 * to never fall back to 2024-11-05), `authorize` (called on a 401, or a 403 asking for more
 * scope, with `{ url, status, headers }`; return `{ headers }` to retry once with them: where
 * an OAuth provider plugs in, see auth.js).
 */
export function openHttpTransport(url, McpHttp, options = {}) {
  const base = new URL(String(url));
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== "function") {
    throw new ProtocolError(codes.INVALID_PARAMS, "no fetch here: pass options.fetch");
  }
  let extra = { ...(options.headers ?? {}) };
  const state = steps(new McpHttp(options.maxBytes));
  // One controller per stream: a request given up (timeout, abort) stops its own fetch.
  const controllers = new Map();
  const controller = (stream) => {
    if (!controllers.has(stream)) controllers.set(stream, new AbortController());
    return controllers.get(stream);
  };
  let endpoint = null; // the 2024-11-05 endpoint, once its stream named it
  let closed = false;
  let order = Promise.resolve(); // POSTs leave in the order they were sent
  const t = { onText: () => {}, onClose: () => {}, onError: () => {}, onWarning: () => {}, send, close, abandon, state };

  /** The app gave up on request `id` sent on `stream`: its fetch stops when nothing else rides on it. */
  function abandon(stream, id) {
    if (!closed && state.abandon(stream, id)) {
      controllers.get(stream)?.abort();
      controllers.delete(stream);
    }
  }

  function deliver(text, http) {
    if (closed) return;
    t.onText(text, http);
    // What the core left out of what it delivered (a tool with invalid x-mcp-header marks).
    for (const warning of state.takeWarnings()) t.onWarning(warning);
  }
  function deliverAll(texts, http) {
    for (const text of texts) deliver(text, { ...http, synthesized: true });
  }

  async function request(plan, body, retried = false) {
    const target = plan.url ? endpoint : base;
    const init = { method: plan.method, headers: { ...extra, ...plan.headers }, signal: controller(plan.stream).signal };
    if (body !== undefined) init.body = body;
    const res = await fetchImpl(target, init);
    // A 401, or a 403 asking for more scope (step-up): once per request, the auth hook runs.
    const stepUp = res.status === 403 && /insufficient_scope/.test(res.headers.get("www-authenticate") ?? "");
    if ((res.status === 401 || stepUp) && !retried && typeof options.authorize === "function") {
      const auth = await options.authorize({ url: String(target), status: res.status, headers: res.headers });
      if (auth?.headers) {
        await res.body?.cancel().catch(() => {});
        extra = { ...extra, ...auth.headers };
        const again = await request(plan, body, true);
        auth.retried?.(again.status);
        return again;
      }
    }
    return res;
  }

  /** Posts one message; returns the HTTP facts known now (the stream that will carry its answer). */
  function send(text) {
    if (closed || state.skips(text)) return undefined;
    const plan = state.post(text);
    const sent = order.then(() => run(plan, text));
    order = sent.then(() => {}, () => {});
    return { method: "POST", stream: plan.stream, sessionId: state.sessionId() ?? undefined };
  }

  /** Runs one planned request; resolves once its response headers are in (streams go on). */
  async function run(plan, body) {
    let res;
    try {
      res = await request(plan, body);
    } catch (e) {
      if (closed) return;
      // An authorization that failed keeps its code and words; any other failure is the network's.
      const [status, body] = e?.code === codes.AUTH_FAILED ? [401, JSON.stringify({ error: { code: e.code, message: e.message, data: e.data } })] : [0, e?.message ?? String(e)];
      return deliverAll(state.failed(plan.stream, status, body), { stream: plan.stream });
    }
    if (closed) return;
    const sessionId = res.headers.get("mcp-session-id") ?? undefined;
    const reply = state.response(plan.stream, res.status, res.headers.get("content-type") ?? undefined, sessionId);
    const http = { method: plan.method, status: res.status, stream: plan.stream, sessionId: state.sessionId() ?? undefined };
    switch (reply) {
      case "json": {
        const text = await readText(res, state, options.maxBytes);
        if (closed) return;
        for (const m of state.body(plan.stream, text)) deliver(m, http);
        break;
      }
      case "events":
        readEvents(res, plan.stream, http).finally(() => controllers.delete(plan.stream));
        break; // the stream runs on; the next POST need not wait for it
      case "legacy":
        await res.body?.cancel().catch(() => {});
        if (options.legacy === false) return deliverAll(state.failed(plan.stream, res.status, ""), http);
        run(state.legacyOpen(plan.stream));
        break;
      case "failed": {
        const text = await readText(res, state, ERROR_BODY_BYTES, true);
        if (closed) return;
        const had = state.sessionId();
        const answers = state.failed(plan.stream, res.status, text);
        if (had !== undefined && state.sessionId() === undefined) t.expired = true;
        if (answers.length > 0) deliverAll(answers, http);
        else if (plan.method !== "GET") t.onError(new ProtocolError(codes.HTTP_ERROR, `${plan.method} answered HTTP ${res.status}`, { status: res.status, body: text.slice(0, 512) }));
        break;
      }
      default:
        await res.body?.cancel().catch(() => {});
    }
    if (reply !== "events") controllers.delete(plan.stream);
    if (plan.thenListen && !closed) run(state.listen());
  }

  async function readEvents(res, stream, http) {
    const decoder = new TextDecoder();
    let broken = false;
    try {
      const reader = res.body.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done || closed) break;
        const out = state.chunk(stream, decoder.decode(value, { stream: true }));
        if (out.failed) {
          await reader.cancel().catch(() => {});
          return deliverAll(out.failed, http);
        }
        for (const item of out.items) {
          if (item.endpoint !== undefined) openEndpoint(item.endpoint, http);
          else deliver(item.text, { ...http, eventId: item.eventId ?? undefined });
        }
      }
    } catch {
      broken = true;
    }
    if (closed) return;
    const end = state.end(stream, broken);
    if (end.failed) deliverAll(end.failed, http);
    else if (end.resumeAfterMs !== undefined) {
      setTimeout(() => {
        const plan = closed ? null : state.resume(stream);
        if (plan) run(plan);
      }, end.resumeAfterMs);
    } else if (broken && endpoint !== null) {
      t.onError(new ProtocolError(codes.CONNECTION_CLOSED, "the 2024-11-05 event stream ended", http));
    }
  }

  function openEndpoint(where, http) {
    let url;
    try {
      url = new URL(where, base);
    } catch {
      url = null;
    }
    // The endpoint must stay on the server that was asked: a stream cannot send the
    // client's messages (and headers) elsewhere.
    if (!url || url.origin !== base.origin) {
      t.onError(new ProtocolError(codes.HTTP_ERROR, `the server named an endpoint on another origin: ${where}`, http));
      return close();
    }
    endpoint = url;
    for (const text of state.takeReplay()) send(text);
  }

  function close() {
    if (closed) return;
    closed = true;
    const plan = state.endSession();
    for (const c of controllers.values()) c.abort();
    controllers.clear();
    if (plan) {
      // Ends the session on the server; nobody waits for the answer.
      fetchImpl(base, { method: "DELETE", headers: { ...extra, ...plan.headers } })
        .then((r) => r.body?.cancel(), () => {}).catch(() => {});
    }
    queueMicrotask(() => t.onClose({ code: 1000, reason: "closed" }));
  }

  return t;
}

/**
 * The core's state (`McpHttp`) by the names of its steps. It has one entry point for them all
 * (`step`, src/wasm/http.rs: an export of its own each would cost the module and its glue a
 * shim apiece), taking a step's number, a stream, a status and two texts, and answering JSON.
 */
export function steps(core) {
  const step = (op, stream, status, a, b) => JSON.parse(core.step(op, stream, status, a, b));
  return {
    sessionId: () => step(0) ?? undefined,
    skips: (text) => step(1, 0, 0, text),
    post: (text) => step(2, 0, 0, text),
    listen: () => step(3),
    resume: (stream) => step(4, stream),
    legacyOpen: (stream) => step(5, stream),
    endSession: () => step(6),
    response: (stream, status, contentType, sessionId) => step(7, stream, status, contentType, sessionId),
    // A message that is the body as given comes back as 0: the text is not sent back and forth.
    body: (stream, text) => step(8, stream, 0, text).map((m) => (m === 0 ? text : m)),
    chunk: (stream, text) => {
      // The messages' texts follow the JSON, each after a CR (src/wasm/http.rs: not escaped
      // into the JSON and parsed out again).
      const [json, ...texts] = core.step(9, stream, 0, text).split("\r");
      const out = JSON.parse(json);
      let next = 0;
      for (const item of out.items ?? []) if (item.endpoint === undefined) item.text = texts[next++];
      return out;
    },
    takeReplay: () => step(10),
    end: (stream, broken) => step(11, stream, broken ? 1 : 0),
    // An id past 2^53 is a BigInt, which JSON.stringify refuses; its digits are its JSON.
    abandon: (stream, id) => step(12, stream, 0, typeof id === "bigint" ? `${id}` : JSON.stringify(id)),
    takeWarnings: () => step(13),
    failed: (stream, status, body) => step(14, stream, status, body),
  };
}

/** A body as text, at most `limit` bytes (+1, so that the core sees it was too large). */
export async function readText(res, state, limit = 16 << 20, lenient = false) {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      text += decoder.decode(value, { stream: true });
      if (bytes > limit) {
        await reader.cancel().catch(() => {});
        break;
      }
    }
  } catch (e) {
    if (!lenient) return `${text}\u0000broken: ${e?.message ?? e}`;
  }
  return text + decoder.decode();
}
