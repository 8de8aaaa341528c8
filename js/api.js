// The public classes. The wasm module provides the sans-IO sessions (AcpClient, AcpAgent,
// McpClient, McpServer) and the Validator; this file adds `connect()` to each, which runs
// the session over a transport with Promises (see connection.js). Method names of the
// protocols map onto the session's generic `request(method, params)`, which applies the
// same gating and validation as everything else in the core.

import { Connection, idKey } from "./connection.js";
import { openTransport } from "./transport.js";
import { ProtocolError, codes } from "./errors.js";
import { inputWriter } from "./input.js";

// wasm-bindgen copies a string argument into wasm memory without checking its type: a number
// or an object there traps inside the module ("memory access out of bounds"). These are the
// methods that take text (first `n` arguments); a wrong type is refused with a ProtocolError.
const TEXT_ARGUMENTS = { receive: 1, request: 1, notify: 1, transcript: 1, cancel: 1, sendUpdate: 1, isCancelled: 1, endTurn: 2 };

/** An error thrown inside the module as a real ProtocolError, its stack starting at the caller. */
function rethrown(e, from) {
  if (!(e instanceof ProtocolError) || e.constructor === ProtocolError) return e;
  // Every own field comes along (`code`, `data`, and `id` where a parse failure read one).
  const error = Object.assign(new ProtocolError(e.code, e.message, e.data), e);
  Error.captureStackTrace?.(error, from);
  return error;
}

/** `fn` (a method or function of the module) checked for text arguments, its errors rethrown. */
function guarded(fn, name, n = 0) {
  return function call(...args) {
    for (let i = 0; i < n; i++) {
      if (typeof args[i] !== "string") {
        throw rethrown(new ProtocolError(codes.INVALID_PARAMS, `${name}: argument ${i + 1} must be a string, not ${args[i] === null ? "null" : typeof args[i]}`), call);
      }
    }
    try {
      return fn.apply(this, args);
    } catch (e) {
      throw rethrown(e, call);
    }
  };
}

/** A class of the module whose constructor and methods throw real ProtocolErrors. */
function guardedClass(Class) {
  if (!Class) return Class;
  for (const name of Object.getOwnPropertyNames(Class.prototype)) {
    const d = Object.getOwnPropertyDescriptor(Class.prototype, name);
    // validateInput is the validator's hot path; it throws only on a broken contract.
    if (name !== "constructor" && name !== "validateInput" && typeof d.value === "function") {
      Class.prototype[name] = guarded(d.value, name, TEXT_ARGUMENTS[name]);
    }
  }
  for (const name of Object.getOwnPropertyNames(Class)) {
    const d = Object.getOwnPropertyDescriptor(Class, name);
    if (typeof d.value === "function" && d.writable) Class[name] = guarded(d.value, name);
  }
  return new Proxy(Class, {
    construct(target, args, newTarget) {
      try {
        return Reflect.construct(target, args, newTarget);
      } catch (e) {
        throw rethrown(e, newTarget);
      }
    },
  });
}

/** UTF-8 bytes as a Uint8Array (from an ArrayBuffer or any view), or undefined for anything else. */
function asBytes(x) {
  if (x instanceof Uint8Array) return x;
  if (x instanceof ArrayBuffer) return new Uint8Array(x);
  if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  return undefined;
}

const utf8 = new TextDecoder();

/**
 * The events of a frame. A frame that was one session update, read as it came, is told by a
 * number (1 live, 2 replayed): its event is made here from the frame JS already holds, parsed
 * once, so the module never hands the same bytes back (docs/architecture.md, "One parse for a
 * session update and a result").
 */
function fromFrame(events, frame) {
  if (typeof events !== "number") return events;
  const { params } = JSON.parse(typeof frame === "string" ? frame : utf8.decode(frame));
  return [{ type: "sessionUpdate", sessionId: params.sessionId, update: params.update, replay: events === 2 }];
}

