// Live transcript of an ACP session built from session/update: messages and thoughts (chunks
// merged), tool calls with their status changes, the plan, and session info.
import { h, replace, append, followEnd, formatTime } from "../lib/dom.js";
import { contentBlock, contentSummary } from "./content.js";

const ROLES = {
  user_message_chunk: "user", agent_message_chunk: "agent", agent_thought_chunk: "thought",
  user_message: "user", agent_message: "agent", agent_thought: "thought",
};
const PLAN_ICON = { pending: "○", in_progress: "◐", completed: "●" };

export function createTranscript(root) {
  const list = h("ol", { id: "transcript", "data-testid": "transcript", class: "transcript", "aria-live": "polite", "aria-label": "Transcript" });
  const info = h("div", { id: "session-info", class: "session-info muted" });
  const scroller = h("div", { class: "transcript-scroll" }, list);
  replace(root, info, scroller);
  followEnd(scroller, list);

  let last = null;                 // the message item chunks append to
  let messages = new Map();        // messageId -> message item
  let toolCalls = new Map();       // toolCallId -> { el, data, history }
  let plans = new Map();           // planId ("" for v1's single plan) -> item
  let sessionInfo = {};
  let localPrompt = null;          // the prompt as sent, until the agent echoes it (v2 user_message)

  function reset(note) {
    list.replaceChildren();
    last = null; messages = new Map(); toolCalls = new Map(); plans = new Map(); sessionInfo = {}; localPrompt = null;
    info.replaceChildren();
    if (note) system(note);
  }

  function add(el) {
    list.append(el);
    return el;
  }

  function system(text, kind = "") {
    return addNote(text, kind);
  }

  function addNote(text, kind) {
    last = null;
    return add(h("li", { class: `system ${kind}`, "data-testid": "transcript-note" }, text));
  }

  function newMessage(role, messageId) {
    const body = h("div", { class: "body" });
    const el = add(h("li", { class: `message ${role}`, "data-testid": `transcript-${role}`, "data-message-id": messageId ?? "" },
      h("span", { class: "who" }, role === "thought" ? "agent thought" : role), body));
    const item = { role, messageId, el, body, textNode: null };
    if (messageId != null) messages.set(messageId, item);
    return item;
  }

  function appendBlock(item, block) {
    if (block?.type === "text" && item.textNode) item.textNode.append(block.text ?? "");
    else {
      const node = contentBlock(block);
      item.body.append(node);
      item.textNode = block?.type === "text" ? node : null;
    }
  }

  /** The user's own prompt, shown as soon as it is sent. */
  function userPrompt(blocks) {
    showPrompt(blocks);
  }

  function showPrompt(blocks) {
    const item = newMessage("user");
    item.el.classList.add("local");
    for (const b of blocks) appendBlock(item, b);
    localPrompt = item;
    last = null;
  }

  /**
   * An agent that echoes the prompt (v2 `user_message`, or user chunks during the turn) takes
   * over the item shown when it was sent, instead of showing the prompt twice.
   */
  function adoptLocalPrompt(role, messageId) {
    if (role !== "user" || !localPrompt || (messageId != null && messages.has(messageId))) return null;
    const item = localPrompt;
    localPrompt = null;
    item.messageId = messageId;
    item.el.dataset.messageId = messageId ?? "";
    item.el.classList.remove("local");
    item.body.replaceChildren(); item.textNode = null;
    if (messageId != null) messages.set(messageId, item);
    return item;
  }

  function chunk(role, u) {
    const id = u.messageId ?? null;
    let item = id != null ? messages.get(id) : null;
    if (!item && last && last.role === role && (id == null || last.messageId == null)) item = last;
    if (!item) item = adoptLocalPrompt(role, id) ?? newMessage(role, id);
    appendBlock(item, u.content);
    last = item;
  }

  /** v2 upsert: `content` (when present) replaces the message's content. */
  function upsert(role, u) {
    const item = messages.get(u.messageId) ?? adoptLocalPrompt(role, u.messageId) ?? newMessage(role, u.messageId);
    if ("content" in u) {
      item.body.replaceChildren(); item.textNode = null;
      for (const b of u.content ?? []) appendBlock(item, b);
    }
    last = item;
  }

  function toolCall(u, isUpdate) {
    let tc = toolCalls.get(u.toolCallId);
    if (!tc) {
      const el = add(h("li", { class: "tool-call", "data-testid": "tool-call", "data-tool-call-id": u.toolCallId ?? "" }));
      tc = { el, data: {}, history: [] };
      toolCalls.set(u.toolCallId, tc);
    }
    const previous = tc.data.status;
    for (const [k, v] of Object.entries(u)) if (k !== "sessionUpdate" && v !== undefined) tc.data[k] = v;
    if (!isUpdate && !tc.data.status) tc.data.status = "pending";
    if (tc.data.status !== previous) tc.history.push({ status: tc.data.status, time: Date.now() });
    renderToolCall(tc);
    last = null;
  }

  function renderToolCall({ el, data, history }) {
    el.dataset.status = data.status ?? "";
    replace(el,
      h("div", { class: "tool-head" },
        h("span", { class: `status ${data.status ?? ""}`, "data-testid": "tool-call-status" }, data.status ?? "?"),
        h("strong", {}, data.title ?? "tool call"),
        data.kind ? h("span", { class: "badge" }, data.kind) : null,
        h("span", { class: "muted small" }, ` ${data.toolCallId ?? ""}`)),
      h("p", { class: "history muted small" }, history.map((s, i) => `${i ? " → " : ""}${s.status} ${formatTime(s.time)}`).join("")),
      (data.content ?? []).map(contentSummary),
      data.locations?.length ? h("p", { class: "small" }, "at ", data.locations.map((l) => h("code", {}, `${l.path}${l.line != null ? `:${l.line}` : ""} `))) : null,
      data.rawInput !== undefined ? h("details", {}, h("summary", {}, "raw input"), h("pre", { class: "json small" }, JSON.stringify(data.rawInput, null, 2))) : null,
      data.rawOutput !== undefined ? h("details", {}, h("summary", {}, "raw output"), h("pre", { class: "json small" }, JSON.stringify(data.rawOutput, null, 2))) : null);
  }

  /** v1 `plan {entries}`, or v2 `plan_update {plan: {type, planId, …}}`: each plan updated in place. */
  function renderPlan(planId, entries, other) {
    let item = plans.get(planId);
    if (!item) { item = add(h("li", { class: "plan", "data-testid": "plan", "data-plan-id": planId })); plans.set(planId, item); }
    replace(item, h("strong", {}, "Plan"),
      other ? h("details", {}, h("summary", {}, `${other.type ?? "unknown"} plan`), h("pre", { class: "json small" }, JSON.stringify(other, null, 2)))
        : h("ol", {}, (entries ?? []).map((e) => h("li", { class: `plan-entry ${e.status ?? ""}`, "data-status": e.status ?? "" },
          h("span", { class: "plan-icon", "aria-label": e.status ?? "" }, PLAN_ICON[e.status] ?? "·"), " ", e.content ?? "",
          e.priority ? h("span", { class: "badge" }, e.priority) : null))));
    last = null;
  }

  function renderInfo() {
    const parts = [];
    if (sessionInfo.title) parts.push(h("span", {}, "title: ", h("strong", {}, sessionInfo.title)));
    if (sessionInfo.mode) parts.push(h("span", {}, "mode: ", h("code", {}, sessionInfo.mode)));
    if (sessionInfo.commands) parts.push(h("span", { title: sessionInfo.commands.map((c) => `/${c.name} — ${c.description ?? ""}`).join("\n") }, `${sessionInfo.commands.length} commands`));
    if (sessionInfo.usage) parts.push(h("span", {}, `usage: ${sessionInfo.usage}`));
    if (sessionInfo.state) parts.push(h("span", { "data-testid": "session-state", "data-state": sessionInfo.state.state }, "state: ", h("code", {}, sessionInfo.state.label)));
    replace(info, parts.map((p, i) => [i ? " · " : "", p]));
  }

  /** One `update` object of a session/update notification. */
  function update(u) {
    if (u && typeof u === "object") apply(u);
  }

  function apply(u) {
    const type = u.sessionUpdate;
    switch (type) {
      case "user_message_chunk": case "agent_message_chunk": case "agent_thought_chunk": chunk(ROLES[type], u); break;
      case "user_message": case "agent_message": case "agent_thought": upsert(ROLES[type], u); break;
      case "tool_call": toolCall(u, false); break;
      case "tool_call_update": toolCall(u, true); break;
      case "plan": renderPlan("", u.entries); break;
      case "plan_update": {
        const p = u.plan ?? {};
        renderPlan(String(p.planId ?? ""), p.entries, p.type === "items" ? null : p);
        break;
      }
      case "tool_call_content_chunk": toolCall({ toolCallId: u.toolCallId, content: [...(toolCalls.get(u.toolCallId)?.data.content ?? []), u.content] }, true); break;
      case "available_commands_update": sessionInfo.commands = u.availableCommands ?? []; renderInfo(); break;
      case "current_mode_update": sessionInfo.mode = u.currentModeId ?? u.modeId; renderInfo(); system(`mode changed to ${sessionInfo.mode}`); break;
      case "session_info_update": if (u.title !== undefined) sessionInfo.title = u.title; renderInfo(); break;
      case "usage_update": sessionInfo.usage = `${u.used ?? "?"} / ${u.size ?? "?"}${u.cost ? ` · ${u.cost.amount} ${u.cost.currency}` : ""}`; renderInfo(); break;
      case "config_option_update": system(`config options updated (${(u.configOptions ?? []).length})`); break;
      case "state_update": {
        // v2: running / idle {stopReason} / requires_action, or a future state.
        const state = String(u.state ?? "unknown").replace(/_/g, " ");
        sessionInfo.state = { state: u.state ?? "", label: u.stopReason ? `${state} (${u.stopReason})` : state };
        renderInfo();
        break;
      }
      default: {
        last = null;
        add(h("li", { class: "system" }, h("details", {}, h("summary", {}, `update: ${type ?? "unknown"}`), h("pre", { class: "json small" }, JSON.stringify(u, null, 2)))));
      }
    }
  }

  function stopped(stopReason) { localPrompt = null; system(`turn ended: ${stopReason}`, stopReason === "cancelled" ? "warn" : ""); }
  function error(text) { localPrompt = null; system(text, "bad"); }
  /** What the transcript knows about a tool call (for permission requests that carry only its id). */
  function toolCallData(id) { return toolCalls.get(id)?.data; }

  return { reset, update, userPrompt, stopped, error, toolCallData, note: (t) => system(t), append: (el) => append(list, [el]) };
}
