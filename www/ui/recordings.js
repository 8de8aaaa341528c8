// Record and replay: a recording (the timeline's export: every frame as it went, its time,
// direction and verdict, with the versions offered and negotiated) loads back into the
// timeline offline, and two recordings are compared frame by frame (two agents given the same
// prompts, or one agent before and after an upgrade).
import { h, replace } from "../lib/dom.js";
import { RECORDING_FORMAT } from "./timeline.js";

// What differs between runs by nature and says nothing about behaviour: JSON-RPC ids, session,
// message and tool call ids, times.
const VOLATILE = new Set(["id", "sessionId", "messageId", "toolCallId", "requestId", "progressToken", "_meta", "timestamp", "createdAt", "updatedAt", "elicitationId"]);
const MAX_CELLS = 4_000_000;   // LCS table bound; longer pairs are compared position by position

/** A recording from a file's text, or an Error that says what is wrong with it. */
export function parseRecording(text) {
  let rec;
  try { rec = JSON.parse(text); } catch { return new Error("not JSON"); }
  if (!rec || typeof rec !== "object" || !Array.isArray(rec.frames)) return new Error("not a recording: no frames");
  if (rec.format !== undefined && rec.format !== RECORDING_FORMAT) return new Error(`not a recording: format ${JSON.stringify(rec.format)}`);
  for (const [i, f] of rec.frames.entries()) {
    if (!f || typeof f !== "object" || (f.direction !== "in" && f.direction !== "out")) return new Error(`frame ${i + 1}: no direction`);
    if (typeof f.text !== "string" && f.message === undefined) return new Error(`frame ${i + 1}: no text`);
  }
  return rec;
}

const messageOf = (f) => f.message ?? (() => { try { return JSON.parse(f.text); } catch { return undefined; } })();
const signature = (f) => `${f.direction} ${f.kind ?? ""} ${f.method ?? (f.inReplyTo ? `↳ ${f.inReplyTo}` : "")}${f.update ? ` · ${f.update}` : ""}`;

function normalize(value) {
  if (Array.isArray(value)) return value.map(normalize);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.keys(value).filter((k) => !VOLATILE.has(k)).sort().map((k) => [k, normalize(value[k])]));
}

/** The JSON pointers where two values differ (at most `limit`). */
function differences(a, b, path = "", out = [], limit = 6) {
  if (out.length >= limit) return out;
  if (a === b) return out;
  const ta = Array.isArray(a) ? "array" : a === null ? "null" : typeof a;
  const tb = Array.isArray(b) ? "array" : b === null ? "null" : typeof b;
  if (ta !== tb || ta !== "object" && ta !== "array") {
    if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ path: path || "/", a, b });
    return out;
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) differences(a[k], b[k], `${path}/${k}`, out, limit);
  return out;
}

/**
 * Aligns two recordings' frames by what they are (direction, kind, method, update kind), then
 * compares aligned frames by content, volatile ids aside. Rows: { change: same | changed |
 * removed (only in A) | added (only in B), a, b, diffs }.
 */
export function diffRecordings(A, B) {
  const a = A.frames, b = B.frames;
  const sa = a.map(signature), sb = b.map(signature);
  const pairs = [];
  if (a.length * b.length <= MAX_CELLS) {
    // Longest common subsequence of the signatures.
    const n = a.length, m = b.length;
    const table = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) table[i][j] = sa[i] === sb[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
    let i = 0, j = 0;
    while (i < n && j < m) {
      if (sa[i] === sb[j]) pairs.push([i++, j++]);
      else if (table[i + 1][j] >= table[i][j + 1]) pairs.push([i++, null]);
      else pairs.push([null, j++]);
    }
    while (i < n) pairs.push([i++, null]);
    while (j < m) pairs.push([null, j++]);
  } else {
    for (let i = 0; i < Math.max(a.length, b.length); i++) pairs.push([i < a.length ? i : null, i < b.length ? i : null]);
  }
  return pairs.map(([i, j]) => {
    const fa = i === null ? null : a[i], fb = j === null ? null : b[j];
    if (!fa) return { change: "added", b: fb };
    if (!fb) return { change: "removed", a: fa };
    if (signature(fa) !== signature(fb)) return { change: "changed", a: fa, b: fb, diffs: [{ path: "(frame)", a: signature(fa), b: signature(fb) }] };
    const diffs = differences(normalize(messageOf(fa)), normalize(messageOf(fb)));
    if (fa.valid !== fb.valid) diffs.push({ path: "(validation)", a: fa.valid ? "valid" : "invalid", b: fb.valid ? "valid" : "invalid" });
    return { change: diffs.length ? "changed" : "same", a: fa, b: fb, diffs };
  });
}

const short = (v) => { const s = typeof v === "string" ? v : JSON.stringify(v); return s === undefined ? "(absent)" : s.length > 80 ? `${s.slice(0, 77)}…` : s; };