/** A session's `receive` takes a frame as text or as UTF-8 bytes (a binary frame, a body). */
function receivingBytes(Class) {
  if (!Class) return;
  const { receive: text, receiveBytes: bytes } = Class.prototype;
  Class.prototype.receive = function receive(frame) {
    const b = asBytes(frame);
    if (b !== undefined) return fromFrame(bytes.call(this, b), b);
    if (typeof frame !== "string") {
      throw rethrown(new ProtocolError(codes.INVALID_PARAMS, `receive: a frame is a string or UTF-8 bytes (a Uint8Array), not ${frame === null ? "null" : typeof frame}`), receive);
    }
    return fromFrame(text.call(this, frame), frame);
  };
  // The module's own entry for bytes, should anything call it: the same events.
  Class.prototype.receiveBytes = function receiveBytes(frame) {
    return fromFrame(bytes.call(this, frame), frame);
  };
}

/**
 * An `AcpClient` keeps each session's transcript (js/transcript.js) from what it sends and the
 * events its calls return; `transcript(sessionId)` and `sessionIds()` read them.
 */
function keepingTranscripts(Class, Transcripts) {
  if (!Class || !Transcripts) return;
  const models = new WeakMap();
  const model = (session) => {
    let m = models.get(session);
    if (!m) models.set(session, (m = new Transcripts(idKey)));
    return m;
  };
  const proto = Class.prototype;
  for (const name of ["receive", "tick", "close"]) {
    const call = proto[name];
    proto[name] = function (...args) {
      const events = call.apply(this, args);
      model(this).received(events);
      return events;
    };
  }
  const request = proto.request;
  proto.request = function (method, params, options) {
    const out = request.call(this, method, params, options);
    model(this).sent(method, params, out);
    return out;
  };
  proto.transcript = guarded(function (sessionId) {
    return model(this).get(sessionId);
  }, "transcript", 1);
  proto.sessionIds = function sessionIds() {
    return model(this).ids();
  };
}

/** A web entry's `init()` (loads the .wasm: a URL, Response, bytes or WebAssembly.Module) and `initSync()`. */
export function webLoaders(initWasm, wasm) {
  return {
    async init(moduleOrPath) {
      await initWasm(moduleOrPath === undefined ? undefined : { module_or_path: moduleOrPath });
    },
    initSync(module) {
      wasm.initSync({ module });
    },
  };
}

/** How many times a request answered `input_required` is sent again before it fails. */
const MAX_INPUT_ROUNDS = 8;

/** The answer to initialize, with `fallback` (not enumerable: it is no part of the wire answer) when the era fell back. */
function withFallback(answer, fallback) {
  if (fallback && answer && typeof answer === "object") Object.defineProperty(answer, "fallback", { value: fallback, enumerable: false });
  return answer;
}

