// session/request_permission answered in a <dialog>: one button per option the agent offers.
// Requests queue up; a cancelled prompt turn answers every open one with "cancelled".
import { h, replace } from "../lib/dom.js";
import { contentSummary } from "./content.js";

/**
 * What a request asks about, in either version. v1: `{ toolCall, options }`. v2: `{ title,
 * description?, subject?: { type: "tool_call", toolCall } | { type: "command", command, cwd } | …,
 * options }`, where the tool call may carry only its id: the rest comes from `known(id)`.
 */
export function describeRequest(params, known = () => undefined) {
  const p = params ?? {};
  const subject = p.subject ?? (p.toolCall ? { type: "tool_call", toolCall: p.toolCall } : null);
  let toolCall = null;
  if (subject?.type === "tool_call") {
    const own = subject.toolCall ?? {};
    toolCall = { ...(known(own.toolCallId) ?? {}) };
    for (const [k, v] of Object.entries(own)) if (v !== undefined && v !== null) toolCall[k] = v;
  }
  const name = toolCall?.title ?? toolCall?.kind ?? (subject?.type === "command" ? subject.command : null);
  const title = typeof p.title === "string" && p.title ? p.title : `Allow ${name ?? "this operation"}?`;
  return { title, description: typeof p.description === "string" ? p.description : null, subject, toolCall, options: Array.isArray(p.options) ? p.options : [] };
}

export function createPermissionDialog(root, { toolCallData } = {}) {
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
    const { title: heading, description, subject, toolCall, options: opts } = describeRequest(active.params, (id) => toolCallData?.(id));
    title.textContent = heading;
    replace(detail,
      description ? h("p", {}, description) : null,
      toolCall ? toolCallDetail(toolCall) : null,
      subject?.type === "command" ? h("p", {}, "Run ", h("code", {}, subject.command ?? ""), subject.cwd ? [" in ", h("code", {}, subject.cwd)] : null) : null,
      subject && subject.type !== "tool_call" && subject.type !== "command"
        ? h("details", {}, h("summary", {}, `subject: ${subject.type ?? "unknown"}`), h("pre", { class: "json small" }, JSON.stringify(subject, null, 2))) : null);
    replace(options, opts.map((o) => h("button", {
      type: "button", class: `option ${String(o.kind ?? "").startsWith("allow") ? "primary" : "danger"}`,
      "data-testid": "permission-option", "data-option-id": o.optionId, "data-kind": o.kind ?? "",
      onclick: () => answer({ outcome: "selected", optionId: o.optionId }),
    }, o.name ?? o.optionId, h("span", { class: "muted small" }, ` ${o.kind ?? ""}`))));
    if (!dialog.open) dialog.showModal();
    options.querySelector("button")?.focus();
  }

  function toolCallDetail(toolCall) {
    return [
      h("p", { class: "muted", "data-testid": "permission-tool-call" },
        h("strong", {}, toolCall.title ?? "tool call"), ` · ${toolCall.toolCallId ?? "no id"}${toolCall.kind ? ` · ${toolCall.kind}` : ""}${toolCall.status ? ` · ${toolCall.status}` : ""}`),
      (toolCall.content ?? []).map(contentSummary),
      toolCall.locations?.length ? h("p", {}, "Locations: ", toolCall.locations.map((l) => h("code", {}, `${l.path}${l.line != null ? `:${l.line}` : ""} `))) : null,
      toolCall.rawInput !== undefined ? h("details", {}, h("summary", {}, "raw input"), h("pre", { class: "json small" }, JSON.stringify(toolCall.rawInput, null, 2))) : null,
    ];
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
