// Drives a sans-IO session (AcpClient, McpClient, …) over a transport: sends what it
// returns, feeds it what arrives, turns responses into settled Promises, runs the app's
// request handlers, fires timers for the deadlines the session reports, and on close
// rejects everything still pending. No protocol logic lives here.

import { ProtocolError, codes } from "./errors.js";
import { openTransport } from "./transport.js";

const RELAY_PREFIX = '{"relay":';
/** How many of the relay's events are kept for a listener yet to come. */
const EARLY_RELAY_EVENTS = 64;
/** A map key for a request id: ids beyond 2^53 cross as BigInt, which JSON cannot write. */
export const idKey = (id) => (typeof id === "bigint" ? `${id}` : JSON.stringify(id));
const key = idKey;

const utf8 = new TextDecoder();

/** The `frame` event of an incoming frame; from bytes, its `text` is decoded when first read. */
function incoming(frame, http) {
  const ev = { direction: "in", time: Date.now() };
  if (typeof frame === "string") ev.text = frame;
  else {
    let text;
    ev.bytes = frame;
    Object.defineProperty(ev, "text", { get: () => (text ??= utf8.decode(frame)), enumerable: true });
  }
  if (http) ev.http = http;
  return ev;
}

export class Connection {
  #session;
  #transport;
  #pending = new Map();
  #handlers = new Map();
  /** Incoming requests being served: id key → { controller, method, params, answered }. */
  #serving = new Map();
  #listeners = { frame: [], relay: [], violation: [], close: [], notification: [], event: [] };
  /** Relay events from before the first `onRelay` (null once one subscribed). */
  #earlyRelay = [];
  #timer = null;
  #closed = null;
  /** Called when the transport drops, instead of closing (reconnect.js); null: a drop closes. */
  #survive = null;
  /** Why the transport is gone while a new one is sought: calls are refused meanwhile. */
  #suspended = null;
  #recovering = false;

  constructor(session, transport) {
    this.#session = session;
    this.#wire(transport);
  }

