// The transcript model of an `AcpClient`: the conversation of each session, built from the
// session's events (`sessionUpdate`, the answers to session/new, load, resume, fork and, in
// v1, prompt), the same whether the updates came live or from a load's replay. It lives here,
// beside the events, rather than in the module: the updates reach JS as the text they came
// in and are parsed once, here and for the application alike (docs/acp.md, "Transcript").
// Unknown kinds are kept as they came. The model shares the events' objects where it only
// reads them and copies what it changes (text blocks it appends to, arrays it grows), so it
// never changes an event the application holds; `transcript()` returns a copy.

const CHUNK_ROLES = { user_message_chunk: "user", agent_message_chunk: "agent", agent_thought_chunk: null };
const MESSAGE_ROLES = { user_message: "user", agent_message: "agent", agent_thought: null };
/** Requests whose answer says something about the session (ACP's session methods). */
const SESSION_RESULTS = new Set(["session/new", "session/fork", "session/load", "session/resume"]);

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
/** Member `k` of an object that has it itself (never an inherited `toString`). */
const own = (o, k) => (isObject(o) && Object.hasOwn(o, k) ? o[k] : undefined);
const text = (v) => (typeof v === "string" ? v : undefined);

/** Sets a member as JSON has it: `__proto__` is a member like any other, never the prototype. */
function put(o, k, v) {
  if (k === "__proto__") Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}

/** A deep copy of a JSON value. */
export function copy(v) {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map(copy);
  const o = {};
  for (const k of Object.keys(v)) put(o, k, copy(v[k]));
  return o;
}

function merge(into, from) {
  for (const k of Object.keys(from)) put(into, k, from[k]);
}

/** The update's members but its kind. */
function withoutKind(update) {
  if (!isObject(update)) return update;
  const o = {};
  for (const k of Object.keys(update)) if (k !== "sessionUpdate") put(o, k, update[k]);
  return o;
}

/** A content block as the model keeps it: a text block, which later chunks append to, copied. */
const mine = (block) => (own(block, "type") === "text" ? copy(block) : block);

/** Appends a content block, concatenating text onto a preceding text block. */
function appendChunk(content, block) {
  const last = content.at(-1);
  if (own(last, "type") === "text" && own(block, "type") === "text" && text(own(block, "text")) !== undefined && text(own(last, "text")) !== undefined) {
    last.text += block.text;
    return;
  }
  content.push(mine(block));
}

function same(a, b) {
  return a === b || (a !== undefined && b !== undefined && JSON.stringify(a) === JSON.stringify(b));
}

export class Transcript {
  entries = [];
  info = {};
  terminals = {};
  /** Where the newest message (by role; `null`: thought) and tool call of each id are. */
  #index = new Map();

  constructor(sessionId) {
    this.sessionId = sessionId;
  }