/** isConnected() tells whether a live connection owns the timeline; load(rec, name) shows a recording in it. */
export function createRecordings(root, { load, isConnected }) {
  const loadInput = h("input", { type: "file", accept: "application/json,.json", id: "recording-load", "data-testid": "recording-load", onchange: loadFile });
  const loadStatus = h("output", { id: "recording-status", "data-testid": "recording-status", class: "muted small" });
  const fileA = h("input", { type: "file", accept: "application/json,.json", id: "diff-a", "data-testid": "diff-a", onchange: compare });
  const fileB = h("input", { type: "file", accept: "application/json,.json", id: "diff-b", "data-testid": "diff-b", onchange: compare });
  const hideSame = h("input", { type: "checkbox", id: "diff-hide-same", checked: true, onchange: () => { out.classList.toggle("hide-same", hideSame.checked); } });
  const out = h("div", { id: "recording-diff", "data-testid": "recording-diff", class: "recording-diff hide-same" });
  replace(root,
    h("p", { class: "field-hint" }, "Export recording (in the timeline) saves every frame with its time, validation and the negotiated version. Load one back to inspect it offline, or compare two."),
    h("div", { class: "stack" },
      h("label", { class: "field" }, h("span", { class: "field-label" }, "Load a recording into the timeline"), loadInput), loadStatus,
      h("div", { class: "grid-2" },
        h("label", { class: "field" }, h("span", { class: "field-label" }, "Recording A"), fileA),
        h("label", { class: "field" }, h("span", { class: "field-label" }, "Recording B"), fileB)),
      h("label", { class: "check" }, hideSame, "hide frames that are the same"),
      out));

  const read = (input) => input.files?.[0]?.text().then((text) => ({ name: input.files[0].name, rec: parseRecording(text) }));

  async function loadFile() {
    const got = await read(loadInput);
    loadInput.value = "";
    if (!got) return;
    if (isConnected()) { loadStatus.textContent = "disconnect first: the timeline shows the live connection"; return; }
    if (got.rec instanceof Error) { loadStatus.textContent = `${got.name}: ${got.rec.message}`; return; }
    load(got.rec, got.name);
    loadStatus.textContent = `${got.name}: ${got.rec.frames.length} frames, ${got.rec.protocol?.toUpperCase() ?? "?"} ${got.rec.negotiatedVersion ?? "?"}${got.rec.agent ? ` with ${got.rec.agent}` : ""}`;
  }

  async function compare() {
    const [A, B] = await Promise.all([read(fileA), read(fileB)]);
    if (!A || !B) { replace(out, h("p", { class: "muted small" }, "Pick both recordings.")); return; }
    for (const x of [A, B]) if (x.rec instanceof Error) { replace(out, h("p", { class: "bad-text" }, `${x.name}: ${x.rec.message}`)); return; }
    const rows = diffRecordings(A.rec, B.rec);
    const count = (c) => rows.filter((r) => r.change === c).length;
    const side = (x, label) => h("li", {}, h("strong", {}, `${label}: `), x.name, " · ", `${x.rec.agent ?? "?"} · ${x.rec.protocol?.toUpperCase() ?? "?"} ${x.rec.negotiatedVersion ?? "?"} · ${x.rec.frames.length} frames`);
    replace(out,
      h("ul", { class: "small" }, side(A, "A"), side(B, "B")),
      h("p", { "data-testid": "diff-summary" }, `${count("same")} same, ${count("changed")} changed, ${count("removed")} only in A, ${count("added")} only in B`),
      h("table", { class: "matrix diff-table" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, ""), h("th", { scope: "col" }, "A"), h("th", { scope: "col" }, "B"))),
        // Each frame pair, and under a changed one what differs (JSON pointer: A → B).
        rows.map((r) => h("tbody", { "data-testid": "diff-row", "data-change": r.change, class: `diff-${r.change}` },
          h("tr", {},
            h("td", {}, { same: "=", changed: "≠", removed: "−", added: "+" }[r.change]),
            h("td", {}, r.a ? frameCell(r.a) : ""),
            h("td", {}, r.b ? frameCell(r.b) : "")),
          r.diffs?.length ? h("tr", { class: "diff-detail" }, h("td", {}),
            h("td", { colspan: "2", class: "small", "data-testid": "diff-detail" }, r.diffs.map((d) => h("div", {}, h("code", {}, d.path), ` ${short(d.a)} → ${short(d.b)}`)))) : null))));
    out.classList.toggle("hide-same", hideSame.checked);
  }

  function frameCell(f) {
    return h("span", {}, f.direction === "out" ? "→ " : "← ", h("code", {}, f.method ?? (f.inReplyTo ? `↳ ${f.inReplyTo}` : f.kind)),
      f.update ? h("span", { class: "badge" }, f.update) : null, f.latencyMs != null ? h("span", { class: "muted small" }, ` ${f.latencyMs} ms`) : null,
      f.valid === false ? h("span", { class: "badge bad" }, "invalid") : null);
  }

  return {};
}