/** The public classes over a module's exports; `Transcripts` (transcript.js) for an entry with ACP's client. */
export function createApi(wasm, { Transcripts } = {}) {
  wasm = { ...wasm };
  for (const name of ["AcpClient", "AcpAgent", "McpClient", "McpServer", "Validator", "AppsValidator"]) wasm[name] = guardedClass(wasm[name]);
  for (const name of ["AcpClient", "AcpAgent", "McpClient", "McpServer"]) receivingBytes(wasm[name]);
  keepingTranscripts(wasm.AcpClient, Transcripts);
  class Connected {
    constructor(connection) {
      this.connection = connection;
    }
    /** The sans-IO session: negotiated version, capabilities, methods. */
    get session() { return this.connection.session; }
    get state() { return this.session.state(); }
    methods() { return this.session.methods(); }
    onFrame(fn) { return this.connection.onFrame(fn); }
    onRelay(fn) { return this.connection.onRelay(fn); }
    onViolation(fn) { return this.connection.onViolation(fn); }
    onClose(fn) { return this.connection.onClose(fn); }
    onEvent(fn) { return this.connection.onEvent(fn); }
    onNotification(fn) { return this.connection.onNotification(({ method, params }) => fn(method, params)); }
    onRequest(method, handler) { return this.connection.onRequest(method, handler); }
    /** Any method, gated and validated like the named ones. */
    request(method, params, { timeoutMs, signal, onProgress, ...rest } = {}) {
      // Asking for progress (MCP) adds a progressToken; progress then also pushes the deadline.
      const options = { timeoutMs, ...(onProgress ? { resetOnProgress: true } : {}), ...rest };
      const local = this.localTimeouts ? { timeoutMs } : {};
      return this.connection.call(() => this.session.request(method, params ?? null, options), { signal, onProgress, ...local });
    }
    notify(method, params) {
      return this.connection.call(() => this.session.notify(method, params ?? null));
    }
    /**
     * Opens the session (initialize, or MCP discovery) and resolves with the peer's answer
     * once the session is ready. Rejects when negotiation fails: the session then ends, and
     * the error names both versions.
     */
    initialize({ signal } = {}) {
      // After an HTTP session expired, initialize starts a new session on the same URL.
      if (this.connection.expired && this.fresh) this.connection.renew(this.fresh());
      return new Promise((resolve, reject) => {
        let wire;
        let settled = false;
        const finish = (fn, value) => {
          if (settled) return;
          settled = true;
          offEvent();
          offClose();
          fn(value);
        };
        const closeError = (fallback) => {
          const e = this.session.state().closeError;
          return e ? ProtocolError.from(e) : fallback;
        };
        let fallback;
        const offEvent = this.connection.onEvent((ev) => {
          if (ev.type === "eraFallback") fallback = { from: ev.from, to: ev.to, reason: ProtocolError.from(ev.reason) };
          if (ev.type === "response" && (ev.method === "initialize" || ev.method === "server/discover")) wire = ev.result;
          // Events of one frame arrive together; settle after all of them are seen.
          // MCP reports the handshake only as `initialized`: give back the wire shape.
          // An `era: "auto"` that left the stateless era says why, beside the wire answer.
          if (ev.type === "initialized") queueMicrotask(() => finish(resolve, withFallback(wire ?? {
            protocolVersion: ev.protocolVersion, capabilities: ev.peerCapabilities, serverInfo: ev.peerInfo,
            ...(ev.instructions !== undefined ? { instructions: ev.instructions } : {}) }, fallback)));
          if (ev.type === "closed") queueMicrotask(() => finish(reject, closeError(ProtocolError.from(ev.error ?? {
            code: codes.CONNECTION_CLOSED, message: "the session ended during initialize" }))));
        });
        const offClose = this.connection.onClose(({ error }) => finish(reject, closeError(error)));
        let out;
        try {
          out = this.session.initialize();
        } catch (e) {
          finish(reject, e);
          return;
        }
        // The outcome is the `initialized` or `closed` event: a refused first offer may be
        // followed by a retry or a fallback inside the session.
        this.connection.call(() => out, { signal }).catch((e) => {
          if (signal?.aborted) finish(reject, e);
        });
      });
    }
    close() { this.connection.close(); }
  }

  /**
   * ACP: after `initialize`, a handler registered for a request that cannot reach it under the
   * negotiated version (not a method of that version, sent by this side, or gated by a
   * capability this side did not declare) is reported as a `warning` event.
   */
  const unreachableHandlers = __ACP__ && function unreachableHandlers(connected, methods) {
    const version = connected.state.protocolVersion;
    if (version === undefined || version === null) return;
    const served = connected instanceof AcpAgentConnection ? "clientToAgent" : "agentToClient";
    const table = connected.methods();
    const warnings = [];
    for (const method of methods) {
      if (method.startsWith("_")) continue;
      const row = table.find((m) => m.method === method);
      let why;
      if (!row) why = `${method} is not a method of ACP v${version}`;
      else if (row.direction !== served && row.direction !== "both") why = `${method} is sent by this side, never received`;
      else if (!row.enabled) why = row.reason;
      if (why) {
        warnings.push({ type: "warning", code: "unreachable_handler", method,
          message: `the onRequest("${method}") handler is never called under the negotiated ACP v${version}: ${why}` });
      }
    }
    if (warnings.length > 0) connected.connection.dispatch(warnings);
  };

  const AcpSession = __ACP__ && class AcpSession {
    #connection;
    #listeners = [];
    constructor(connection, id) {
      this.#connection = connection;
      this.id = id;
    }
    onUpdate(fn) {
      this.#listeners.push(fn);
      return () => { this.#listeners = this.#listeners.filter((f) => f !== fn); };
    }
    /** @internal */
    _update(update) {
      for (const fn of this.#listeners) fn(update);
    }
    transcript() { return this.#connection.session.transcript(this.id); }
    /**
     * Sends a prompt and resolves when its turn is over, in v1 and v2 alike, with
     * `{ stopReason, messageId?, usage? }`. v1 ends the turn with the prompt's answer; v2
     * acknowledges the prompt first and ends the turn with an `idle` state update. The
     * returned Promise has `accepted`, which resolves with the acknowledgement (v2) or the
     * answer (v1). `signal` and `timeoutMs` cover the whole turn; after the
     * acknowledgement they end it with `session/cancel`.
     */
    prompt(prompt, opts = {}) {
      const { signal, timeoutMs, ...extra } = opts;
      const owner = this.#connection;
      const stop = new AbortController();
      const cleanups = [];
      if (signal) {
        const forward = () => stop.abort(signal.reason);
        if (signal.aborted) forward();
        else {
          signal.addEventListener("abort", forward, { once: true });
          cleanups.push(() => signal.removeEventListener("abort", forward));
        }
      }
      if (timeoutMs !== undefined) {
        const timer = setTimeout(() => stop.abort(new ProtocolError(codes.TIMEOUT,
          `Request session/prompt timed out after ${timeoutMs} ms`, { method: "session/prompt", timeoutMs })), timeoutMs);
        cleanups.push(() => clearTimeout(timer));
      }
      let id;
      const params = { sessionId: this.id, prompt, ...extra };
      const accepted = owner.connection.call(() => owner.session.request("session/prompt", params, null),
        { signal: stop.signal, onSent: (out) => { id = out.id; } });
      const done = new Promise((resolve, reject) => {
        // Refused before sending, or failed before the turn began (error answer, abort).
        accepted.catch((e) => (id === undefined ? reject(e) : owner._endTurn(id, e)));
        if (id === undefined) return;
        owner._awaitTurn(id, resolve, reject);
        stop.signal.addEventListener("abort", () => {
          if (!owner._turnOpen(id)) return;
          owner._endTurn(id, stop.signal.reason instanceof ProtocolError ? stop.signal.reason
            : new ProtocolError(codes.REQUEST_CANCELLED, "the prompt was aborted", { aborted: true }));
          this.cancel().catch(() => {});
        }, { once: true });
      });
      const settled = () => cleanups.forEach((f) => f());
      done.then(settled, settled);
      done.accepted = accepted;
      return done;
    }
    /**
     * session/cancel; pending permission requests of the session are answered `cancelled`, and
     * every request of the session being served (permission requests, file reads …) has its
     * handler's signal aborted.
     */
    cancel() {
      const { connection, session } = this.#connection;
      const reason = new ProtocolError(codes.REQUEST_CANCELLED, `session ${this.id} was cancelled (session/cancel)`, { sessionId: this.id });
      connection.abortServing(({ params }) => params?.sessionId === this.id, reason);
      return connection.call(() => {
        const frames = session.cancel(this.id);
        // The permission requests answered `cancelled` here: their handlers' answers are dropped.
        connection.answered(frames.filter((f) => f.id !== undefined && f.id !== null).map((f) => f.id));
        return frames;
      });
    }
    setMode(modeId, opts) { return this.#connection.request("session/set_mode", { sessionId: this.id, modeId }, opts); }
    /** session/set_config_option: `value` is the option value's id (or a boolean for a boolean option). */
    setConfigOption(configId, value, opts) {
      const typed = typeof value === "boolean" ? { type: "boolean" } : {};
      return this.#connection.setConfigOption({ sessionId: this.id, configId, ...typed, value }, opts);
    }
    /** session/close (needs the agent's `session.close`). */
    close(opts) { return this.#connection.closeSession(this.id, opts); }
  };

  const AcpConnection = __ACP__ && class AcpConnection extends Connected {
    /** ACP's core has one default deadline; a per-call `timeoutMs` is kept here. */
    localTimeouts = true;
    #sessions = new Map();
    #updates = [];
    /** Prompt turns not over yet: id key → { resolve, reject }. */
    #turns = new Map();
    constructor(connection) {
      super(connection);
      connection.onEvent((ev) => {
        if (ev.type === "initialized") queueMicrotask(() => unreachableHandlers(this, connection.handledMethods()));
        if (ev.type === "turnEnded") {
          return this.#settleTurn(ev.id, (t) => (ev.error ? t.reject(ProtocolError.from(ev.error)) : t.resolve(ev.outcome)));
        }
        if (ev.type !== "sessionUpdate" || this._skip?.(ev)) return;
        this.#sessions.get(ev.sessionId)?._update(ev.update);
        for (const fn of this.#updates) fn(ev.sessionId, ev.update);
      });
      connection.onClose(({ error }) => {
        for (const id of [...this.#turns.keys()]) this.#settleTurn(id, (t) => t.reject(error), true);
      });
    }
    onRequest(method, handler) {
      const off = super.onRequest(method, handler);
      unreachableHandlers(this, [method]);
      return off;
    }
    /** Warnings about this connection's use (`unreachable_handler`: a handler that is never called). */
    onWarning(fn) { return this.onEvent((ev) => ev.type === "warning" && fn(ev)); }
    /** With `reconnect`: the transport dropped (`{ error }`); a new connection is being sought. */
    onDisconnected(fn) { return this.onEvent((ev) => ev.type === "disconnected" && fn(ev)); }
    /** With `reconnect`: a new connection is up and its sessions resumed (`{ attempt, sessions }`). */
    onReconnected(fn) { return this.onEvent((ev) => ev.type === "reconnected" && fn(ev)); }
    /** @internal The sessions this connection tracks (reconnect.js resumes them). */
    _sessions() { return [...this.#sessions.values()]; }
    /** @internal Every prompt turn still open fails with `error` (the transport dropped). */
    _failTurns(error) {
      for (const id of [...this.#turns.keys()]) this.#settleTurn(id, (t) => t.reject(error), true);
    }
    /** @internal */
    _awaitTurn(id, resolve, reject) { this.#turns.set(idKey(id), { resolve, reject }); }
    /** @internal */
    _turnOpen(id) { return this.#turns.has(idKey(id)); }
    /** @internal */
    _endTurn(id, error) { this.#settleTurn(id, (t) => t.reject(error)); }
    #settleTurn(id, fn, isKey = false) {
      const k = isKey ? id : idKey(id);
      const turn = this.#turns.get(k);
      if (!turn) return;
      this.#turns.delete(k);
      fn(turn);
    }
    /** Every session/update of every session. */
    onUpdate(fn) {
      this.#updates.push(fn);
      return () => { this.#updates = this.#updates.filter((f) => f !== fn); };
    }
    getSession(id) { return this.#sessions.get(id); }
    async newSession(params, opts) {
      const result = await this.request("session/new", params, opts);
      return this.#track(result.sessionId, result, params);
    }
    /** Replayed history arrives through the session's onUpdate before this resolves. */
    async loadSession(params, { onUpdate, ...opts } = {}) {
      const session = this.#track(params.sessionId, undefined, params);
      if (onUpdate) session.onUpdate(onUpdate);
      const result = await this.request("session/load", params, opts);
      session.result = result;
      return session;
    }
    async resumeSession(params, opts) {
      const result = await this.request("session/resume", params, opts);
      return this.#track(params.sessionId, result, params);
    }
    /**
     * Offers a page's MCP server to this connection's agent (over ACP itself, or through agentwire's relay);
     * resolves with the `mcpServers` entry for `newSession` / `loadSession` (docs/acp.md).
     */
    async hostMcpServer(options) {
      if (!wasm.McpServer) {
        throw new ProtocolError(codes.INVALID_PARAMS, "hostMcpServer needs MCP, which agentwire/acp leaves out: import agentwire");
      }
      const { hostMcpServer } = await import("./hosting.js");
      return hostMcpServer(this, wasm.McpServer, options);
    }
    authenticate(methodId, opts) {
      const v = this.session.state().protocolVersion;
      return v >= 2 ? this.request("auth/login", { methodId }, opts) : this.request("authenticate", { methodId }, opts);
    }
    /** `logout` (v1) or `auth/logout` (v2); needs the agent's `auth.logout`. */
    logout(opts) {
      const v = this.session.state().protocolVersion;
      return this.request(v >= 2 ? "auth/logout" : "logout", {}, opts);
    }
    /** session/list (`cwd`, `cursor`, …); needs the agent's `session.list`. */
    listSessions(params, opts) { return this.request("session/list", params ?? {}, opts); }
    /** session/close; needs the agent's `session.close`. The session's transcript stays readable. */
    async closeSession(sessionId, opts) {
      const result = await this.request("session/close", { sessionId }, opts);
      this.#sessions.delete(sessionId);
      return result;
    }
    /** session/delete; needs the agent's `session.delete`. */
    async deleteSession(sessionId, opts) {
      const result = await this.request("session/delete", { sessionId }, opts);
      this.#sessions.delete(sessionId);
      return result;
    }
    /** session/set_mode (v1). */
    setMode(sessionId, modeId, opts) { return this.request("session/set_mode", { sessionId, modeId }, opts); }
    /** session/set_config_option: `{ sessionId, configId, value }`. */
    setConfigOption(params, opts) { return this.request("session/set_config_option", params, opts); }
    /** tool_call/cancel (v2): stops one tool call of a session. */
    cancelToolCall(sessionId, toolCallId, opts) { return this.request("tool_call/cancel", { sessionId, toolCallId }, opts); }
    /** terminal/cancel (v2): stops one terminal of a session. */
    cancelTerminal(sessionId, terminalId, opts) { return this.request("terminal/cancel", { sessionId, terminalId }, opts); }
    #track(id, result, params) {
      let s = this.#sessions.get(id);
      if (!s) {
        s = new AcpSession(this, id);
        this.#sessions.set(id, s);
      }
      if (result !== undefined) s.result = result;
      // What a reconnection resumes it with.
      if (params) s.setup = { cwd: params.cwd, mcpServers: params.mcpServers ?? [], ...(params.additionalDirectories ? { additionalDirectories: params.additionalDirectories } : {}) };
      return s;
    }
  };

  const McpConnection = __MCP__ && class McpConnection extends Connected {
    /**
     * Any method, gated and validated. An `input_required` result (2026-07-28) is fulfilled
     * through the `onRequest` handlers (elicitation, sampling, roots) and the request sent
     * again with `inputResponses` and `requestState`, up to `maxInputRounds` times (8);
     * `{ inputRequired: "return" }` hands the result back as it came instead.
     */
    async request(method, params, { inputRequired = "fulfil", maxInputRounds = MAX_INPUT_ROUNDS, ...opts } = {}) {
      let sent = params;
      for (let round = 0; ; round++) {
        const result = await super.request(method, sent, opts);
        if (inputRequired === "return" || result?.resultType !== "input_required") return result;
        if (round >= maxInputRounds) {
          throw new ProtocolError(codes.INTERNAL_ERROR, `${method} still asked for input after ${maxInputRounds} rounds`, { method, result });
        }
        const inputResponses = {};
        for (const [key, asked] of Object.entries(result.inputRequests ?? {})) {
          inputResponses[key] = await this.connection.fulfil(asked?.method, asked?.params, opts.signal);
        }
        const { inputResponses: _, requestState: __, ...original } = params ?? {};
        sent = { ...original, ...(result.inputRequests ? { inputResponses } : {}), ...(typeof result.requestState === "string" ? { requestState: result.requestState } : {}) };
      }
    }
    ping(opts) { return this.request("ping", undefined, opts); }
    listTools(params, opts) { return this.request("tools/list", params, opts); }
    callTool(name, args, opts) { return this.request("tools/call", { name, arguments: args ?? {} }, opts); }
    listResources(params, opts) { return this.request("resources/list", params, opts); }
    listResourceTemplates(params, opts) { return this.request("resources/templates/list", params, opts); }
    readResource(uri, opts) { return this.request("resources/read", { uri }, opts); }
    subscribe(uri, opts) { return this.request("resources/subscribe", { uri }, opts); }
    unsubscribe(uri, opts) { return this.request("resources/unsubscribe", { uri }, opts); }
    listPrompts(params, opts) { return this.request("prompts/list", params, opts); }
    getPrompt(name, args, opts) { return this.request("prompts/get", { name, arguments: args }, opts); }
    setLoggingLevel(level, opts) { return this.request("logging/setLevel", { level }, opts); }
    complete(ref, argument, opts) { return this.request("completion/complete", { ref, argument }, opts); }
  };

  // Servers and agents answer through onRequest like clients do; they just start by waiting.
  const AcpAgentConnection = __ACP__ && class AcpAgentConnection extends Connected {
    constructor(connection) {
      super(connection);
      connection.onEvent((ev) => {
        if (ev.type === "initialized") queueMicrotask(() => unreachableHandlers(this, connection.handledMethods()));
      });
      // session/cancel: the signal of the session's prompt handler aborts (its answer ends the
      // turn `cancelled` whatever it is).
      connection.onNotification(({ method, params }) => {
        if (method !== "session/cancel" || typeof params?.sessionId !== "string") return;
        const reason = new ProtocolError(codes.REQUEST_CANCELLED, `session ${params.sessionId} was cancelled (session/cancel)`, { sessionId: params.sessionId });
        connection.abortServing((e) => e.method === "session/prompt" && e.params?.sessionId === params.sessionId, reason);
      });
    }
    sendUpdate(sessionId, update) { return this.notify("session/update", { sessionId, update }); }
    onRequest(method, handler) {
      const off = super.onRequest(method, handler);
      unreachableHandlers(this, [method]);
      return off;
    }
    onWarning(fn) { return this.onEvent((ev) => ev.type === "warning" && fn(ev)); }
    /** Requests to the client, each gated by what the client advertised. */
    requestPermission(params, opts) { return this.request("session/request_permission", params, opts); }
    readTextFile(params, opts) { return this.request("fs/read_text_file", params, opts); }
    writeTextFile(params, opts) { return this.request("fs/write_text_file", params, opts); }
    createTerminal(params, opts) { return this.request("terminal/create", params, opts); }
    terminalOutput(params, opts) { return this.request("terminal/output", params, opts); }
    waitForTerminalExit(params, opts) { return this.request("terminal/wait_for_exit", params, opts); }
    killTerminal(params, opts) { return this.request("terminal/kill", params, opts); }
    releaseTerminal(params, opts) { return this.request("terminal/release", params, opts); }
    createElicitation(params, opts) { return this.request("elicitation/create", params, opts); }
    completeElicitation(params) { return this.notify("elicitation/complete", params); }
  };
  const McpServerConnection = __MCP__ && class McpServerConnection extends Connected {};

  const DIRECTIONS = { clientToServer: false, clientToAgent: false, serverToClient: true, agentToClient: true };
  const finite = (key, value) => {
    if (typeof value === "number" && !Number.isFinite(value)) {
      throw new ProtocolError(codes.INVALID_PARAMS, `${value} at ${JSON.stringify(key)} is not a JSON number`);
    }
    return value;
  };

  let writeInput; // made at the first validation: the web build instantiates the module in init()
  /** Validation of one protocol version; the rules live in the wasm module. */
  class Validator {
    #inner;
    constructor(options) {
      const { protocol, version, maxBytes, maxDepth } = options ?? {};
      // Plain values cross as such; anything else is left for the module to name in its error.
      const text = (v) => (typeof v === "string" ? v : typeof v === "number" ? String(v) : undefined);
      const count = (n, name) => {
        if (n === undefined || typeof n === "number") return n;
        throw new ProtocolError(codes.INVALID_PARAMS, `${name} must be a number, not ${n === null ? "null" : typeof n}`);
      };
      this.#inner = new wasm.Validator(typeof protocol === "string" ? protocol : undefined, text(version), count(maxBytes, "maxBytes"), count(maxDepth, "maxDepth"));
    }
    /** Validates a message (text, UTF-8 bytes, or a parsed object) → `{ ok, issues }`. */
    validate(message, context) {
      const { direction, inReplyTo } = context ?? {};
      const serverToClient = DIRECTIONS[direction];
      if (serverToClient === undefined) {
        throw new ProtocolError(codes.INVALID_PARAMS, `direction must be "clientToServer" or "serverToClient", not ${JSON.stringify(direction)}`);
      }
      let text = typeof message === "string" ? message : asBytes(message) ?? message;
      if (typeof text !== "string" && !(text instanceof Uint8Array)) {
        try {
          text = JSON.stringify(message, finite);
        } catch (e) {
          if (e instanceof ProtocolError) throw e;
          throw new ProtocolError(codes.INVALID_PARAMS, `the message cannot be written as JSON: ${e.message}`);
        }
      }
      if (typeof text !== "string" && !(text instanceof Uint8Array)) throw new ProtocolError(codes.INVALID_PARAMS, "nothing to validate");
      const { text: n, method } = (writeInput ??= inputWriter(wasm))(text, typeof inReplyTo === "string" ? inReplyTo : undefined);
      if (this.#inner.validateInput(n, method, serverToClient) === 0) return { ok: true, issues: [] };
      const issues = JSON.parse(wasm.Validator.takeIssues());
      return { ok: !issues.some((i) => i.severity === "error"), issues };
    }
    /** The versions this build has rules for. */
    static versions(protocol) {
      return wasm.Validator.versions(protocol);
    }
    free() {
      this.#inner.free();
    }
  }

  const connectable = [
    [wasm.AcpClient, AcpConnection],
    [wasm.AcpAgent, AcpAgentConnection],
    [wasm.McpClient, McpConnection],
    [wasm.McpServer, McpServerConnection],
  ];
  for (const [Session, Wrapper] of connectable) {
    if (!Session) continue;
    /** Connects a new session to a transport (URL, WebSocket, or { send, onmessage }). */
    Session.connect = async (transport, options = {}) => {
      // Transport options go to the transport; the rest are the session's, where an
      // unknown one is an error.
      // Only an MCP client speaks HTTP (an MCP server is served by the relay's endpoint);
      // elsewhere these options are unknown ones.
      const { WebSocket, relay, ...rest } = options ?? {};
      let sessionOptions = rest;
      let http = {};
      let reconnect;
      if (__ACP__ && Session === wasm.AcpClient) {
        // ACP over HTTP (an http(s) URL), or `transport: "websocket"` for its upgrade.
        const { headers, fetch, maxBytes, transport: kind, credentials, reconnect: again, ...own } = rest;
        sessionOptions = own;
        reconnect = again;
        http = { acp: { SseDecoder: wasm.SseDecoder, headers, fetch, maxBytes, transport: kind, credentials } };
        if (reconnect && !(typeof transport === "string" || transport instanceof URL)) {
          throw new ProtocolError(codes.INVALID_PARAMS, "reconnect needs a URL to connect to again, not a transport object");
        }
      }
      if (__MCP__ && Session === wasm.McpClient) {
        const { headers, fetch, maxBytes, legacy, authorize, auth, ...own } = rest;
        sessionOptions = own;
        http = { McpHttp: wasm.McpHttp, http: { headers, fetch, maxBytes, legacy, authorize } };
        if (auth) {
          // An OAuth provider: its saved token goes from the start; a 401 runs the flow.
          // Tokens are kept per server: only this server's go to it.
          const { authorizeWith, canonicalResource } = await import("./auth.js");
          const saved = await auth.tokens?.(canonicalResource(transport));
          if (saved?.access_token) http.http.headers = { ...headers, authorization: `Bearer ${saved.access_token}` };
          http.http.authorize = ({ headers: got, status }) =>
            authorizeWith(auth, { serverUrl: String(transport), wwwAuthenticate: got.get("www-authenticate"), status, fetch });
        }
      }
      const session = new Session(sessionOptions);
      const connected = new Wrapper(await Connection.open(session, transport, { WebSocket, relay, ...http }));
      connected.fresh = () => new Session(sessionOptions);
      if (__ACP__ && reconnect) {
        const { keepAlive } = await import("./reconnect.js");
        // A new transport to the same URL; an HTTP one keeps the agent's cookies (affinity).
        const open = () => openTransport(transport, { WebSocket, relay, acp: { ...http.acp, cookies: connected.connection.cookies } });
        keepAlive(connected, open, wasm.SseDecoder.minRetryMs(), reconnect === true ? {} : reconnect);
      }
      return connected;
    };
  }

  return {
    AcpClient: wasm.AcpClient,
    AcpAgent: wasm.AcpAgent,
    McpClient: wasm.McpClient,
    McpServer: wasm.McpServer,
    Validator,
    // MCP Apps: the frames of a View ↔ Host bridge (docs/validation.md, "MCP Apps").
    AppsValidator: wasm.AppsValidator,
    parseMessage: guarded(wasm.parseMessage, "parseMessage", 1),
    serializeMessage: guarded(wasm.serializeMessage, "serializeMessage"),
    AcpConnection,
    AcpSession,
    McpConnection,
  };
}

export { ProtocolError, codes };