  /** Applies one `update` object (the `update` member of `session/update` params). */
  apply(update) {
    const kind = text(own(update, "sessionUpdate")) ?? "";
    const messageId = text(own(update, "messageId"));
    if (Object.hasOwn(CHUNK_ROLES, kind)) {
      appendChunk(this.#message(CHUNK_ROLES[kind], messageId, false).content, own(update, "content") ?? null);
      return;
    }
    switch (kind) {
      // v2: whole messages, by id; content, when present, replaces what chunks built.
      case "user_message":
      case "agent_message":
      case "agent_thought": {
        const entry = this.#message(MESSAGE_ROLES[kind], messageId, true);
        const content = own(update, "content");
        if (content !== undefined && content !== null) entry.content = (Array.isArray(content) ? content : [content]).map(mine);
        return;
      }
      case "tool_call":
      case "tool_call_update": {
        const id = text(own(update, "toolCallId"));
        if (id === undefined) return void this.entries.push({ kind: "other", update });
        const call = this.#toolCall(id);
        // Later content chunks are pushed onto `content`: the model's own array.
        for (const k of Object.keys(update)) if (k !== "sessionUpdate" && k !== "toolCallId") put(call.call, k, k === "content" && Array.isArray(update[k]) ? [...update[k]] : update[k]);
        call.updates.push(update);
        return;
      }
      case "tool_call_content_chunk": {
        const id = text(own(update, "toolCallId"));
        if (id === undefined) return;
        const call = this.#toolCall(id);
        if (!Object.hasOwn(call.call, "content")) call.call.content = [];
        if (Array.isArray(call.call.content) && Object.hasOwn(update, "content")) call.call.content.push(update.content);
        call.updates.push(update);
        return;
      }
      case "plan":
        this.plan = withoutKind(update);
        return;
      case "plan_update":
        this.plan = own(update, "plan");
        return;
      case "plan_removed":
        if (same(isObject(this.plan) ? own(this.plan, "planId") : undefined, own(update, "planId"))) this.plan = undefined;
        return;
      case "current_mode_update":
        this.currentModeId = text(own(update, "currentModeId"));
        return;
      case "config_option_update":
        this.configOptions = own(update, "configOptions");
        return;
      case "available_commands_update":
        this.availableCommands = own(update, "availableCommands");
        return;
      case "usage_update":
        this.usage = withoutKind(update);
        return;
      case "session_info_update":
        merge(this.info, withoutKind(update));
        return;
      case "state_update": {
        const reason = own(update, "stopReason");
        if (own(update, "state") === "idle" && reason !== undefined && reason !== null) this.entries.push({ kind: "turnEnded", stopReason: reason });
        this.state = withoutKind(update);
        return;
      }
      case "terminal_update":
      case "terminal_output_chunk": {
        const id = text(own(update, "terminalId"));
        if (id === undefined) return;
        if (!Object.hasOwn(this.terminals, id)) put(this.terminals, id, {});
        const terminal = this.terminals[id];
        if (!isObject(terminal)) return;
        if (kind === "terminal_update") merge(terminal, withoutKind(update));
        else if (text(own(update, "data")) !== undefined) terminal.outputText = (text(own(terminal, "outputText")) ?? "") + update.data;
        return;
      }
      case "notice":
        this.entries.push({ kind: "notice", notice: withoutKind(update) });
        return;
      case "compaction_update":
      case "compaction_summary_chunk": {
        const id = text(own(update, "compactionId")) ?? "";
        let entry = this.entries.findLast((e) => e.kind === "compaction" && e.compactionId === id);
        if (!entry) this.entries.push((entry = { kind: "compaction", compactionId: id, compaction: {}, summary: [] }));
        if (kind === "compaction_update") merge(entry.compaction, withoutKind(update));
        else if (Object.hasOwn(update, "content")) appendChunk(entry.summary, update.content);
        return;
      }
      default:
        this.entries.push({ kind: "other", update });
    }
  }

  /** What a session/new, load, resume or fork result says about the session. */
  applySessionResult(result) {
    const modes = own(result, "modes");
    if (modes !== undefined && modes !== null) {
      this.currentModeId = text(own(modes, "currentModeId"));
      this.modes = copy(modes);
    }
    for (const k of ["configOptions", "availableCommands"]) {
      const v = own(result, k);
      if (v !== undefined && v !== null) this[k] = copy(v);
    }
  }

  /** A prompt turn ended with this stop reason (v1 prompt responses). */
  endTurn(stopReason) {
    this.entries.push({ kind: "turnEnded", stopReason: copy(stopReason) });
  }

  /** A copy, members in the order the types name them; absent ones left out. */
  toJSON() {
    const out = { sessionId: this.sessionId, entries: copy(this.entries) };
    for (const k of ["plan", "currentModeId", "modes", "configOptions", "availableCommands", "usage"]) {
      if (this[k] !== undefined) out[k] = copy(this[k]);
    }
    if (Object.keys(this.info).length) out.info = copy(this.info);
    if (this.state !== undefined) out.state = copy(this.state);
    if (Object.keys(this.terminals).length) out.terminals = copy(this.terminals);
    return out;
  }

  /**
   * The message (or thought: `role` null) entry a chunk or message belongs to: the newest with
   * that id when `byId`, else the last entry if it is of the same kind and id; else a new one.
   */
  #message(role, messageId, byId) {
    const slot = `${role ?? "thought"}\u0000${messageId}`;
    let entry;
    if (messageId !== undefined && byId) {
      entry = this.entries[this.#index.get(slot)];
    } else {
      const last = this.entries.at(-1);
      const sameKind = role === null ? last?.kind === "thought" : last?.kind === "message" && last.role === role;
      if (sameKind && last.messageId === messageId) entry = last;
    }
    if (entry) return entry;
    if (messageId !== undefined) this.#index.set(slot, this.entries.length);
    entry = role === null ? { kind: "thought" } : { kind: "message", role };
    if (messageId !== undefined) entry.messageId = messageId;
    entry.content = [];
    this.entries.push(entry);
    return entry;
  }

  /** The newest tool call entry of this id, or a new one. */
  #toolCall(id) {
    const slot = `tool\u0000${id}`;
    const at = this.#index.get(slot);
    if (at !== undefined) return this.entries[at];
    this.#index.set(slot, this.entries.length);
    const entry = { kind: "toolCall", toolCallId: id, call: {}, updates: [] };
    this.entries.push(entry);
    return entry;
  }
}

/** The transcripts of one `AcpClient`, kept from what it sends and the events it returns. */
export class Transcripts {
  #sessions = new Map();
  /** Our requests about a session: id key → session id. */
  #about = new Map();
  #version = 1;
  #key;

  /** `key` turns a request id into a map key. */
  constructor(key) {
    this.#key = key;
  }

  #of(sessionId) {
    let t = this.#sessions.get(sessionId);
    if (!t) this.#sessions.set(sessionId, (t = new Transcript(sessionId)));
    return t;
  }

  /** A request went out (`out` as `request()` returned it). */
  sent(method, params, out) {
    const sessionId = text(own(params, "sessionId"));
    if (sessionId === undefined || !out) return;
    // A load starts the transcript over: the replay rebuilds it.
    if (method === "session/load") this.#sessions.set(sessionId, new Transcript(sessionId));
    this.#about.set(this.#key(out.id), sessionId);
  }

  /** The events one call returned, in order. */
  received(events) {
    const key = this.#key;
    for (const ev of events) {
      switch (ev.type) {
        case "initialized":
          this.#version = ev.protocolVersion;
          break;
        case "sessionUpdate":
          this.#of(ev.sessionId).apply(ev.update);
          break;
        case "response": {
          const about = this.#about.get(key(ev.id));
          this.#about.delete(key(ev.id));
          const target = ev.method === "session/new" || ev.method === "session/fork" ? text(own(ev.result, "sessionId")) : about;
          if (target === undefined) break;
          const t = this.#of(target);
          if (ev.method === "session/prompt" && this.#version < 2) {
            if (Object.hasOwn(ev.result ?? {}, "stopReason")) t.endTurn(ev.result.stopReason);
          } else if (SESSION_RESULTS.has(ev.method)) {
            t.applySessionResult(ev.result);
          }
          break;
        }
        case "error":
        case "timeout":
          this.#about.delete(key(ev.id));
          break;
      }
    }
  }

  get(sessionId) {
    return this.#sessions.get(sessionId)?.toJSON();
  }

  ids() {
    return [...this.#sessions.keys()].sort();
  }
}
