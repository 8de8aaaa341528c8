// MCP flows after initialize: tools (list; arguments as a form from the inputSchema, kept in
// step with a JSON editor; call with cancel and timeout; the result checked against the
// outputSchema, images and audio shown), resources (list, read, subscribe; templates filled
// with completion), prompts (list, arguments with completion, get once the required ones are
// filled), logging level, ping; what the server asks of the client (sampling, elicitation,
// roots) answered by the user; every notification, timeout and cancellation in an event log.
import { h, replace, field, setEnabled, describeError, formatTime } from "../lib/dom.js";
import { gate } from "../lib/caps.js";
import { tryParse } from "../lib/json-view.js";
import { skeleton } from "../lib/schema-skeleton.js";
import { schemaForm, check } from "../lib/schema-form.js";
import { contentBlock } from "./content.js";
import { createClientRequests } from "./client-requests.js";

const LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
const TIMEOUT = -32001;

export function createMcpPanel(root, { banner, onToolUi = null }) {
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
  const toolArgs = h("textarea", { id: "mcp-tool-args", "data-testid": "mcp-tool-args", rows: "4", spellcheck: "false", oninput: () => { toolForm?.set(tryParse(toolArgs.value) ?? {}); refresh(); }, "aria-describedby": "mcp-tool-args-error" });
  const toolFormRoot = h("div", { id: "mcp-tool-form", "data-testid": "mcp-tool-form" });
  let toolForm = null;
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
  const promptArgsError = h("span", { id: "mcp-prompt-args-error", "data-testid": "mcp-prompt-args-error", class: "field-error", "aria-live": "polite" });
  const promptGetBtn = btn("mcp-get-prompt", "Get prompt", getPrompt, "prompts/get");
  const promptResult = h("div", { id: "mcp-prompt-result", "data-testid": "mcp-prompt-result", class: "result" });

  // misc
  const level = h("select", { id: "mcp-log-level", "data-testid": "mcp-log-level", "aria-label": "Logging level" }, LEVELS.map((l) => h("option", { value: l, selected: l === "info" }, l)));
  const events = h("ol", { id: "mcp-events", "data-testid": "mcp-events", class: "events", "aria-live": "polite" });
  const requestsRoot = h("div", { id: "mcp-client-requests" });
  const requests = createClientRequests(requestsRoot, { event, notify: (method, params) => client.notify(method, params) });

  replace(root,
    h("div", { class: "row wrap" },
      btn("mcp-ping", "Ping", ping, "ping"),
      h("span", { class: "row" }, level, btn("mcp-set-level", "Set log level", setLevel, "logging/setLevel"))),
    h("section", { class: "sub", "aria-labelledby": "mcp-tools-h" },
      h("h3", { id: "mcp-tools-h" }, "Tools ", btn("mcp-list-tools", "List tools", listTools, "tools/list")),
      h("div", { class: "split" }, toolList,
        h("div", { class: "stack" },
          h("div", { class: "row baseline" }, h("span", { class: "field-label" }, "Tool"), toolName),
          h("span", { class: "field-label" }, "Arguments (from the inputSchema)"), toolFormRoot,
          h("details", { class: "json-args", open: true }, h("summary", {}, h("label", { for: "mcp-tool-args" }, "Arguments as JSON")), toolArgs), argsError,
          h("div", { class: "row wrap" }, field("timeout (ms)", callTimeout), callBtn, cancelCallBtn, progress),
          toolResult))),
    h("section", { class: "sub", "aria-labelledby": "mcp-res-h" },
      h("h3", { id: "mcp-res-h" }, "Resources ", btn("mcp-list-resources", "List resources", listResources, "resources/list"),
        " ", btn("mcp-list-templates", "List templates", listTemplates, "resources/templates/list")),
      resourceList, resourceResult),
    h("section", { class: "sub", "aria-labelledby": "mcp-prompts-h" },
      h("h3", { id: "mcp-prompts-h" }, "Prompts ", btn("mcp-list-prompts", "List prompts", listPrompts, "prompts/list")),
      h("div", { class: "split" }, promptList, h("div", { class: "stack" }, promptArgs, promptArgsError, h("div", {}, promptGetBtn), promptResult))),
    h("section", { class: "sub", id: "mcp-requests-section", "aria-labelledby": "mcp-requests-h" },
      h("h3", { id: "mcp-requests-h" }, "Requests from the server"), requestsRoot),
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
    let argsWhy = "";
    if (toolArgs.value.trim()) {
      const parsed = tryParse(toolArgs.value);
      argsOk = parsed !== undefined && parsed !== null && typeof parsed === "object" && !Array.isArray(parsed);
      if (!argsOk) argsWhy = "arguments must be a JSON object";
      else if (selectedTool?.inputSchema) {
        const issues = check(selectedTool.inputSchema, parsed);
        if (issues.length) { argsOk = false; argsWhy = issues.map((i) => `${i.path.slice(1) || "arguments"}: ${i.message}`).join("; "); }
      }
    }
    argsError.textContent = argsWhy;
    toolArgs.setAttribute("aria-invalid", String(!argsOk));
    const callGate = client ? gate(methods, "tools/call") : { enabled: false, reason: "connect first" };
    setEnabled(callBtn, callGate.enabled && !!selectedTool && argsOk && !callAbort,
      !callGate.enabled ? callGate.reason : !selectedTool ? "list tools and pick one" : callAbort ? "a call is running" : `fix the arguments: ${argsWhy}`);
    setEnabled(cancelCallBtn, !!callAbort, "no call is running");
    toolArgs.disabled = !client;
    // prompts/get never goes with a required argument empty.
    const missing = (selectedPrompt?.arguments ?? []).filter((a) => a.required && !promptArgs.querySelector(`input[data-arg="${CSS.escape(a.name)}"]`)?.value).map((a) => a.name);
    promptArgsError.textContent = selectedPrompt && missing.length ? `required: ${missing.join(", ")}` : "";
    const promptGate = client ? gate(methods, "prompts/get") : { enabled: false, reason: "connect first" };
    setEnabled(promptGetBtn, !!client && !!selectedPrompt && promptGate.enabled && missing.length === 0,
      !selectedPrompt ? "list prompts and pick one" : !promptGate.enabled ? promptGate.reason : `fill the required arguments: ${missing.join(", ")}`);
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
    toolForm = schemaForm(tool.inputSchema ?? { type: "object" }, { testid: "tool-arg", onInput: () => { toolArgs.value = JSON.stringify(toolForm.value(), null, 2); refresh(); } });
    replace(toolFormRoot, toolForm.el);
    const start = skeleton(tool.inputSchema ?? { type: "object" }) ?? {};
    toolForm.set(start);
    toolArgs.value = JSON.stringify(toolForm.fields.length ? toolForm.value() : start, null, 2);
    toolResult.replaceChildren();
    refresh();
    (toolForm.fields[0]?.control ?? toolArgs).focus();
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
        outputCheck(tool, res),
        (res?.content ?? []).map((b) => h("div", { class: "tool-content" }, contentBlock(b))),
        res?.structuredContent !== undefined ? h("details", { open: true }, h("summary", {}, "structuredContent"), json(res.structuredContent)) : null,
        h("details", {}, h("summary", {}, "raw result"), json(res)));
      event(`tools/call ${tool.name} answered in ${ms} ms`);
      // A tool with a UI (MCP Apps): its view opens under the result.
      if (onToolUi && (tool._meta?.ui?.resourceUri ?? tool._meta?.["ui/resourceUri"]) !== undefined) {
        onToolUi({ client, tool, args, result: res, container: toolResult })
          .catch((err) => event(`the UI of ${tool.name}: ${describeError(err)}`, "bad"));
      }
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

  /**
   * A tool with an outputSchema must return structuredContent that conforms to it (MCP
   * 2025-06-18 and later): the verdict, with each issue at its path.
   */
  function outputCheck(tool, res) {
    if (!tool.outputSchema) return null;
    if (res?.isError) return h("p", { class: "muted small", "data-testid": "mcp-output-check", "data-ok": "skipped" }, "outputSchema: not checked (the tool reported an error)");
    if (res?.structuredContent === undefined) {
      return h("p", { class: "bad-text small", "data-testid": "mcp-output-check", "data-ok": "false" }, "outputSchema: the tool declares one but returned no structuredContent");
    }
    const issues = check(tool.outputSchema, res.structuredContent);
    if (!issues.length) return h("p", { class: "ok-text small", "data-testid": "mcp-output-check", "data-ok": "true" }, "structuredContent conforms to the outputSchema");
    return h("div", { "data-testid": "mcp-output-check", "data-ok": "false" }, h("p", { class: "bad-text small" }, `structuredContent does not conform to the outputSchema (${issues.length})`),
      h("ul", { class: "issues" }, issues.map((i) => h("li", { class: "bad" }, h("code", {}, i.path || "/"), " ", i.message))));
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
      h("ul", { class: "picker" }, templates.map((t) => h("li", {}, h("button", { type: "button", class: "pick", "data-testid": "mcp-template", "data-uri-template": t.uriTemplate ?? "", onclick: () => pickTemplate(t) },
        h("strong", {}, t.title ?? t.name ?? ""), " ", h("code", { class: "small" }, t.uriTemplate ?? ""))))),
      templateRoot);
  }

  const templateRoot = h("div", { id: "mcp-template-form", class: "stack" });

  /** The variables of a URI template (RFC 6570 level 1-3 names: {x}, {+x}, {?x,y}…). */
  const templateVars = (t) => [...new Set([...String(t).matchAll(/\{[+#./;?&]?([^}]+)\}/g)].flatMap((m) => m[1].split(",").map((v) => v.replace(/[*]|:\d+$/g, "").trim())))];

  function expand(template, values) {
    return String(template).replace(/\{([+#./;?&]?)([^}]+)\}/g, (_, op, names) => {
      const parts = names.split(",").map((n) => n.replace(/[*]|:\d+$/g, "").trim()).filter((n) => values[n] !== undefined && values[n] !== "");
      const enc = (v) => (op === "+" || op === "#" ? encodeURI(v) : encodeURIComponent(v));
      if (op === "?" || op === "&") return parts.length ? op + parts.map((n) => `${n}=${enc(values[n])}`).join("&") : "";
      const sep = op === "." ? "." : op === "/" ? "/" : op === ";" ? ";" : "";
      return parts.length ? sep + parts.map((n) => enc(values[n])).join(op === "" || op === "+" || op === "#" ? "," : sep) : "";
    });
  }

  function pickTemplate(t) {
    const ref = { type: "ref/resource", uri: t.uriTemplate };
    const vars = templateVars(t.uriTemplate);
    const inputs = vars.map((name) => completingInput(ref, name, { "data-template-var": name }, () => ({})));
    const uri = h("code", { "data-testid": "mcp-template-uri" });
    const readBtn = h("button", { type: "button", "data-testid": "mcp-template-read", onclick: () => readResource(uri.textContent) }, "Read");
    const update = () => {
      const values = Object.fromEntries(inputs.map((i) => [i.input.dataset.templateVar, i.input.value]));
      uri.textContent = expand(t.uriTemplate, values);
      readBtn.disabled = inputs.some((i) => i.input.value === "");
    };
    for (const i of inputs) i.input.addEventListener("input", update);
    replace(templateRoot, h("span", { class: "field-label" }, `Fill ${t.uriTemplate}`), inputs.map((i) => field(i.input.dataset.templateVar, i.el)), h("div", { class: "row" }, uri, readBtn));
    update();
  }

  /**
   * A text input that asks the server for completions (completion/complete) as the user types,
   * when the server advertised `completions`; suggestions go in a <datalist> and a list under it.
   * `context()` gives the other arguments already filled (context.arguments).
   */
  function completingInput(ref, name, attrs, context) {
    const listId = `complete-${++completionSeq}`;
    const datalist = h("datalist", { id: listId });
    const shown = h("span", { class: "muted small completions", "data-testid": "completions", "data-argument": name });
    const input = h("input", { ...attrs, list: listId, autocomplete: "off" });
    let timer = null, asked = 0;
    const can = () => client && gate(client.methods(), "completion/complete").enabled;
    async function ask() {
      if (!can()) { shown.textContent = ""; return; }
      const mine = ++asked;
      try {
        const others = context();
        const res = await client.request("completion/complete", { ref, argument: { name, value: input.value }, ...(Object.keys(others).length ? { context: { arguments: others } } : {}) });
        if (mine !== asked) return;
        const values = res?.completion?.values ?? [];
        replace(datalist, values.map((v) => h("option", { value: v })));
        shown.textContent = values.length ? `suggested: ${values.join(", ")}${res.completion.hasMore ? " …" : ""}` : "no suggestions";
      } catch (err) {
        if (mine === asked) shown.textContent = `completion/complete: ${describeError(err)}`;
      }
    }
    input.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(ask, 150); });
    input.addEventListener("focus", () => { if (!shown.textContent) ask(); });
    return { input, el: h("span", { class: "stack tight" }, input, datalist, shown) };
  }
  let completionSeq = 0;

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
    const ref = { type: "ref/prompt", name: prompt.name };
    const others = (name) => () => Object.fromEntries([...promptArgs.querySelectorAll("input[data-arg]")].filter((i) => i.dataset.arg !== name && i.value !== "").map((i) => [i.dataset.arg, i.value]));
    replace(promptArgs, h("span", { class: "field-label" }, `Arguments of ${prompt.name}`),
      (prompt.arguments ?? []).length === 0 ? h("p", { class: "muted small" }, "no arguments") : null,
      (prompt.arguments ?? []).map((a) => {
        const c = completingInput(ref, a.name, { "data-arg": a.name, required: !!a.required, placeholder: a.description ?? "", oninput: refresh }, others(a.name));
        return field(`${a.name}${a.required ? " *" : ""}`, c.el);
      }));
    refresh();
  }

  async function getPrompt() {
    if (promptGetBtn.disabled) return;
    const args = {};
    for (const input of promptArgs.querySelectorAll("input[data-arg]")) if (input.value !== "") args[input.dataset.arg] = input.value;
    const res = await run("prompts/get", () => client.getPrompt(selectedPrompt.name, args));
    if (!res) return;
    replace(promptResult, res.description ? h("p", { class: "muted" }, res.description) : null,
      (res.messages ?? []).map((m) => h("div", { class: `message ${m.role === "user" ? "user" : "agent"}` }, h("span", { class: "who" }, m.role ?? ""), h("div", { class: "body" }, contentBlock(m.content)))));
  }

  /** Requests the server may send us: the user answers them in the panes. */
  const handlers = requests.handlers;

  function notification(method, params) {
    if (method === "notifications/cancelled") requests.cancelled(params?.requestId, params?.reason);
    if (method === "notifications/message") event(`log ${params?.level ?? ""}${params?.logger ? ` (${params.logger})` : ""}: ${typeof params?.data === "string" ? params.data : JSON.stringify(params?.data)}`, params?.level === "error" ? "bad" : "");
    else if (method === "notifications/cancelled") event(`server cancelled request ${params?.requestId}${params?.reason ? `: ${params.reason}` : ""}`, "warn");
    else if (method === "notifications/progress") return;
    else event(`${method}${params && Object.keys(params).length ? ` ${JSON.stringify(params)}` : ""}`);
  }

  return {
    handlers,
    notification,
    connected(next, declared = {}) { client = next; requests.declare(declared); refresh(); },
    disconnected() {
      client = null; selectedTool = null; selectedPrompt = null; callAbort?.abort(); callAbort = null;
      requests.reset();
      refresh();
    },
    /** A new connection: the previous one's lists, results and events go. */
    reset() {
      selectedTool = null; selectedPrompt = null; toolForm = null;
      for (const el of [toolList, toolFormRoot, toolResult, resourceList, resourceResult, templateRoot, promptList, promptArgs, promptResult, events]) el.replaceChildren();
      toolName.textContent = "no tool selected";
      toolArgs.value = "";
      requests.reset();
      refresh();
    },
  };
}
