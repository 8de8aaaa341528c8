// MCP flows after initialize: tools (list, call with a JSON arguments editor pre-filled from the
// inputSchema, cancel, timeout), resources (list, read, subscribe), prompts (list, get),
// logging level, ping; every notification, timeout and cancellation in an event log.
import { h, replace, field, setEnabled, describeError, formatTime } from "../lib/dom.js";
import { gate } from "../lib/caps.js";
import { tryParse } from "../lib/json-view.js";
import { skeleton } from "../lib/schema-skeleton.js";
import { contentBlock } from "./content.js";

const LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
const TIMEOUT = -32001;

export function createMcpPanel(root, { banner }) {
  let client = null;
  let selectedTool = null;
  let selectedPrompt = null;
  let callAbort = null;
  const gated = [];   // [button, methods...] re-evaluated on connect

  const btn = (id, label, onclick, ...methods) => {
    const b = h("button", { type: "button", id, "data-testid": id, onclick }, label);
    if (methods.length) gated.push([b, methods]);
    return b;
  };

  // tools
  const toolList = h("ul", { id: "mcp-tool-list", "data-testid": "mcp-tool-list", class: "picker" });
  const toolName = h("output", { id: "mcp-tool-name", class: "mono" }, "no tool selected");
  const toolArgs = h("textarea", { id: "mcp-tool-args", "data-testid": "mcp-tool-args", rows: "6", spellcheck: "false", oninput: refresh, "aria-describedby": "mcp-tool-args-error" });
  const argsError = h("span", { id: "mcp-tool-args-error", class: "field-error", "aria-live": "polite" });
  const callTimeout = h("input", { id: "mcp-call-timeout", "data-testid": "mcp-call-timeout", type: "number", min: "1", step: "100", value: "30000" });
  const callBtn = btn("mcp-call-tool", "Call tool", callTool);
  callBtn.classList.add("primary");
  const cancelCallBtn = btn("mcp-cancel-call", "Cancel call", () => callAbort?.abort());
  cancelCallBtn.classList.add("danger");
  const progress = h("progress", { id: "mcp-call-progress", hidden: true, "aria-label": "Tool call progress" });
  const toolResult = h("div", { id: "mcp-tool-result", "data-testid": "mcp-tool-result", class: "result", "aria-live": "polite" });

  // resources and prompts
  const resourceList = h("ul", { id: "mcp-resource-list", "data-testid": "mcp-resource-list", class: "picker" });
  const resourceResult = h("div", { id: "mcp-resource-result", class: "result" });
  const promptList = h("ul", { id: "mcp-prompt-list", "data-testid": "mcp-prompt-list", class: "picker" });
  const promptArgs = h("div", { id: "mcp-prompt-args", class: "stack" });
  const promptGetBtn = btn("mcp-get-prompt", "Get prompt", getPrompt, "prompts/get");
  const promptResult = h("div", { id: "mcp-prompt-result", "data-testid": "mcp-prompt-result", class: "result" });

  // misc
  const level = h("select", { id: "mcp-log-level", "data-testid": "mcp-log-level", "aria-label": "Logging level" }, LEVELS.map((l) => h("option", { value: l, selected: l === "info" }, l)));
  const events = h("ol", { id: "mcp-events", "data-testid": "mcp-events", class: "events", "aria-live": "polite" });

  replace(root,
    h("div", { class: "row wrap" },
      btn("mcp-ping", "Ping", ping, "ping"),
      h("span", { class: "row" }, level, btn("mcp-set-level", "Set log level", setLevel, "logging/setLevel"))),
    h("section", { class: "sub", "aria-labelledby": "mcp-tools-h" },
      h("h3", { id: "mcp-tools-h" }, "Tools ", btn("mcp-list-tools", "List tools", listTools, "tools/list")),
      h("div", { class: "split" }, toolList,
        h("div", { class: "stack" },
          h("div", { class: "row baseline" }, h("span", { class: "field-label" }, "Tool"), toolName),
          h("label", { for: "mcp-tool-args", class: "field-label" }, "Arguments (JSON)"), toolArgs, argsError,
          h("div", { class: "row wrap" }, field("timeout (ms)", callTimeout), callBtn, cancelCallBtn, progress),
          toolResult))),
    h("section", { class: "sub", "aria-labelledby": "mcp-res-h" },
      h("h3", { id: "mcp-res-h" }, "Resources ", btn("mcp-list-resources", "List resources", listResources, "resources/list"),
        " ", btn("mcp-list-templates", "List templates", listTemplates, "resources/templates/list")),
      resourceList, resourceResult),
    h("section", { class: "sub", "aria-labelledby": "mcp-prompts-h" },
      h("h3", { id: "mcp-prompts-h" }, "Prompts ", btn("mcp-list-prompts", "List prompts", listPrompts, "prompts/list")),
      h("div", { class: "split" }, promptList, h("div", { class: "stack" }, promptArgs, h("div", {}, promptGetBtn), promptResult))),
    h("section", { class: "sub", "aria-labelledby": "mcp-events-h" },
      h("h3", { id: "mcp-events-h" }, "Notifications, timeouts and cancellations"), events));
  refresh();

  function event(text, kind = "") {
    events.prepend(h("li", { class: kind }, h("span", { class: "muted" }, `${formatTime(Date.now())} `), text));
    while (events.childNodes.length > 300) events.lastChild.remove();
  }

  function refresh() {
    const methods = client?.methods() ?? [];
    for (const [b, names] of gated) {
      const g = client ? gate(methods, ...names) : { enabled: false, reason: "connect first" };
      setEnabled(b, g.enabled, g.reason);
    }
    level.disabled = !client;
    let argsOk = true;
    if (toolArgs.value.trim()) {
      const parsed = tryParse(toolArgs.value);
      argsOk = parsed !== undefined && parsed !== null && typeof parsed === "object" && !Array.isArray(parsed);
    }
    argsError.textContent = argsOk ? "" : "arguments must be a JSON object";
    toolArgs.setAttribute("aria-invalid", String(!argsOk));
    const callGate = client ? gate(methods, "tools/call") : { enabled: false, reason: "connect first" };
    setEnabled(callBtn, callGate.enabled && !!selectedTool && argsOk && !callAbort,
      !callGate.enabled ? callGate.reason : !selectedTool ? "list tools and pick one" : callAbort ? "a call is running" : "fix the arguments");
    setEnabled(cancelCallBtn, !!callAbort, "no call is running");
    toolArgs.disabled = !client;
    setEnabled(promptGetBtn, !!client && !!selectedPrompt && gate(methods, "prompts/get").enabled, selectedPrompt ? gate(methods, "prompts/get").reason : "list prompts and pick one");
  }

  async function run(label, fn) {
    try {
      return await fn();
    } catch (err) {
      event(`${label} failed: ${describeError(err)}`, "bad");
      if (err?.code !== TIMEOUT) banner.show(`${label} failed`, err);
      return undefined;
    }
  }

  const json = (v) => h("pre", { class: "json small" }, JSON.stringify(v, null, 2));

  async function ping() {
    const t = performance.now();
    if (await run("ping", () => client.ping()) !== undefined) event(`pong in ${Math.round(performance.now() - t)} ms`);
  }

  async function setLevel() {
    if (await run("logging/setLevel", () => client.setLoggingLevel(level.value)) !== undefined) event(`log level set to ${level.value}`);
  }

  async function listTools() {
    const res = await run("tools/list", () => client.listTools());
    if (!res) return;
    const tools = res.tools ?? [];
    replace(toolList, tools.length ? tools.map((t) => h("li", {},
      h("button", { type: "button", class: "pick", "data-testid": "mcp-tool", "data-name": t.name, title: t.description ?? "", onclick: () => pickTool(t) },
        h("strong", {}, t.title ?? t.name), t.title ? h("code", { class: "small" }, ` ${t.name}`) : null,
        t.description ? h("span", { class: "muted small desc" }, t.description) : null)))
      : h("li", { class: "muted" }, "no tools"));
    event(`${tools.length} tools listed${res.nextCursor ? " (more pages)" : ""}`);
  }

  function pickTool(tool) {
    selectedTool = tool;
    toolName.textContent = tool.name;
    for (const b of toolList.querySelectorAll("button")) b.setAttribute("aria-pressed", String(b.dataset.name === tool.name));
    toolArgs.value = JSON.stringify(skeleton(tool.inputSchema ?? { type: "object" }) ?? {}, null, 2);
    toolResult.replaceChildren();
    refresh();
    toolArgs.focus();
  }

  async function callTool() {
    const tool = selectedTool;
    const args = toolArgs.value.trim() ? JSON.parse(toolArgs.value) : {};
    const timeoutMs = Math.max(1, Number(callTimeout.value) || 30000);
    callAbort = new AbortController();
    progress.hidden = false;
    progress.removeAttribute("value");
    replace(toolResult, h("p", { class: "muted" }, `calling ${tool.name}…`));
    refresh();
    const started = performance.now();
    try {
      const res = await client.callTool(tool.name, args, {
        timeoutMs, signal: callAbort.signal,
        onProgress: (e) => {
          const p = e?.params; // the notification's params: progress, total, message
          if (typeof p?.progress === "number" && typeof p?.total === "number") { progress.max = p.total; progress.value = p.progress; }
          event(`progress ${p?.progress ?? "?"}${p?.total != null ? `/${p.total}` : ""}${p?.message ? ` ${p.message}` : ""}`);
        },
      });
      const ms = Math.round(performance.now() - started);
      replace(toolResult,
        h("p", { class: res?.isError ? "bad-text" : "ok-text", "data-testid": "mcp-tool-status" }, `${res?.isError ? "tool reported an error" : "ok"} · ${ms} ms`),
        (res?.content ?? []).map((b) => h("div", { class: "tool-content" }, contentBlock(b))),
        res?.structuredContent !== undefined ? h("details", { open: true }, h("summary", {}, "structuredContent"), json(res.structuredContent)) : null,
        h("details", {}, h("summary", {}, "raw result"), json(res)));
      event(`tools/call ${tool.name} answered in ${ms} ms`);
    } catch (err) {
      const cancelled = callAbort?.signal.aborted;
      const what = err?.code === TIMEOUT ? `timed out after ${err.data?.timeoutMs ?? timeoutMs} ms; notifications/cancelled sent`
        : cancelled ? "cancelled by you; notifications/cancelled sent" : describeError(err);
      replace(toolResult, h("p", { class: "bad-text", "data-testid": "mcp-tool-status" }, `tools/call ${tool.name}: ${what}`),
        err?.data !== undefined ? json(err.data) : null);
      event(`tools/call ${tool.name}: ${what}`, err?.code === TIMEOUT || cancelled ? "warn" : "bad");
    } finally {
      callAbort = null;
      progress.hidden = true;
      refresh();
    }
  }

  async function listResources() {
    const res = await run("resources/list", () => client.listResources());
    if (!res) return;
    const subscribe = gate(client.methods(), "resources/subscribe");
    const unsubscribe = gate(client.methods(), "resources/unsubscribe");
    const resources = res.resources ?? [];
    replace(resourceList, resources.length ? resources.map((r) => h("li", { class: "resource-row", "data-testid": "mcp-resource", "data-uri": r.uri },
      h("span", {}, h("strong", {}, r.title ?? r.name ?? r.uri), " ", h("code", { class: "small" }, r.uri), r.mimeType ? h("span", { class: "muted small" }, ` ${r.mimeType}`) : null),
      h("span", { class: "row" },
        h("button", { type: "button", onclick: () => readResource(r.uri) }, "Read"),
        gatedButton("Subscribe", subscribe, () => run("resources/subscribe", () => client.subscribe(r.uri)).then((ok) => ok !== undefined && event(`subscribed to ${r.uri}`))),
        gatedButton("Unsubscribe", unsubscribe, () => run("resources/unsubscribe", () => client.unsubscribe(r.uri)).then((ok) => ok !== undefined && event(`unsubscribed from ${r.uri}`))))))
      : h("li", { class: "muted" }, "no resources"));
    event(`${resources.length} resources listed${res.nextCursor ? " (more pages)" : ""}`);
  }

  function gatedButton(label, g, onclick) {
    const b = h("button", { type: "button", onclick }, label);
    setEnabled(b, g.enabled, g.reason);
    return b;
  }

  async function listTemplates() {
    const res = await run("resources/templates/list", () => client.listResourceTemplates());
    if (!res) return;
    const templates = res.resourceTemplates ?? [];
    replace(resourceResult, h("p", { class: "field-label" }, `${templates.length} resource templates`),
      h("ul", {}, templates.map((t) => h("li", {}, h("strong", {}, t.name ?? ""), " ", h("code", {}, t.uriTemplate ?? "")))));
  }

  async function readResource(uri) {
    const res = await run("resources/read", () => client.readResource(uri));
    if (!res) return;
    replace(resourceResult, h("p", { class: "field-label" }, "read ", h("code", {}, uri)),
      (res.contents ?? []).map((c) => h("details", { open: true }, h("summary", {}, h("code", {}, c.uri ?? uri), c.mimeType ? ` ${c.mimeType}` : ""),
        h("pre", {}, c.text ?? (c.blob ? `(${Math.floor(c.blob.length * 3 / 4)} bytes of binary)` : "")))));
  }

  async function listPrompts() {
    const res = await run("prompts/list", () => client.listPrompts());
    if (!res) return;
    const prompts = res.prompts ?? [];
    replace(promptList, prompts.length ? prompts.map((p) => h("li", {},
      h("button", { type: "button", class: "pick", "data-testid": "mcp-prompt", "data-name": p.name, onclick: () => pickPrompt(p) },
        h("strong", {}, p.title ?? p.name), p.description ? h("span", { class: "muted small desc" }, p.description) : null)))
      : h("li", { class: "muted" }, "no prompts"));
    event(`${prompts.length} prompts listed`);
  }

  function pickPrompt(prompt) {
    selectedPrompt = prompt;
    for (const b of promptList.querySelectorAll("button")) b.setAttribute("aria-pressed", String(b.dataset.name === prompt.name));
    replace(promptArgs, h("span", { class: "field-label" }, `Arguments of ${prompt.name}`),
      (prompt.arguments ?? []).map((a) => field(`${a.name}${a.required ? " *" : ""}`,
        h("input", { "data-arg": a.name, required: !!a.required, placeholder: a.description ?? "" }))));
    refresh();
  }

  async function getPrompt() {
    const args = {};
    for (const input of promptArgs.querySelectorAll("input[data-arg]")) if (input.value !== "") args[input.dataset.arg] = input.value;
    const res = await run("prompts/get", () => client.getPrompt(selectedPrompt.name, args));
    if (!res) return;
    replace(promptResult, res.description ? h("p", { class: "muted" }, res.description) : null,
      (res.messages ?? []).map((m) => h("div", { class: `message ${m.role === "user" ? "user" : "agent"}` }, h("span", { class: "who" }, m.role ?? ""), h("div", { class: "body" }, contentBlock(m.content)))));
  }

  /** Requests the server may send us, answered according to what we declared. */
  const handlers = {
    "roots/list": async () => ({ roots: [{ uri: "file:///home/user/project", name: "project" }] }),
    "sampling/createMessage": async () => {
      event("sampling/createMessage answered with a fixed text (the playground has no model)");
      return { role: "assistant", content: { type: "text", text: "This is the agentwire playground: no model here." }, model: "playground", stopReason: "endTurn" };
    },
    "elicitation/create": async (params) => {
      event(`elicitation/create declined: ${params?.message ?? ""}`, "warn");
      return { action: "decline" };
    },
  };

  function notification(method, params) {
    if (method === "notifications/message") event(`log ${params?.level ?? ""}${params?.logger ? ` (${params.logger})` : ""}: ${typeof params?.data === "string" ? params.data : JSON.stringify(params?.data)}`, params?.level === "error" ? "bad" : "");
    else if (method === "notifications/cancelled") event(`server cancelled request ${params?.requestId}${params?.reason ? `: ${params.reason}` : ""}`, "warn");
    else if (method === "notifications/progress") return;
    else event(`${method}${params && Object.keys(params).length ? ` ${JSON.stringify(params)}` : ""}`);
  }

  return {
    handlers,
    notification,
    connected(next) { client = next; refresh(); },
    disconnected() {
      client = null; selectedTool = null; selectedPrompt = null; callAbort?.abort(); callAbort = null;
      refresh();
    },
  };
}
