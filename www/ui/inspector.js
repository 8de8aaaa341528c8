// JSON inspector: one frame pretty-printed, validation issues listed and marked at their path.
import { h, replace, formatTime } from "../lib/dom.js";
import { jsonView } from "../lib/json-view.js";

/**
 * specOf(entry) -> { url, purpose } | null: where the specification describes the frame's method.
 * onJump(entry) selects another frame (a request's response, a response's request).
 */
export function createInspector(root, { specOf = () => null, onJump = () => {} } = {}) {
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
      specLine(entry),
      pairLine(entry),
      entry.http ? httpLine(entry.http) : null,
      entry.message === undefined ? h("p", { class: "bad-text" }, "Not valid JSON.") : null,
      issueList, view);
  }

  /** The method's purpose and its section of the specification. */
  function specLine(entry) {
    const spec = specOf(entry);
    const method = entry.method ?? entry.inReplyTo;
    if (!spec) return method ? h("p", { class: "muted small", "data-testid": "inspector-spec" }, `${method}: not a method of the specification (an extension?)`) : null;
    return h("p", { class: "small", "data-testid": "inspector-spec" },
      h("a", { href: spec.url, target: "_blank", rel: "noopener noreferrer" }, h("code", {}, method)),
      entry.update ? h("span", { class: "badge" }, entry.update) : null, " — ", spec.purpose);
  }

  /** A request and its response: each names the other, with the latency between them. */
  function pairLine(entry) {
    const jump = (other, text) => h("button", { type: "button", class: "link", "data-testid": "inspector-pair-jump", onclick: () => onJump(other) }, text);
    if (entry.kind === "request") {
      if (entry.response) {
        return h("p", { class: "small", "data-testid": "inspector-pair" }, "answered ",
          jump(entry.response, `${entry.response.kind === "error" ? "with an error" : "by its response"} (frame ${entry.response.seq + 1})`),
          ` in ${entry.response.latencyMs} ms`);
      }
      return h("p", { class: "small muted", "data-testid": "inspector-pair" }, entry.cancelled ? "cancelled; no answer" : "no answer yet");
    }
    if (entry.request) {
      return h("p", { class: "small", "data-testid": "inspector-pair" }, "answers ",
        jump(entry.request, `the ${entry.request.method} request (frame ${entry.request.seq + 1})`), ` after ${entry.latencyMs} ms`);
    }
    return null;
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
