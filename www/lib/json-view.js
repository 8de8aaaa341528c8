// Pretty-printed JSON as DOM, each value tagged with its JSON pointer so validation issues
// can be marked where they apply.
import { h } from "./dom.js";

const escapeToken = (key) => String(key).replaceAll("~", "~0").replaceAll("/", "~1");

/**
 * Render `value` as indented JSON. `issues` ([{ path, message, severity }]) are attached to the
 * deepest existing node on their path (a missing property marks its parent).
 */
export function jsonView(value, issues = []) {
  const nodes = new Map();
  const root = h("pre", { class: "json" }, render(value, "", 0, nodes));
  for (const issue of issues) {
    const node = nearest(nodes, issue.path ?? "");
    if (!node) continue;
    // A container is marked at its opening bracket, a scalar as a whole; the message follows.
    const target = node.firstElementChild?.classList.contains("json-open") ? node.firstElementChild : node;
    const kind = issue.severity === "warning" ? "json-warning" : "json-error";
    target.classList.add("json-issue", kind);
    target.title = target.title ? `${target.title}\n${issue.message}` : issue.message;
    node.dataset.issuePath = issue.path ?? "";
    target.after(h("span", { class: `json-note ${kind}`, "data-testid": "json-issue" }, ` ◀ ${issue.path || "/"}: ${issue.message}`));
  }
  return root;
}

function nearest(nodes, path) {
  let p = path;
  for (;;) {
    if (nodes.has(p)) return nodes.get(p);
    if (p === "") return null;
    p = p.slice(0, p.lastIndexOf("/"));
  }
}

function render(value, pointer, depth, nodes) {
  const pad = "  ".repeat(depth + 1);
  const close = "  ".repeat(depth);
  let node;
  if (Array.isArray(value)) {
    if (value.length === 0) node = h("span", { class: "json-punct" }, "[]");
    else {
      const parts = [h("span", { class: "json-open" }, "[")];
      value.forEach((item, i) => {
        parts.push("\n", pad, render(item, `${pointer}/${i}`, depth + 1, nodes), i < value.length - 1 ? "," : "");
      });
      parts.push("\n", close, "]");
      node = h("span", {}, parts);
    }
  } else if (value !== null && typeof value === "object") {
    const keys = Object.keys(value);
    if (keys.length === 0) node = h("span", { class: "json-punct" }, "{}");
    else {
      const parts = [h("span", { class: "json-open" }, "{")];
      keys.forEach((key, i) => {
        parts.push("\n", pad, h("span", { class: "json-key" }, JSON.stringify(key)), ": ",
          render(value[key], `${pointer}/${escapeToken(key)}`, depth + 1, nodes),
          i < keys.length - 1 ? "," : "");
      });
      parts.push("\n", close, "}");
      node = h("span", {}, parts);
    }
  } else {
    const kind = value === null ? "null" : typeof value;
    node = h("span", { class: `json-${kind}` }, JSON.stringify(value));
  }
  node.dataset.pointer = pointer;
  nodes.set(pointer, node);
  return node;
}

/** JSON.parse that returns undefined instead of throwing. */
export function tryParse(text) {
  try { return JSON.parse(text); } catch { return undefined; }
}
