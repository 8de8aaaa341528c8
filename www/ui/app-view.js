// A tool's MCP App, opened inline under its result: agentwire/apps renders the view behind the
// relay's sandbox origin, and every frame of its bridge joins the timeline on a channel of its
// own (protocol "mcp-apps", where the page is the host), validated there like any other frame.
import { h } from "../lib/dom.js";

let views = 0;

// The page's colours and fonts, as the MCP Apps style variables a view may apply.
const STYLE = { "--color-background-primary": "--card", "--color-background-secondary": "--bg", "--color-text-primary": "--fg",
  "--color-text-secondary": "--muted", "--color-border-primary": "--line", "--color-ring-primary": "--accent", "--font-sans": "--sans", "--font-mono": "--mono" };

function hostStyle() {
  const css = getComputedStyle(document.documentElement);
  const variables = {};
  for (const [name, ours] of Object.entries(STYLE)) {
    const value = css.getPropertyValue(ours).trim();
    if (value) variables[name] = value;
  }
  const dark = document.documentElement.dataset.theme ? document.documentElement.dataset.theme === "dark" : matchMedia("(prefers-color-scheme: dark)").matches;
  return { theme: dark ? "dark" : "light", styles: { variables } };
}

/**
 * Opens the UI of `tool` in `container` after a call, giving it the call's input and result.
 * `addFrame(frame)` is the timeline's; `note(text)` logs what the view asks (messages, links, logs).
 */
export async function openToolUi({ client, tool, args, result, container, token, addFrame, note }) {
  const apps = await import("/pkg/apps.js");
  if (!apps.toolResourceUri(tool)) return null;
  const answer = await fetch("/api/agents", { headers: { authorization: `Bearer ${token}` } });
  const { sandbox } = await answer.json();
  if (!sandbox) throw new Error("the relay serves no MCP Apps sandbox origin");
  const session = ++views;
  const channel = { label: `app ${tool.name}`, session, protocol: "mcp-apps", role: "server", version: () => apps.APPS_PROTOCOL_VERSION };
  const box = h("div", { class: "tool-ui", "data-testid": "mcp-tool-ui", "data-tool": tool.name });
  container.append(box);
  const view = await apps.renderApp(client, tool, {
    sandbox: `${sandbox}/sandbox.html`, container: box,
    hostInfo: { name: "agentwire-playground", version: "0.1.0" }, hostContext: hostStyle(),
    onFrame: ({ direction, message }) => addFrame({ direction, text: JSON.stringify(message), time: Date.now(), channel }),
    onMessage: (p) => { note(`app ${tool.name}: ui/message ${JSON.stringify(p.content)}`); return {}; },
    onOpenLink: (url) => { note(`app ${tool.name}: open ${url}`); window.open(url, "_blank", "noopener,noreferrer"); return {}; },
    onModelContext: (p) => { note(`app ${tool.name}: model context ${JSON.stringify(p)}`); return {}; },
    onLog: (p) => note(`app ${tool.name}: ${p.level} ${typeof p.data === "string" ? p.data : JSON.stringify(p.data)}`),
    onRequestTeardown: () => { view.teardown().then(() => box.remove()); },
  });
  view.toolInput(args);
  view.toolResult(result);
  const close = h("button", { type: "button", "data-testid": "mcp-tool-ui-close", onclick: () => view.teardown().then(() => box.remove()) }, "Close app");
  box.prepend(close);
  return view;
}
