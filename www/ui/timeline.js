// Timeline of every JSON-RPC frame in and out: direction, method (with the update kind of a
// session/update), id, time, latency, and a validation badge. Selecting a row shows it in the
// inspector and highlights its request or response. Filters by method, kind, direction and
// validity. Exported as a recording (every frame, timings, versions, validation) that
// loads back offline.
import { h, replace, followEnd, formatTime } from "../lib/dom.js";
import { tryParse } from "../lib/json-view.js";
import { methodSpec } from "../lib/spec.js";

export const RECORDING_FORMAT = "agentwire-recording";

/** The kind of a session/update (`agent_message_chunk`, …), or null. */
export function updateKind(message) {
  return message?.method === "session/update" && typeof message.params?.update?.sessionUpdate === "string" ? message.params.update.sessionUpdate : null;
}

const CANCEL_METHODS = new Set(["notifications/cancelled", "$/cancel_request"]);

/**
 * validate(text, { direction, inReplyTo, version }) -> { ok, issues } | null
 * onSelect(entry) shows an entry in the inspector.
 * exportInfo() -> what a recording says about the connection (agent, versions, clientInfo…).
 * protocolOf() -> { protocol, version } of the connection, for the spec links.
 */
export function createTimeline(root, { validate, onSelect, exportInfo, protocolOf = () => ({}) }) {
  const list = h("ol", { id: "timeline", "data-testid": "timeline", class: "timeline", "aria-label": "Frames" });
  const count = h("span", { class: "muted", id: "timeline-count" }, "0 frames");
  const exportLink = h("a", { id: "export-timeline", "data-testid": "export-timeline", class: "button", href: "#", download: "agentwire-recording.json", onclick: prepareExport, title: "Every frame with its time, validation and the negotiated version, as a file that loads back" }, "Export recording");
  const clearBtn = h("button", { type: "button", id: "clear-timeline", onclick: clear }, "Clear");
  const filter = h("input", { type: "search", id: "timeline-filter", placeholder: "filter by method", "aria-label": "Filter frames by method", oninput: applyFilter });
  const dropdown = (id, label, options) => h("select", { id, "data-testid": id, "aria-label": label, onchange: applyFilter },
    options.map(([value, text]) => h("option", { value }, text)));
  const kindFilter = dropdown("timeline-filter-kind", "Show frames of this kind", [["", "any kind"], ["request", "requests"], ["response", "responses"], ["notification", "notifications"], ["error", "errors"]]);
  const directionFilter = dropdown("timeline-filter-direction", "Show frames going this way", [["", "both ways"], ["out", "→ sent"], ["in", "← received"]]);
  const validityFilter = dropdown("timeline-filter-validity", "Show frames by validation", [["", "valid or not"], ["valid", "valid"], ["invalid", "invalid"], ["warning", "with warnings"]]);
  const source = h("span", { id: "timeline-source", "data-testid": "timeline-source", class: "badge", hidden: true });
  const scroller = h("div", { class: "timeline-scroll" }, list);
  replace(root, h("div", { class: "toolbar" }, count, source, filter, exportLink, clearBtn),
    h("div", { class: "toolbar filters" }, kindFilter, directionFilter, validityFilter), scroller);
  followEnd(scroller, list);

  let entries = [];
  let pending = new Map();       // `${dir}:${id}` -> request entry awaiting a response
  let lateViolations = new Map(); // text -> issues reported before the frame itself
  let selected = null;
  let exportUrl = null;
  let loadedInfo = null;          // what a recording loaded offline says about its connection

  // Requests pair with answers per channel: the page's own MCP server has ids of its own.
  const key = (dir, id, channel) => `${channel ? `${channel.label} ${channel.session}` : ""}:${dir}:${JSON.stringify(id)}`;

  /** A frame: its `text`, and for a binary frame the `bytes` it came as (validated as such). */
  function add({ direction, text, bytes = null, time, raw = false, http = null, channel = null, recorded = null }) {
    const msg = tryParse(text);
    const entry = {
      seq: entries.length, direction, text, bytes, time, raw, http, channel, message: msg,
      method: null, id: null, kind: "invalid", inReplyTo: null, latencyMs: null, update: updateKind(msg),
      issues: [], violations: [], cancelled: false, row: null, request: null, response: null,
    };
    if (msg && typeof msg === "object" && !Array.isArray(msg)) {
      entry.id = "id" in msg ? msg.id : null;
      if (typeof msg.method === "string") {
        entry.method = msg.method;
        entry.kind = "id" in msg ? "request" : "notification";
        if (entry.kind === "request") pending.set(key(direction, msg.id, channel), entry);
        if (CANCEL_METHODS.has(msg.method)) markCancelled(direction, msg.params?.requestId, msg.params?.reason, channel);
      } else if ("result" in msg || "error" in msg) {
        entry.kind = "error" in msg ? "error" : "response";
        const request = pending.get(key(direction === "in" ? "out" : "in", msg.id, channel));
        if (request) {
          pending.delete(key(request.direction, msg.id, channel));
          entry.inReplyTo = request.method;
          entry.latencyMs = Math.max(0, time - request.time);
          request.response = entry;
          entry.request = request;
          updateRow(request);
        }
      }
    }
    // A recording loaded offline keeps the verdicts it was saved with.
    const result = recorded ? { issues: recorded.issues ?? [] } : safeValidate(entry);
    if (result) entry.issues = result.issues ?? [];
    if (recorded?.cancelled) entry.cancelled = recorded.cancelled;
    const late = lateViolations.get(text);
    if (late) { lateViolations.delete(text); mergeViolation(entry, late); }
    entries.push(entry);
    entry.row = h("li", {});
    updateRow(entry);
    entry.row.hidden = hiddenByFilter(entry, filters());
    list.append(entry.row);
    count.textContent = `${entries.length} frame${entries.length === 1 ? "" : "s"}`;
    return entry;
  }

  function safeValidate(entry) {
    try {
      return validate(entry.bytes ?? entry.text, { direction: entry.direction, inReplyTo: entry.inReplyTo, message: entry.message, channel: entry.channel });
    } catch (err) {
      return { ok: false, issues: [{ path: "", code: "validator", message: `validator: ${err.message}`, severity: "warning" }] };
    }
  }

  function markCancelled(direction, requestId, reason, channel) {
    if (requestId === undefined) return;
    const request = pending.get(key(direction, requestId, channel))
      ?? entries.find((e) => e.direction === direction && e.kind === "request" && e.id === requestId && e.channel?.session === channel?.session);
    if (!request) return;
    request.cancelled = reason ?? true;
    updateRow(request);
  }

  function mergeViolation(entry, issues) {
    for (const issue of issues) {
      if (!entry.violations.some((v) => v.path === issue.path && v.message === issue.message)) entry.violations.push(issue);
    }
  }

  /** onViolation: attach to the latest frame with the same text, or keep until it arrives. */
  function violation({ direction, text, issues }) {
    const dir = direction === "out" || direction === "outgoing" ? "out" : direction === "in" || direction === "incoming" ? "in" : null;
    for (let i = entries.length - 1; i >= 0; i--) {
      const e = entries[i];
      if (e.text === text && (!dir || e.direction === dir)) {
        mergeViolation(e, issues ?? []);
        updateRow(e);
        if (selected === e) onSelect(e);
        return;
      }
    }
    lateViolations.set(text, issues ?? []);
  }

  function allIssues(entry) {
    const out = [...entry.issues];
    for (const v of entry.violations) if (!out.some((i) => i.path === v.path && i.message === v.message)) out.push(v);
    return out;
  }

  function badge(entry) {
    const issues = allIssues(entry);
    const errors = issues.filter((i) => i.severity !== "warning").length;
    if (entry.kind === "invalid") return h("span", { class: "badge bad", title: "not a JSON-RPC object" }, "invalid");
    if (errors) return h("span", { class: "badge bad", title: issues.map((i) => `${i.path || "/"}: ${i.message}`).join("\n") }, `${errors} error${errors > 1 ? "s" : ""}`);
    if (issues.length) return h("span", { class: "badge warn", title: issues.map((i) => `${i.path || "/"}: ${i.message}`).join("\n") }, `${issues.length} warning${issues.length > 1 ? "s" : ""}`);
    return h("span", { class: "badge ok", title: "valid" }, "valid");
  }

  function updateRow(entry) {
    if (!entry.row) return;
    const issues = allIssues(entry);
    const label = entry.method ? (entry.update ? `${entry.method} · ${entry.update}` : entry.method) : (entry.inReplyTo ? `↳ ${entry.inReplyTo}` : entry.kind);
    const paired = selected && selected !== entry && (selected.request === entry || selected.response === entry);
    const spec = methodSpec(entry.channel?.protocol ?? protocolNow().protocol, entry.method ?? entry.inReplyTo, protocolNow().version);
    const latency = entry.latencyMs != null ? `${entry.latencyMs} ms`
      : entry.kind === "request" ? (entry.cancelled ? "cancelled" : entry.response ? "" : "…") : "";
    const button = h("button", {
      type: "button", class: `frame ${entry.direction} ${entry.kind}${selected === entry ? " selected" : ""}${paired ? " paired" : ""}`,
      "data-testid": "timeline-row", "data-direction": entry.direction, "data-method": entry.method ?? entry.inReplyTo ?? "",
      "data-kind": entry.kind, "data-valid": String(validOf(entry, issues)), "data-seq": String(entry.seq),
      "data-update": entry.update ?? undefined, "data-paired": paired ? "true" : undefined,
      title: spec ? `${entry.method ?? entry.inReplyTo}: ${spec.purpose}` : undefined,
      "aria-pressed": String(selected === entry), onclick: () => select(entry),
    },
      h("span", { class: "arrow", "aria-label": entry.direction === "out" ? "sent" : "received" }, entry.direction === "out" ? "→" : "←"),
      h("span", { class: "method" }, label, entry.raw ? h("span", { class: "badge" }, "raw") : null,
        entry.kind === "error" ? h("span", { class: "badge bad" }, `error ${entry.message?.error?.code ?? ""}`) : null,
        entry.cancelled ? h("span", { class: "badge warn", title: typeof entry.cancelled === "string" ? entry.cancelled : "cancelled" }, "cancelled") : null,
        entry.http ? httpFacts(entry.http) : null,
        entry.channel ? h("span", { class: "badge", "data-testid": "frame-channel", title: `${entry.channel.protocol.toUpperCase()} session ${entry.channel.session}` }, entry.channel.label) : null),
      h("span", { class: "id" }, entry.id == null ? "" : `#${entry.id}`),
      h("span", { class: "time" }, formatTime(entry.time)),
      h("span", { class: "latency" }, latency),
      badge(entry));
    entry.row.replaceChildren(button);
  }

  /** Streamable HTTP: the status, the stream, the event id and the session of the frame. */
  function httpFacts(http) {
    const parts = [`${http.method}${http.status ? ` ${http.status}` : ""}`, `stream ${http.stream}`];
    if (http.eventId) parts.push(`event ${http.eventId}`);
    const title = [...parts, http.sessionId ? `session ${http.sessionId}` : null,
      http.synthesized ? "made by agentwire: the HTTP exchange failed to answer this request" : null].filter(Boolean).join("\n");
    return h("span", { class: `badge${http.synthesized || http.status >= 400 ? " bad" : ""}`, "data-testid": "http-facts", title },
      `${parts[0]} · s${http.stream}${http.eventId ? ` · ev ${short(http.eventId)}` : ""}`);
  }

  /** A long event id (a UUID) by its last characters; the whole one is in the title. */
  function short(id) {
    return id.length > 10 ? `…${id.slice(-6)}` : id;
  }

  /** The protocol and version the frames belong to: the recording's when one is loaded. */
  const protocolNow = () => (loadedInfo ? { protocol: loadedInfo.protocol, version: loadedInfo.negotiatedVersion } : protocolOf());

  const validOf = (entry, issues = allIssues(entry)) => !issues.some((i) => i.severity !== "warning") && entry.kind !== "invalid";

  /** Selecting a frame highlights its other half: a request's response, a response's request. */
  function select(entry) {
    const before = selected ? [selected, selected.request, selected.response] : [];
    selected = entry;
    for (const e of new Set([...before, entry, entry.request, entry.response])) if (e) updateRow(e);
    onSelect(entry, allIssues(entry));
  }

  const filters = () => ({ q: filter.value.trim().toLowerCase(), kind: kindFilter.value, direction: directionFilter.value, validity: validityFilter.value });

  function hiddenByFilter(e, f) {
    if (f.q !== "" && !`${e.method ?? e.inReplyTo ?? e.kind} ${e.update ?? ""}`.toLowerCase().includes(f.q)) return true;
    if (f.kind && e.kind !== f.kind) return true;
    if (f.direction && e.direction !== f.direction) return true;
    if (f.validity) {
      const issues = allIssues(e);
      const ok = validOf(e, issues);
      if (f.validity === "valid" && !ok) return true;
      if (f.validity === "invalid" && ok) return true;
      if (f.validity === "warning" && !(ok && issues.length)) return true;
    }
    return false;
  }

  function applyFilter() {
    const f = filters();
    for (const e of entries) e.row.hidden = hiddenByFilter(e, f);
  }

  /** The recording of what the timeline holds: each frame exactly as it went, with its verdict. */
  function recording() {
    const info = loadedInfo ?? exportInfo();
    return {
      format: RECORDING_FORMAT, formatVersion: 1, exportedAt: new Date().toISOString(), ...info,
      frames: entries.map((e) => ({
        seq: e.seq, direction: e.direction, time: e.time, text: e.text, method: e.method, update: e.update ?? undefined, id: e.id, kind: e.kind,
        inReplyTo: e.inReplyTo, latencyMs: e.latencyMs, cancelled: e.cancelled || undefined, raw: e.raw || undefined, http: e.http ?? undefined,
        channel: e.channel ? { label: e.channel.label, session: e.channel.session, protocol: e.channel.protocol, role: e.channel.role } : undefined,
        valid: validOf(e), issues: allIssues(e), message: e.message ?? null,
      })),
    };
  }

  function prepareExport() {
    if (exportUrl) URL.revokeObjectURL(exportUrl);
    exportUrl = URL.createObjectURL(new Blob([JSON.stringify(recording(), null, 2)], { type: "application/json" }));
    exportLink.href = exportUrl;
  }

  /** Shows a recording offline: its frames, times and verdicts, as they were saved. */
  function load(rec, name = "recording") {
    clear();
    loadedInfo = Object.fromEntries(Object.entries(rec).filter(([k]) => k !== "frames" && k !== "exportedAt"));
    for (const f of rec.frames ?? []) {
      const text = typeof f.text === "string" ? f.text : JSON.stringify(f.message ?? null);
      const channel = f.channel ? { ...f.channel, version: () => undefined } : null;
      add({ direction: f.direction === "out" ? "out" : "in", text, time: Number(f.time) || 0, raw: !!f.raw, http: f.http ?? null, channel, recorded: f });
    }
    source.hidden = false;
    source.textContent = `offline: ${name}`;
  }

  function clear() {
    entries = []; pending = new Map(); lateViolations = new Map(); selected = null; loadedInfo = null;
    list.replaceChildren();
    count.textContent = "0 frames";
    source.hidden = true;
    onSelect(null);
  }

  return { add, violation, clear, load, recording, protocolNow, select: (e) => { select(e); e.row?.scrollIntoView?.({ block: "nearest" }); }, entries: () => entries, issuesOf: allIssues, offline: () => loadedInfo !== null };
}
