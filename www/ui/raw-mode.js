// Raw mode: write any JSON-RPC message by hand. It is validated first; a message with issues is
// sent only after an explicit confirmation step.
import { h, replace } from "../lib/dom.js";
import { jsonView, tryParse } from "../lib/json-view.js";

const TEMPLATES = {
  acp: {
    "ping-like request": { jsonrpc: "2.0", id: "raw-1", method: "session/list", params: {} },
    "session/new without cwd": { jsonrpc: "2.0", id: "raw-2", method: "session/new", params: { mcpServers: [] } },
    "unknown method": { jsonrpc: "2.0", id: "raw-3", method: "does/not_exist", params: {} },
    "extension notification": { jsonrpc: "2.0", method: "_playground/hello", params: { from: "raw mode" } },
  },
  mcp: {
    ping: { jsonrpc: "2.0", id: "raw-1", method: "ping" },
    "tools/call with a bad name": { jsonrpc: "2.0", id: "raw-2", method: "tools/call", params: { name: 42 } },
    "unknown method": { jsonrpc: "2.0", id: "raw-3", method: "does/not_exist", params: {} },
    "roots changed": { jsonrpc: "2.0", method: "notifications/roots/list_changed" },
  },
};

/** validate(text) -> { ok, issues }; send(text) puts it on the wire (throws when not connected). */
export function createRawMode(root, { validate, send, protocol }) {
  const template = h("select", { id: "raw-template", "aria-label": "Start from a template", onchange: useTemplate });
  const input = h("textarea", { id: "raw-input", "data-testid": "raw-input", rows: "7", spellcheck: "false", oninput: () => reset() });
  const validateBtn = h("button", { type: "button", id: "raw-validate", "data-testid": "raw-validate", onclick: check }, "Validate");
  const sendBtn = h("button", { type: "button", id: "raw-send", "data-testid": "raw-send", class: "primary", onclick: trySend }, "Send");
  const report = h("div", { id: "raw-issues", "data-testid": "raw-issues", "aria-live": "polite" });
  const confirmBtn = h("button", { type: "button", id: "raw-confirm", "data-testid": "raw-confirm", class: "danger", onclick: () => { confirmBox.hidden = true; doSend(); } }, "Send anyway");
  const abortBtn = h("button", { type: "button", id: "raw-abort", "data-testid": "raw-abort", onclick: () => { confirmBox.hidden = true; status.textContent = "not sent"; } }, "Don't send");
  const confirmBox = h("div", { id: "raw-confirm-box", class: "confirm", role: "alertdialog", "aria-labelledby": "raw-confirm-text", hidden: true },
    h("p", { id: "raw-confirm-text" }, "This message does not validate. Send it anyway?"), h("div", { class: "row" }, confirmBtn, abortBtn));
  const status = h("output", { id: "raw-status", class: "muted" });
  replace(root, h("div", { class: "stack" },
    h("div", { class: "row" }, h("label", { for: "raw-template", class: "field-label" }, "Template"), template),
    h("label", { for: "raw-input", class: "field-label" }, "Message (client → agent/server)"), input,
    h("div", { class: "row" }, validateBtn, sendBtn, status), confirmBox, report));
  setProtocol(protocol);

  function setProtocol(p) {
    replace(template, h("option", { value: "" }, "—"), Object.keys(TEMPLATES[p] ?? {}).map((k) => h("option", { value: k }, k)));
    template.dataset.protocol = p;
  }

  function useTemplate() {
    const t = TEMPLATES[template.dataset.protocol]?.[template.value];
    if (t) input.value = JSON.stringify(t, null, 2);
    reset();
  }

  function reset() { confirmBox.hidden = true; status.textContent = ""; report.replaceChildren(); }

  function check() {
    const text = input.value;
    const message = tryParse(text);
    let result;
    if (message === undefined) result = { ok: false, issues: [{ path: "", code: "parse", message: "not valid JSON", severity: "error" }] };
    else {
      try { result = validate(text) ?? { ok: true, issues: [], unchecked: true }; } catch (err) { result = { ok: false, issues: [{ path: "", code: "validator", message: err.message, severity: "error" }] }; }
    }
    const errors = (result.issues ?? []).filter((i) => i.severity !== "warning");
    replace(report,
      result.unchecked ? h("p", { class: "muted" }, "Connect to validate against the negotiated version.")
        : errors.length === 0 ? h("p", { class: "ok-text", "data-testid": "raw-valid" }, result.issues?.length ? `valid, with ${result.issues.length} warning(s)` : "valid")
        : h("p", { class: "bad-text" }, `${errors.length} issue(s)`),
      result.issues?.length ? h("ul", { class: "issues" }, result.issues.map((i) => h("li", { class: i.severity === "warning" ? "warn" : "bad" }, h("code", {}, i.path || "/"), " ", i.message))) : null,
      message !== undefined && result.issues?.length ? jsonView(message, result.issues) : null);
    return { ok: errors.length === 0 && !result.unchecked, result };
  }

  function trySend() {
    const { ok } = check();
    if (ok) doSend();
    else { confirmBox.hidden = false; confirmBtn.focus(); }
  }

  function doSend() {
    try { send(input.value); status.textContent = "sent"; } catch (err) { status.textContent = `not sent: ${err.message}`; }
  }

  return { setProtocol };
}