  #wire(transport) {
    this.#transport = transport;
    const current = () => this.#transport === transport;
    transport.onText = (text, http) => current() && this.#receive(text, http);
    transport.onError = (error) => this.#emit("violation", { direction: "out", text: "", issues: [
      { path: "", code: "transport_error", message: error.message, severity: "error", ...(error.data ? { data: error.data } : {}) }] });
    transport.onWarning = (message) => this.#emit("violation", { direction: "in", text: "", issues: [
      { path: "", code: "transport_warning", message, severity: "warning" }] });
    // A binary frame carries UTF-8 bytes (the relay's `frames=binary`); what cannot be read
    // as bytes (a Blob from a transport of the app's own) is reported.
    transport.onBinary = (bytes) => (bytes ? this.#receive(bytes) : this.#emit("violation", { direction: "in", text: "", issues: [
      { path: "", code: "binary_frame", message: "a binary frame that is not bytes (a Blob?) cannot be read in order; ignored", severity: "error" }] }));
    transport.onClose = ({ code, reason }) => {
      if (!current()) return;
      const error = new ProtocolError(codes.CONNECTION_CLOSED, `connection closed (${code}${reason ? `: ${reason}` : ""})`, { code, reason });
      if (this.#survive && !this.#closed) this.#lost(error);
      else this.#shutdown(error, { code, reason });
    };
    transport.release?.();
  }

  /**
   * From now on a dropped transport does not close the connection: `onDrop(error)` runs
   * (once per outage) and is to `reattach` a new session and transport, then `recovered()`,
   * or `fail(error)`. Meanwhile calls are refused and nothing pending waits.
   */
  survive(onDrop) { this.#survive = onDrop; }

  /** Whether the transport is gone and a new one is being sought. */
  get suspended() { return this.#suspended !== null; }

  /** Goes on with a new sans-IO session over a new transport, after a drop. */
  reattach(session, transport) {
    if (this.#closed) {
      try { transport.close(); } catch { /* gone */ }
      return;
    }
    this.#session = session;
    this.#suspended = null;
    this.#wire(transport);
    this.#schedule();
  }

  /** The new transport and session are up: a later drop is a new outage. */
  recovered() { this.#recovering = false; }

  /** No new transport could be had: the connection closes with `error`. */
  fail(error) {
    this.#recovering = false;
    this.#suspended = null;
    this.#shutdown(error, { code: 1006, reason: error.message });
  }

  /** The transport dropped (or, while recovering, the new session closed itself). */
  #lost(error) {
    this.#suspend(error);
    if (this.#recovering) return;
    this.#recovering = true;
    this.#survive(error);
  }

  /** Everything that waited on the lost transport is told so; calls are refused until reattached. */
  #suspend(error) {
    if (this.#suspended) return;
    this.#suspended = error;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    for (const entry of this.#serving.values()) entry.controller.abort(error);
    this.#serving.clear();
    for (const [k, entry] of this.#pending) {
      this.#pending.delete(k);
      entry.cleanup?.();
      entry.reject(new ProtocolError(codes.CONNECTION_CLOSED, `${error.message}; ${entry.method} was not answered`,
        { method: entry.method, reconnecting: true, ...(typeof error.data === "object" ? error.data : {}) }));
    }
    try { this.#transport.close(); } catch { /* already closed */ }
    this.#emit("event", { type: "disconnected", error: ProtocolError.toWire(error) });
  }

  static async open(session, target, options) {
    return new Connection(session, await openTransport(target, options));
  }

  /** The sans-IO session behind this connection: negotiated state, methods, transcripts. */
  get session() { return this.#session; }
  get closed() { return this.#closed !== null; }
  /**
   * Whether agentwire's relay sends this connection its own frames (the WebSocket picked the
   * `agentwire.relay` subprotocol): true or false for a WebSocket, undefined for other transports.
   */
  get relayFrames() { return this.#transport.relayFrames; }
  /** The server forgot the session (HTTP 404): only a new initialize can go on. */
  get expired() { return this.#transport.expired === true; }

  /** Goes on with a new sans-IO session over the same transport, after the old one expired. */
  renew(session) {
    for (const [k, entry] of this.#pending) {
      this.#pending.delete(k);
      entry.cleanup?.();
      entry.reject(new ProtocolError(codes.HTTP_ERROR, `the MCP session expired; ${entry.method} was not answered`, { method: entry.method, sessionExpired: true }));
    }
    this.#session = session;
    this.#transport.expired = false;
    this.#schedule();
  }

  onFrame(fn) { return this.#on("frame", fn); }
  /**
   * The relay's own events. Those that came before anything listened (the agent's `spawned`,
   * sent as the socket opens, before `connect()` has resolved) are kept, the first
   * EARLY_RELAY_EVENTS of them, and handed to the first listener as it subscribes.
   */
  onRelay(fn) {
    const early = this.#earlyRelay;
    this.#earlyRelay = null;
    const off = this.#on("relay", fn);
    if (early?.length) queueMicrotask(() => early.forEach((e) => this.#listeners.relay.includes(fn) && fn(e)));
    return off;
  }
  onViolation(fn) { return this.#on("violation", fn); }
  onClose(fn) { return this.#on("close", fn); }
  onNotification(fn) { return this.#on("notification", fn); }
  /** Every event of the session, as it comes (for tools that show everything). */
  onEvent(fn) { return this.#on("event", fn); }

  /** Sends text the session never sees (a command to the relay); false once closed. */
  sendRaw(text) {
    if (this.#closed) return false;
    this.#transport.send(text);
    return true;
  }

  /**
   * Registers the app's handler for an incoming request; its return value (or thrown error) is
   * the answer. The handler gets `(params, { id, method, signal })`: `signal` aborts when the
   * peer withdraws the request, or when what asked for it is cancelled.
   */
  onRequest(method, handler) {
    this.#handlers.set(method, handler);
    return () => this.#handlers.delete(method);
  }

  /** Whether a handler is registered for a method. */
  handles(method) { return this.#handlers.has(method); }

  /** The methods with a registered handler. */
  handledMethods() { return [...this.#handlers.keys()]; }

  /**
   * Aborts the signal of every request being served that `match({ id, method, params })`
   * selects, with `reason`. The handler's answer still goes out (unless already answered).
   */
  abortServing(match, reason) {
    for (const entry of [...this.#serving.values()]) {
      if (!entry.controller.signal.aborted && match(entry)) entry.controller.abort(reason);
    }
  }

  /** Requests answered outside their handler (e.g. by a session call): their handler's answer is dropped. */
  answered(ids) {
    for (const id of ids) {
      const entry = this.#serving.get(key(id));
      if (entry) {
        entry.answered = true;
        this.#serving.delete(key(id));
      }
    }
  }

  /**
   * The peer withdrew a request we serve (`$/cancel_request`): its handler's signal aborts, and
   * unless the handler answers at once (a result, or an error as it stops), the request is
   * answered -32800 (Request cancelled), as the protocol asks of the receiver.
   */
  #withdrawn(id) {
    const entry = this.#serving.get(key(id));
    if (!entry) return;
    const error = new ProtocolError(codes.REQUEST_CANCELLED, `${entry.method} was cancelled by the peer`, { method: entry.method });
    entry.controller.abort(error);
    // A handler that settles as its signal aborts answers first (its Promise settles in
    // microtasks, before this timer).
    setTimeout(() => this.#answer(entry, { error: ProtocolError.toWire(error) }), 0);
  }

  /**
   * The peer cancelled a request we serve (MCP's `notifications/cancelled`): its handler's
   * signal aborts, and nothing is answered, as MCP asks of the receiver.
   */
  #dropped(id, reason) {
    const entry = this.#serving.get(key(id));
    if (!entry) return;
    entry.answered = true;
    this.#serving.delete(key(id));
    entry.controller.abort(new ProtocolError(codes.REQUEST_CANCELLED, `${entry.method} was cancelled by the peer${reason ? `: ${reason}` : ""}`, { method: entry.method, reason }));
  }

  /**
   * Runs the app's handler for a request that came inside a result (MCP's input requests,
   * 2026-07-28): resolves with its answer; no handler is -32601.
   */
  async fulfil(method, params, signal) {
    const handler = this.#handlers.get(method);
    if (!handler) throw new ProtocolError(codes.METHOD_NOT_FOUND, `the server asked for ${method} input, and no onRequest handler answers it`, { method });
    return (await handler(params, { method, signal, embedded: true })) ?? null;
  }

  /**
   * Sends what `make()` builds (a session call returning `{ id, method, text }`) and, for a
   * request, resolves with its result. `make` runs inside so local refusals reject the Promise.
   */
  call(make, { signal, onProgress, timeoutMs, onSent } = {}) {
    if (this.#closed) return Promise.reject(this.#closed);
    if (this.#suspended) {
      return Promise.reject(new ProtocolError(codes.CONNECTION_CLOSED, `${this.#suspended.message}; reconnecting (the reconnected event says when calls can go on)`,
        { reconnecting: true }));
    }
    let out;
    try {
      if (signal?.aborted) throw abortError(signal);
      out = make();
    } catch (e) {
      return Promise.reject(e);
    }
    if (Array.isArray(out) || out.id === undefined || out.id === null) {
      for (const frame of [out].flat()) this.#send(frame.text);
      return Promise.resolve(undefined);
    }
    return new Promise((resolve, reject) => {
      const entry = { resolve, reject, method: out.method, onProgress };
      this.#pending.set(key(out.id), entry);
      const cleanups = [];
      if (signal) {
        const abort = () => this.#abort(out.id, abortError(signal));
        signal.addEventListener("abort", abort, { once: true });
        cleanups.push(() => signal.removeEventListener("abort", abort));
      }
      // A per-call deadline for sessions whose core has none per request (ACP).
      if (timeoutMs !== undefined) {
        const timer = setTimeout(() => this.#abort(out.id, new ProtocolError(codes.TIMEOUT,
          `Request ${out.method} timed out after ${timeoutMs} ms`, { method: out.method, timeoutMs })), timeoutMs);
        cleanups.push(() => clearTimeout(timer));
      }
      entry.cleanup = () => cleanups.forEach((f) => f());
      onSent?.(out);
      entry.http = this.#send(out.text);
      this.#schedule();
    });
  }

  /** Feeds events produced outside `receive` (e.g. by a session call that answers itself). */
  dispatch(events) {
    for (const ev of events ?? []) this.#handle(ev);
    this.#schedule();
  }

  /** The agent's cookies kept by an HTTP transport (a reconnection sends them again). */
  get cookies() { return this.#transport.cookies; }

  close() {
    this.#suspended = null;
    this.#shutdown(new ProtocolError(codes.CONNECTION_CLOSED, "connection closed by the application"), { code: 1000, reason: "closed" });
    try { this.#transport.close(); } catch { /* already closed */ }
  }

  #on(type, fn) {
    this.#listeners[type].push(fn);
    return () => { this.#listeners[type] = this.#listeners[type].filter((f) => f !== fn); };
  }

  #emit(type, value) {
    for (const fn of this.#listeners[type]) {
      try { fn(value); } catch (e) { queueMicrotask(() => { throw e; }); }
    }
  }

  /** Sends one frame; returns what an HTTP transport says carries it. */
  #send(text) {
    if (this.#closed || this.#suspended) return undefined;
    const frame = { direction: "out", text, time: Date.now() };
    try {
      const http = this.#transport.send(text);
      if (http) frame.http = http;
    } finally {
      this.#emit("frame", frame);
    }
    return frame.http;
  }

  /** A request given up (timeout, abort): an HTTP transport stops what carried it. */
  #abandon(id) {
    const stream = this.#pending.get(key(id))?.http?.stream;
    if (stream !== undefined) this.#transport.abandon?.(stream, id);
  }

  /** A frame as text, or as bytes (never a relay event: the relay's events are text frames). */
  #receive(frame, http) {
    const text = typeof frame === "string" ? frame : null;
    if (text?.startsWith(RELAY_PREFIX)) {
      let event;
      try { event = JSON.parse(text).relay; } catch { event = { event: "error", message: text }; }
      if (this.#earlyRelay && this.#earlyRelay.length < EARLY_RELAY_EVENTS) this.#earlyRelay.push(event);
      this.#emit("relay", event);
      return;
    }
    this.#emit("frame", incoming(frame, http));
    if (this.#closed) return;
    this.dispatch(this.#session.receive(frame));
  }

  #handle(ev) {
    this.#emit("event", ev);
    switch (ev.type) {
      case "send":
        this.#send(ev.text);
        break;
      case "response":
        this.#settle(ev.id, (p) => p.resolve(ev.result));
        break;
      case "timeout":
        this.#abandon(ev.id);
      // falls through: a timeout settles like an error
      case "error":
        this.#settle(ev.id, (p) => p.reject(ProtocolError.from(ev.error ?? {
          code: codes.TIMEOUT, message: `Request ${ev.method} timed out`, data: { method: ev.method } })));
        break;
      case "progress":
        if (ev.id !== undefined) this.#pending.get(key(ev.id))?.onProgress?.(ev);
        this.#emit("notification", { method: "notifications/progress", params: ev.params ?? ev });
        break;
      case "request":
        this.#serve(ev);
        break;
      case "cancelRequested":
        this.#withdrawn(ev.id);
        break;
      case "cancelled":
        this.#dropped(ev.requestId, ev.reason);
        break;
      case "notification":
        this.#emit("notification", { method: ev.method, params: ev.params });
        break;
      case "violation":
        this.#emit("violation", ev);
        break;
      case "closed":
        // A session that closes itself while a drop is being recovered from (its initialize
        // failed) fails that attempt only.
        if (this.#recovering && this.#survive) {
          this.#suspend(ProtocolError.from(ev.error ?? { code: codes.CONNECTION_CLOSED, message: "session closed" }));
          break;
        }
        this.#shutdown(ProtocolError.from(ev.error ?? { code: codes.CONNECTION_CLOSED, message: "session closed" }), {
          code: 1000, reason: ev.error?.message ?? "session closed" });
        try { this.#transport.close(); } catch { /* already closed */ }
        break;
      default:
        break;
    }
  }

  async #serve({ id, method, params }) {
    const handler = this.#handlers.get(method);
    const controller = new AbortController();
    const entry = { id, method, params, controller, answered: false };
    this.#serving.set(key(id), entry);
    let outcome;
    try {
      if (!handler) throw new ProtocolError(codes.METHOD_NOT_FOUND, `Method not found: ${method}`, { method });
      outcome = { result: (await handler(params, { id, method, signal: controller.signal })) ?? null };
    } catch (e) {
      // A handler that gives up because its signal aborted answers -32800 (or the reason's code).
      const signal = controller.signal;
      const stopped = signal.aborted && (e === signal.reason || e?.name === "AbortError");
      outcome = { error: ProtocolError.toWire(stopped ? abortError(signal) : e) };
    }
    this.#answer(entry, outcome);
  }

  /** Sends a handler's answer, once: a request answered before (withdrawn, cancelled) keeps that answer. */
  #answer(entry, outcome) {
    if (entry.answered) return;
    entry.answered = true;
    if (this.#serving.get(key(entry.id)) === entry) this.#serving.delete(key(entry.id));
    if (this.#closed) return;
    const { id, method } = entry;
    try {
      const text = "result" in outcome
        ? this.#session.respond(id, outcome.result)
        : this.#session.respondError(id, outcome.error);
      this.#send(text);
    } catch (e) {
      // The answer itself was refused (an invalid result): the app gets the validator's
      // issues; the peer gets -32603 naming where and what (paths and codes, never values).
      const issues = Array.isArray(e?.data?.issues) && e.data.issues.length > 0 ? e.data.issues
        : [{ path: "", code: "invalid_outgoing", message: e.message, severity: "error" }];
      this.#emit("violation", { direction: "out", id, method, text: "", issues });
      const where = issues.filter((i) => i.severity !== "warning").map((i) => `${i.path || "/"} ${i.code}`).join(", ");
      const message = `the answer to ${method} was invalid and not sent: ${where}`;
      try { this.#send(this.#session.respondError(id, { code: codes.INTERNAL_ERROR, message })); } catch { /* gone */ }
    }
  }

  #settle(id, fn) {
    const entry = this.#pending.get(key(id));
    if (!entry) return;
    this.#pending.delete(key(id));
    entry.cleanup?.();
    fn(entry);
  }

  #abort(id, error) {
    if (!this.#pending.has(key(id))) return;
    this.#abandon(id);
    this.dispatch(this.#session.cancelRequest?.(id) ?? []);
    this.#settle(id, (p) => p.reject(error));
  }

  #schedule() {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const deadline = this.#closed ? undefined : this.#session.nextDeadline();
    if (deadline === undefined || deadline === null) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.dispatch(this.#session.tick());
    }, Math.max(0, deadline - Date.now()));
  }

  #shutdown(error, info) {
    if (this.#closed) return;
    this.#closed = error;
    if (this.#timer !== null) clearTimeout(this.#timer);
    try { this.dispatch(this.#session.close()); } catch { /* nothing left to report */ }
    for (const entry of this.#serving.values()) entry.controller.abort(error);
    this.#serving.clear();
    for (const [k, entry] of this.#pending) {
      this.#pending.delete(k);
      entry.cleanup?.();
      entry.reject(new ProtocolError(codes.CONNECTION_CLOSED, `${error.message}; ${entry.method} was not answered`,
        { method: entry.method, ...(typeof error.data === "object" ? error.data : {}) }));
    }
    this.#emit("close", { ...info, error });
  }
}

function abortError(signal) {
  if (signal.reason instanceof ProtocolError) return signal.reason;
  const why = signal.reason instanceof Error ? signal.reason.message : "the request was aborted";
  return new ProtocolError(codes.REQUEST_CANCELLED, why, { aborted: true });
}
