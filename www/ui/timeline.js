// Timeline of every JSON-RPC frame in and out: direction, method, id, time, latency, and a
// validation badge. Selecting a row shows it in the inspector. Exportable as a JSON file.
import { h, replace, followEnd, formatTime } from "../lib/dom.js";
import { tryParse } from "../lib/json-view.js";

const CANCEL_METHODS = new Set(["notifications/cancelled", "$/cancel_request"]);

/**
 * validate(text, { direction, inReplyTo, version }) -> { ok, issues } | null
 * onSelect(entry) shows an entry in the inspector.
 */
export function createTimeline(root, { validate, onSelect, exportInfo }) {
  const list = h("ol", { id: "timeline", "data-testid": "timeline", class: "timeline", "aria-label": "Frames" });
  const count = h("span", { class: "muted", id: "timeline-count" }, "0 frames");
  const exportLink = h("a", { id: "export-timeline", "data-testid": "export-timeline", class: "button", href: "#", download: "agentwire-timeline.json", onclick: prepareExport }, "Export JSON");
  const clearBtn = h("button", { type: "button", id: "clear-timeline", onclick: clear }, "Clear");
  const filter = h("input", { type: "search", id: "timeline-filter", placeholder: "filter by method", "aria-label": "Filter frames by method", oninput: applyFilter });
  const scroller = h("div", { class: "timeline-scroll" }, list);
  replace(root, h("div", { class: "toolbar" }, count, filter, exportLink, clearBtn), scroller);
  followEnd(scroller, list);

  let entries = [];
  let pending = new Map();       // `${dir}:${id}` -> request entry awaiting a response
  let lateViolations = new Map(); // text -> issues reported before the frame itself
  let selected = null;
  let exportUrl = null;

  // Requests pair with answers per channel: the page's own MCP server has ids of its own.
  const key = (dir, id, channel) => `${channel ? `${channel.label} ${channel.session}` : ""}:${dir}:${JSON.stringify(id)}`;

  /** A frame: its `text`, and for a binary frame the `bytes` it came as (validated as such). */
  function add({ direction, text, bytes = null, time, raw = false, http = null, channel = null }) {
    const msg = tryParse(text);
    const entry = {
      seq: entries.length, direction, text, bytes, time, raw, http, channel, message: msg,
      method: null, id: null, kind: "invalid", inReplyTo: null, latencyMs: null,
      issues: [], violations: [], cancelled: false, row: null,
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
          updateRow(request);
        }
      }
    }
    const result = safeValidate(entry);
    if (result) entry.issues = result.issues ?? [];
    const late = lateViolations.get(text);
    if (late) { lateViolations.delete(text); mergeViolation(entry, late); }
    entries.push(entry);
    entry.row = h("li", {});
    updateRow(entry);
    entry.row.hidden = hiddenByFilter(entry, filter.value.trim().toLowerCase());
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
    const label = entry.method ?? (entry.inReplyTo ? `↳ ${entry.inReplyTo}` : entry.kind);
    const latency = entry.latencyMs != null ? `${entry.latencyMs} ms`
      : entry.kind === "request" ? (entry.cancelled ? "cancelled" : entry.response ? "" : "…") : "";
    const button = h("button", {
      type: "button", class: `frame ${entry.direction} ${entry.kind}${selected === entry ? " selected" : ""}`,
      "data-testid": "timeline-row", "data-direction": entry.direction, "data-method": entry.method ?? entry.inReplyTo ?? "",
      "data-kind": entry.kind, "data-valid": String(!issues.some((i) => i.severity !== "warning") && entry.kind !== "invalid"),
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

  function select(entry) {
    const previous = selected;
    selected = entry;
    if (previous) updateRow(previous);
    updateRow(entry);
    onSelect(entry, allIssues(entry));
  }

  const hiddenByFilter = (e, q) => q !== "" && !(e.method ?? e.inReplyTo ?? e.kind).toLowerCase().includes(q);

  function applyFilter() {
    const q = filter.value.trim().toLowerCase();
    for (const e of entries) e.row.hidden = hiddenByFilter(e, q);
  }

  function prepareExport() {
    if (exportUrl) URL.revokeObjectURL(exportUrl);
    const data = {
      exportedAt: new Date().toISOString(), ...exportInfo(),
      frames: entries.map((e) => ({
        direction: e.direction, time: e.time, method: e.method, id: e.id, kind: e.kind,
        inReplyTo: e.inReplyTo, latencyMs: e.latencyMs, cancelled: e.cancelled || undefined, raw: e.raw || undefined, http: e.http ?? undefined,
        channel: e.channel ? { label: e.channel.label, session: e.channel.session, protocol: e.channel.protocol } : undefined,
        issues: allIssues(e), message: e.message ?? null, text: e.message === undefined ? e.text : undefined,
      })),
    };
    exportUrl = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: "application/json" }));
    exportLink.href = exportUrl;
  }

  function clear() {
    entries = []; pending = new Map(); lateViolations = new Map(); selected = null;
    list.replaceChildren();
    count.textContent = "0 frames";
    onSelect(null);
  }

  return { add, violation, clear, entries: () => entries, issuesOf: allIssues };
}
