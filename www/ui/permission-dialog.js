// session/request_permission answered in a <dialog>: one button per option the agent offers.
// Requests queue up; a cancelled prompt turn answers every open one with "cancelled".
import { h, replace } from "../lib/dom.js";
import { contentSummary } from "./content.js";

export function createPermissionDialog(root) {
  const title = h("h2", { id: "permission-title" }, "Permission requested");
  const detail = h("div", { id: "permission-detail", class: "stack" });
  const options = h("div", { id: "permission-options", class: "row wrap" });
  const dismiss = h("button", { type: "button", id: "permission-cancel", "data-testid": "permission-cancel", onclick: () => answer({ outcome: "cancelled" }) }, "Dismiss (cancelled)");
  const dialog = h("dialog", { id: "permission-dialog", "data-testid": "permission-dialog", "aria-labelledby": "permission-title" },
    h("form", { method: "dialog", class: "stack" }, title, detail, options, h("div", { class: "row end" }, dismiss)));
  dialog.addEventListener("cancel", (e) => { e.preventDefault(); answer({ outcome: "cancelled" }); });
  replace(root, dialog);

  const queue = [];
  let active = null;

  function ask(params) {
    return new Promise((resolve) => {
      queue.push({ params, resolve });
      if (!active) next();
    });
  }

  function next() {
    active = queue.shift() ?? null;
    if (!active) { if (dialog.open) dialog.close(); return; }
    const { toolCall = {}, options: opts = [] } = active.params ?? {};
    title.textContent = `Allow ${toolCall.title ?? toolCall.kind ?? "this tool call"}?`;
    replace(detail,
      h("p", { class: "muted" }, `tool call ${toolCall.toolCallId ?? "?"}${toolCall.kind ? ` · ${toolCall.kind}` : ""}${toolCall.status ? ` · ${toolCall.status}` : ""}`),
      (toolCall.content ?? []).map(contentSummary),
      toolCall.locations?.length ? h("p", {}, "Locations: ", toolCall.locations.map((l) => h("code", {}, `${l.path}${l.line != null ? `:${l.line}` : ""} `))) : null,
      toolCall.rawInput !== undefined ? h("details", {}, h("summary", {}, "raw input"), h("pre", { class: "json small" }, JSON.stringify(toolCall.rawInput, null, 2))) : null);
    replace(options, opts.map((o) => h("button", {
      type: "button", class: `option ${String(o.kind ?? "").startsWith("allow") ? "primary" : "danger"}`,
      "data-testid": "permission-option", "data-option-id": o.optionId, "data-kind": o.kind ?? "",
      onclick: () => answer({ outcome: "selected", optionId: o.optionId }),
    }, o.name ?? o.optionId, h("span", { class: "muted small" }, ` ${o.kind ?? ""}`))));
    if (!dialog.open) dialog.showModal();
    options.querySelector("button")?.focus();
  }

  function answer(outcome) {
    if (!active) return;
    active.resolve({ outcome });
    next();
  }

  /** Answer everything open with "cancelled" (after session/cancel, as the spec requires). */
  function cancelAll() {
    const open = [active, ...queue.splice(0)].filter(Boolean);
    active = null;
    for (const item of open) item.resolve({ outcome: { outcome: "cancelled" } });
    if (dialog.open) dialog.close();
  }

  return { ask, cancelAll };
}
