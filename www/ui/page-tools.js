// Page tools: MCP tools the page itself offers to the agent, through the relay
// (AcpConnection.hostMcpServer). Each tool is a name, a description, an input JSON Schema and
// a result: a text in which {{name}} is replaced by that argument and {{arguments}} by all of
// them as JSON (a small handler that needs no eval, which the page's CSP forbids).
import { h, replace } from "../lib/dom.js";

const EXAMPLE = [
  { name: "open_editors", description: "The files open in the playground's editor", inputSchema: { type: "object", properties: {} }, result: "README.md, src/main.rs" },
  { name: "greet", description: "Greets someone by name", inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }, result: "Hello, {{name}}, from the page!" },
];

/** The tools in the editor's text, or why they are not usable. */
export function parseTools(text) {
  let tools;
  try { tools = JSON.parse(text); } catch (e) { return { error: `not JSON: ${e.message}` }; }
  if (!Array.isArray(tools)) return { error: "a JSON array of tools" };
  for (const [i, t] of tools.entries()) {
    if (typeof t?.name !== "string" || !/^[A-Za-z0-9_.-]{1,64}$/.test(t.name)) return { error: `tool ${i + 1}: a name of A-Z a-z 0-9 _ . - is needed` };
    if (t.inputSchema !== undefined && (typeof t.inputSchema !== "object" || t.inputSchema === null || t.inputSchema.type !== "object")) return { error: `${t.name}: inputSchema must be an object schema` };
    if (typeof (t.result ?? "") !== "string") return { error: `${t.name}: result must be a text` };
  }
  return { tools };
}

/** A tool's result text for these arguments. */
export function fill(template, args) {
  return String(template ?? "").replace(/\{\{(\w+)\}\}/g, (_, k) => (k === "arguments" ? JSON.stringify(args ?? {}) : args?.[k] === undefined ? "" : typeof args[k] === "string" ? args[k] : JSON.stringify(args[k])));
}

export function createPageTools(root, { onCall, onFrame, onChange }) {
  const offer = h("input", { type: "checkbox", id: "page-tools-offer", "data-testid": "page-tools-offer", onchange: changed });
  const editor = h("textarea", { id: "page-tools", "data-testid": "page-tools", rows: "8", spellcheck: "false", oninput: changed, "aria-describedby": "page-tools-error" },
    JSON.stringify(EXAMPLE, null, 2));
  const error = h("p", { id: "page-tools-error", class: "field-error", "aria-live": "polite" });
  const status = h("p", { id: "page-tools-status", "data-testid": "page-tools-status", class: "field-hint", "aria-live": "polite" });
  replace(root, h("details", { class: "page-tools" },
    h("summary", {}, "Page tools (an MCP server of this page, offered in session/new)"),
    h("label", { class: "check" }, offer, "Offer these tools to the agent (through the relay)"),
    editor, error, status));
  let hosted = null; // { client, entry } for this connection

  function changed() {
    const { error: why } = parseTools(editor.value);
    error.textContent = offer.checked && why ? why : "";
    onChange?.();
  }

  /** The mcpServers entries to add to session/new or session/load: none unless offered. */
  async function entries(client) {
    if (!offer.checked) return [];
    const { tools, error: why } = parseTools(editor.value);
    if (why) throw new Error(`page tools: ${why}`);
    if (hosted?.client !== client) {
      const entry = await client.hostMcpServer({
        name: "page",
        serverInfo: { name: "agentwire-playground", version: "0.1.0" },
        capabilities: { tools: {} },
        // Each MCP session of the agent: the tools as the editor says when it starts.
        setup: (server, { session }) => {
          const current = parseTools(editor.value).tools ?? tools;
          server.onFrame((frame) => onFrame(frame, { label: "page tools", session, server }));
          server.onRequest("tools/list", () => ({ tools: current.map(({ name, description, inputSchema }) => ({ name, description, inputSchema: inputSchema ?? { type: "object" } })) }));
          server.onRequest("tools/call", ({ name, arguments: args }) => {
            const tool = current.find((t) => t.name === name);
            const text = tool ? fill(tool.result, args) : `no page tool named ${name}`;
            onCall({ name, args, text, ok: !!tool });
            return { content: [{ type: "text", text }], ...(tool ? {} : { isError: true }) };
          });
        },
      });
      hosted = { client, entry };
      status.textContent = `hosted at ${entry.url}`;
    }
    return [hosted.entry];
  }

  changed();
  return { entries, valid: () => !offer.checked || !parseTools(editor.value).error, reset: () => { hosted = null; status.textContent = ""; } };
}
