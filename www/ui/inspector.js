// JSON inspector: one frame pretty-printed, validation issues listed and marked at their path.
import { h, replace, formatTime } from "../lib/dom.js";
import { jsonView } from "../lib/json-view.js";

export function createInspector(root) {
  const body = h("div", { id: "inspector", "data-testid": "inspector", class: "inspector", tabindex: "-1" });
  replace(root, body);
  show(null);

  function show(entry, issues = entry ? entry.issues : []) {
    if (!entry) {
      replace(body, h("p", { class: "muted" }, "Select a frame in the timeline to see its JSON."));
      return;
    }
    const view = entry.message === undefined
      ? h("pre", { class: "json" }, entry.text)
      : jsonView(entry.message, issues);
    const issueList = issues.length === 0
      ? h("p", { class: "ok-text", "data-testid": "inspector-valid" }, "No validation issues.")
      : h("ul", { class: "issues", "data-testid": "inspector-issues" }, issues.map((issue) =>
        h("li", { class: issue.severity === "warning" ? "warn" : "bad" },
          h("button", { type: "button", class: "link", onclick: () => reveal(view, issue.path ?? "") }, h("code", {}, issue.path || "/")),
          " ", issue.code ? h("span", { class: "muted" }, `[${issue.code}] `) : null, issue.message)));
    replace(body,
      h("header", { class: "inspector-head" },
        h("strong", {}, `${entry.direction === "out" ? "→ sent" : "← received"} ${entry.method ?? (entry.inReplyTo ? `response to ${entry.inReplyTo}` : entry.kind)}`),
        h("span", { class: "muted" }, ` ${entry.id != null ? `id ${entry.id} · ` : ""}${formatTime(entry.time)}${entry.latencyMs != null ? ` · ${entry.latencyMs} ms` : ""}`)),
      entry.http ? httpLine(entry.http) : null,
      entry.message === undefined ? h("p", { class: "bad-text" }, "Not valid JSON.") : null,
      issueList, view);
  }

  /** Streamable HTTP: what carried the frame. */
  function httpLine(http) {
    const facts = [`${http.method}${http.status ? ` ${http.status}` : ""}`, `stream ${http.stream}`,
      http.eventId ? `event ${http.eventId}` : null, http.sessionId ? `session ${http.sessionId}` : null].filter(Boolean);
    return h("p", { class: "muted", "data-testid": "inspector-http" }, `HTTP: ${facts.join(" · ")}`,
      http.synthesized ? h("span", { class: "bad-text" }, " — made by agentwire: the HTTP exchange failed to answer this request") : null);
  }

  function reveal(view, path) {
    let p = path;
    let node = null;
    while (!(node = view.querySelector(`[data-pointer="${CSS.escape(p)}"]`)) && p) p = p.slice(0, p.lastIndexOf("/"));
    if (!node) return;
    node.scrollIntoView({ block: "center" });
    node.classList.remove("flash"); void node.offsetWidth; node.classList.add("flash");
  }

  return { show };
}
