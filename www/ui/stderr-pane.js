// Relay side channel: agent spawn, stderr, exit and relay errors, kept apart from JSON-RPC.
import { h, replace, formatTime } from "../lib/dom.js";

const MAX_LINES = 2000;

export function createStderrPane(root) {
  const log = h("pre", { id: "stderr-pane", "data-testid": "stderr-pane", class: "stderr", "aria-live": "polite", tabindex: "0" });
  const status = h("span", { id: "agent-status", class: "muted" }, "no agent");
  replace(root, h("div", { class: "toolbar" }, status,
    h("button", { type: "button", onclick: () => log.replaceChildren() }, "Clear")), log);

  function line(kind, text) {
    log.append(h("span", { class: `line ${kind}` }, `${formatTime(Date.now())} ${text}${text.endsWith("\n") ? "" : "\n"}`));
    while (log.childNodes.length > MAX_LINES) log.firstChild.remove();
    log.scrollTop = log.scrollHeight;
  }

  function relay(event) {
    switch (event?.event) {
      case "spawned": status.textContent = `${event.agent ?? "agent"} running (pid ${event.pid})`; line("info", `spawned ${event.agent ?? ""} pid ${event.pid}`); break;
      case "stderr": line("agent-err", String(event.text ?? "")); break;
      case "exit": {
        const how = event.signal ? `signal ${event.signal}` : `code ${event.code}`;
        status.textContent = `agent exited (${how})`;
        line(event.code === 0 ? "info" : "bad", `exit ${how}`);
        break;
      }
      case "error": line("bad", `relay error: ${event.message}`); break;
      // The secret in `authorization` is never shown.
      case "hosted": line("info", `relay hosts the page's MCP server "${event.name}" at ${event.url}`); break;
      case "hostRefused": line("bad", `relay refused to host "${event.name}": ${event.message}`); break;
      default: line("info", JSON.stringify(event));
    }
  }

  return { relay, note: (text) => line("info", text), reset: () => { status.textContent = "no agent"; } };
}
